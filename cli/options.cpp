#include "options.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include "limiter/error.hpp"
#include "limiter/file_io.hpp"
#include "output_guard.hpp"

namespace limiter::cli {
namespace {

std::string first_line(const std::string& usage) { return usage.substr(0, usage.find('\n')); }

// A required positional argument that was not given, named as the usage names it (RUN, FILE),
// not by the hidden option that holds it (boost would say "the option '--run' is required").
void refuse_missing_positional(const po::options_description& options,
                               const po::positional_options_description& positional, const po::variables_map& vm,
                               const std::string& usage) {
  std::set<std::string> seen;
  for (unsigned position = 0; position < positional.max_total_count(); ++position) {
    const std::string& name = positional.name_for_position(position);
    if (!seen.insert(name).second) break;  // the trailing one, repeated to the end
    const po::option_description* option = options.find_nothrow(name, false);
    if (!option || !option->semantic()->is_required() || vm.count(name)) continue;
    const std::string argument = option->semantic()->name();
    throw InputError("no " + argument + " given: " + first_line(usage) + " (" + argument + ": " +
                     option->description() + ")");
  }
}

}  // namespace

bool parse_options(const Args& args, const std::string& usage, const po::options_description& visible,
                   const po::positional_options_description& positional, po::variables_map& vm,
                   const po::options_description* hidden, const std::string& help_epilogue) {
  po::options_description help_option;
  help_option.add_options()("help,h", "show this help");
  po::options_description shown;  // what --help prints, aligned as one table
  shown.add(visible).add(help_option);
  po::options_description all;
  all.add(shown);
  if (hidden) all.add(*hidden);
  try {
    po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
    if (vm.count("help")) {
      std::cout << "usage: " << usage << "\n\n" << shown << help_epilogue;
      return false;
    }
    refuse_missing_positional(all, positional, vm, usage);
    po::notify(vm);
  } catch (const po::required_option& e) {
    throw InputError(e.get_option_name() + " is required: " + first_line(usage) + " (see --help)");
  } catch (const po::too_many_positional_options_error&) {
    throw InputError("an argument too many: " + first_line(usage) + " (see --help)");
  } catch (const po::error& e) {
    throw InputError(std::string(e.what()) + " (see --help)");
  }
  return true;
}

void write_output(const std::string& path, const std::function<void(std::ostream&)>& write) {
  if (path.empty() || path == "-") {
    write(std::cout);
    std::cout.flush();
    return;
  }
  refuse_folder_output(path);
  write_file_atomically(path, write);
}

void write_output(const std::string& path, const std::string& content) {
  if (path.empty() || path == "-") {
    std::cout << content;
    std::cout.flush();
    return;
  }
  refuse_folder_output(path);
  write_file_atomically(path, content);
}

}  // namespace limiter::cli
