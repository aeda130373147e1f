// limiter run's flags on the command line, from the table (cli/run_flag_options.hpp): --help lists
// every flag and knob, a flag sets its field as its variable does, and a flag given wins.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "limiter/error.hpp"
#include "collector_options_testing.hpp"
#include "run_flag_options.hpp"

namespace limiter::cli {
namespace {

po::options_description table_description() {
  po::options_description description("options");
  add_table_flags(description);
  return description;
}

CollectorOptions parsed(const std::vector<std::string>& args,
                        const std::map<std::string, std::string>& environment = {}) {
  const po::options_description description = table_description();
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(description).run(), vm);
  po::notify(vm);
  return table_options(vm, [&environment](const char* name) -> const char* {
    const auto found = environment.find(name);
    return found == environment.end() ? nullptr : found->second.c_str();
  });
}

// The arguments that give FLAG its example value.
std::vector<std::string> arguments_for(const RunFlag& flag) {
  const std::string& value = test::run_flag_examples().at(flag.name);
  if (flag.type == ValueType::on_off) return {"--" + flag.name};
  if (flag.type != ValueType::list) return {"--" + flag.name, value};
  std::vector<std::string> args;  // repeated, one value each
  for (const std::string& item : nlohmann::json::parse(value).get<std::vector<std::string>>())
    args.insert(args.end(), {"--" + flag.name, item});
  return args;
}

TEST(RunFlagOptions, HelpListsEveryFlagAndKnob) {
  std::ostringstream text;
  text << table_description() << table_variables_help();
  std::istringstream words(text.str());  // one space between words: the lines wrap anywhere
  std::ostringstream help;
  for (std::string word; words >> word;) help << word << ' ';
  for (const RunFlag& flag : run_flags()) {
    if (flag.kind == FlagKind::flag) {
      const std::string column = flag.short_name ? std::string("\n  -") + flag.short_name + " [ --" + flag.name + " ]"
                                                 : "\n  --" + flag.name + " ";  // the option column, not a mention
      EXPECT_NE(text.str().find(column), std::string::npos) << flag.name;
    }
    if (flag.kind == FlagKind::knob) {
      EXPECT_NE(help.str().find(environment_name(flag) + " (="), std::string::npos) << flag.name;
    }
    if (flag.kind == FlagKind::internal) {
      EXPECT_EQ(help.str().find(environment_name(flag)), std::string::npos) << flag.name;
    }
    if (!flag.alias.empty()) {
      EXPECT_NE(help.str().find(flag.alias + " (" + display_name(flag)), std::string::npos) << flag.alias;
    }
  }
  EXPECT_NE(help.str().find("--capture-range arg (=none)"), std::string::npos) << text.str();
  EXPECT_NE(help.str().find("--timeline "), std::string::npos);
}

TEST(RunFlagOptions, AFlagSetsItsFieldAsItsVariableDoes) {
  for (const RunFlag& flag : run_flags()) {
    if (flag.kind != FlagKind::flag) continue;
    const std::string& value = test::run_flag_examples().at(flag.name);
    EXPECT_EQ(flag.codec.get(parsed(arguments_for(flag))), value) << flag.name;
    EXPECT_EQ(flag.codec.get(parsed({}, {{environment_name(flag), value}})), value) << environment_name(flag);
    EXPECT_EQ(flag.codec.get(parsed({}, {})), flag.default_text) << flag.name;  // neither: its default
  }
}

TEST(RunFlagOptions, AFlagGivenWinsOverItsVariable) {
  EXPECT_EQ(parsed({"--per-kernel-count", "2"}, {{"LIMITER_PER_KERNEL_COUNT", "9"}}).per_kernel_count, 2u);
  EXPECT_EQ(parsed({}, {{"LIMITER_PER_KERNEL_COUNT", "9"}}).per_kernel_count, 9u);
  EXPECT_EQ(parsed({}, {{"LIMITER_SKIP", "4"}}).skip, 4u);  // an older name
  EXPECT_TRUE(parsed({}, {{"LIMITER_TIMELINE", "1"}}).timeline);
  EXPECT_TRUE(parsed({"--timeline"}).timeline);
  EXPECT_EQ(parsed({}, {{"LIMITER_RANGE_SYNC", "all"}}).range_sync, "all");         // a knob
  EXPECT_TRUE(parsed({}).nvtx);                                                     // limiter run records NVTX ranges
  EXPECT_TRUE(parsed({}, {{"LIMITER_COMMAND", R"(["x"])"}}).command_line.empty());  // limiter run's own to set
}

TEST(RunFlagOptions, AMalformedFlagIsOneLineNamingIt) {
  try {
    parsed({"--launch-skip=-1"});
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "--launch-skip must be a whole number, not '-1'");
  }
  try {
    parsed({"--capture-range", "nvtx"});
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "--capture-range must be none or cudaProfilerApi, not 'nvtx' (for NVTX ranges: --nvtx-include)");
  }
}

}  // namespace
}  // namespace limiter::cli
