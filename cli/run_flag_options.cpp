// limiter run's flags from the table (run_flag_options.hpp).
#include "run_flag_options.hpp"

#include <map>
#include <vector>

#include <nlohmann/json.hpp>

#include "limiter/json_text.hpp"

namespace limiter::cli {
namespace {

std::string option_name(const RunFlag& flag) { return flag.short_name ? flag.name + "," + flag.short_name : flag.name; }

// The text a flag given on the command line carries, or "" when it was not given.
bool given_text(const RunFlag& flag, const po::variables_map& vm, std::string& text) {
  if (!vm.count(flag.name) || vm[flag.name].defaulted()) return false;
  const po::variable_value& value = vm[flag.name];
  if (flag.type == ValueType::on_off) {
    if (!value.as<bool>()) return false;
    text = "1";
  } else if (flag.type == ValueType::list) {
    text = json_text(nlohmann::json(value.as<std::vector<std::string>>()));
  } else {
    text = value.as<std::string>();
  }
  return true;
}

// TEXT in lines of at most 80 columns, as Boost lays out --help: after LABEL, or after INDENT
// spaces when LABEL leaves no room.
std::string wrapped(const std::string& label, const std::string& text, std::size_t indent) {
  constexpr std::size_t kWidth = 80;
  std::string out = label, line;
  if (!label.empty() && out.size() >= indent)
    out += "\n" + std::string(indent, ' ');
  else
    out += std::string(indent - out.size(), ' ');
  std::size_t column = indent;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t space = std::min(text.find(' ', start), text.size());
    const std::string word = text.substr(start, space - start);
    if (column > indent && column + 1 + word.size() > kWidth) {
      out += "\n" + std::string(indent, ' ');
      column = indent;
    } else if (column > indent) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
    start = space + 1;
  }
  return out + "\n";
}

}  // namespace

void add_table_flags(po::options_description& description) {
  for (const RunFlag& flag : run_flags()) {
    if (flag.kind != FlagKind::flag) continue;
    const std::string name = option_name(flag);
    if (flag.type == ValueType::on_off) {
      description.add_options()(name.c_str(), po::bool_switch(), flag.help.c_str());
    } else if (flag.type == ValueType::list) {
      description.add_options()(name.c_str(), po::value<std::vector<std::string>>()->composing(), flag.help.c_str());
    } else if (flag.default_text.empty()) {
      description.add_options()(name.c_str(), po::value<std::string>(), flag.help.c_str());
    } else {
      description.add_options()(name.c_str(), po::value<std::string>()->default_value(flag.default_text),
                                flag.help.c_str());
    }
  }
}

CollectorOptions table_options(const po::variables_map& vm, const EnvironmentLookup& lookup) {
  std::map<std::string, std::string> given;
  for (const RunFlag& flag : run_flags()) {
    std::string text;
    if (flag.kind == FlagKind::flag && given_text(flag, vm, text)) given.emplace(flag.name, std::move(text));
  }
  return options_from_flags(given, lookup);
}

std::string table_variables_help() {
  std::string older, knobs;
  for (const RunFlag& flag : run_flags()) {
    if (!flag.alias.empty()) {
      older += (older.empty() ? "" : ", ") + flag.alias + " (" + display_name(flag) +
               (flag.alias_note.empty() ? "" : ", " + flag.alias_note) + ")";
    }
    if (flag.kind == FlagKind::knob)
      knobs += wrapped("  " + environment_name(flag) + " (=" + flag.default_text + ")", flag.help, 40);
  }
  return "\n" +
         wrapped("",
                 "Each flag is also read from its variable, LIMITER_ and its name in capitals "
                 "(--per-kernel-count 3: LIMITER_PER_KERNEL_COUNT=3; a switch: =1); a flag given wins. Older "
                 "names still read: " +
                     older + ".",
                 0) +
         "\nvariables alone (measurement knobs):\n" + knobs;
}

}  // namespace limiter::cli
