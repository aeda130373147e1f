// limiter run's table of flags (limiter/run_flags.hpp): each row's variable, its trip through the
// environment into an injected process, and the refusal of each option a mode does not allow.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "limiter/collector_options.hpp"
#include "limiter/error.hpp"
#include "limiter/run_flags.hpp"
#include "collector_options_testing.hpp"

namespace limiter {
namespace {

using Environment = std::map<std::string, std::string>;

Environment as_map(const std::vector<std::string>& entries) {
  Environment environment;
  for (const auto& entry : entries)
    environment.emplace(entry.substr(0, entry.find('=')), entry.substr(entry.find('=') + 1));
  return environment;
}

EnvironmentLookup lookup_in(const Environment& environment) {
  return [&environment](const char* name) -> const char* {
    const auto found = environment.find(name);
    return found == environment.end() ? nullptr : found->second.c_str();
  };
}

using test::refusal;

const std::string& example(const RunFlag& flag) {
  static const std::string none;
  const auto found = test::run_flag_examples().find(flag.name);
  return found == test::run_flag_examples().end() ? none : found->second;
}

TEST(RunFlags, EveryRowHasAnExampleAndAVariableOfItsName) {
  std::set<std::string> variables;
  for (const RunFlag& flag : run_flags()) {
    EXPECT_FALSE(example(flag).empty()) << flag.name << " has no example in collector_options_testing.hpp";
    EXPECT_NE(example(flag), flag.default_text) << flag.name;
    EXPECT_TRUE(variables.insert(environment_name(flag)).second) << "twice: " << environment_name(flag);
    if (!flag.alias.empty()) {
      EXPECT_TRUE(variables.insert(flag.alias).second) << "twice: " << flag.alias;
    }
    EXPECT_FALSE(flag.help.empty()) << flag.name;
    EXPECT_FALSE(flag.field.empty()) << flag.name;
  }
  EXPECT_EQ(environment_name(run_flag("per-kernel-count")), "LIMITER_PER_KERNEL_COUNT");
  EXPECT_EQ(display_name(run_flag("per-kernel-count")), "--per-kernel-count");
  EXPECT_EQ(display_name(run_flag("range-sync")), "LIMITER_RANGE_SYNC");  // a knob: its variable
  EXPECT_EQ(test::run_flag_examples().size(), run_flags().size()) << "an example for a row no longer in the table";
}

// Every variable limiter run wrote before the table still sets its option (as itself or as an
// older name of the row's variable).
TEST(RunFlags, EveryEarlierVariableIsStillRead) {
  std::set<std::string> read;
  for (const RunFlag& flag : run_flags()) {
    read.insert(environment_name(flag));
    if (!flag.alias.empty()) read.insert(flag.alias);
  }
  for (const char* earlier : {"LIMITER_PLAN",
                              "LIMITER_METRICS",
                              "LIMITER_KERNEL_REGEX",
                              "LIMITER_SKIP",
                              "LIMITER_COUNT",
                              "LIMITER_SAMPLE_EVERY",
                              "LIMITER_PER_KERNEL_SKIP",
                              "LIMITER_PER_KERNEL_COUNT",
                              "LIMITER_NVTX",
                              "LIMITER_NVTX_INCLUDE",
                              "LIMITER_NVTX_EXCLUDE",
                              "LIMITER_NVTX_PUSH_POP_SCOPE",
                              "LIMITER_BUDGET_BY_RANGE",
                              "LIMITER_SAVE_RAW",
                              "LIMITER_COMMAND",
                              "LIMITER_REPLAY",
                              "LIMITER_GRAPH_PROFILING",
                              "LIMITER_RANGES_PER_IMAGE",
                              "LIMITER_ALWAYS_ACTIVE",
                              "LIMITER_CAPTURE_RANGE",
                              "LIMITER_SAMPLING",
                              "LIMITER_SAMPLING_INTERVAL_NS",
                              "LIMITER_EXACT_UNDECIDED",
                              "LIMITER_SAMPLING_PHASE",
                              "LIMITER_ACTIVITY_TRACE",
                              "LIMITER_API_RECORDS",
                              "LIMITER_STALLS",
                              "LIMITER_EVERY_LAUNCH",
                              "LIMITER_STALL_WINDOW_MS",
                              "LIMITER_STALL_WINDOW_SAMPLES",
                              "LIMITER_CUBIN_DIR",
                              "LIMITER_STALL_PERIOD",
                              "LIMITER_CACHE_CONTROL",
                              "LIMITER_LOCK_TIMEOUT",
                              "LIMITER_LOCK_DIR",
                              "LIMITER_DEBUG",
                              "LIMITER_FILTER_RANGES",
                              "LIMITER_RANGE_SYNC",
                              "LIMITER_PM_BUFFER_MIB",
                              "LIMITER_PM_RAW_IMAGES",
                              "LIMITER_TIMELINE"})
    EXPECT_TRUE(read.count(earlier)) << earlier;
}

// limiter run writes each option's variable, the injected process reads it back: each row alone
// set to its example comes back as it went, and every other row at its default.
TEST(RunFlags, EveryRowRoundTripsThroughTheEnvironment) {
  for (const RunFlag& flag : run_flags()) {
    CollectorOptions options;
    set_run_flag(flag, options, example(flag), display_name(flag));
    ASSERT_EQ(flag.codec.get(options), example(flag)) << flag.name;
    const std::vector<std::string> written = collector_options_environment(options);
    EXPECT_EQ(written.size(), run_flags().size());
    const Environment environment = as_map(written);
    const CollectorOptions back = collector_options_from_environment(lookup_in(environment));
    EXPECT_EQ(flag.codec.get(back), example(flag)) << environment_name(flag);
    EXPECT_EQ(collector_options_environment(back), written) << flag.name << ": another row changed on the way";
  }
}

TEST(RunFlags, AnOlderNameIsReadInItsOwnUnitAndTheNewNameWins) {
  const auto read = [](const Environment& environment) {
    return collector_options_from_environment(lookup_in(environment));
  };
  EXPECT_TRUE(read({{"LIMITER_NVTX", "1"}}).nvtx);
  EXPECT_FALSE(read({{"LIMITER_NO_NVTX", "1"}, {"LIMITER_NVTX", "1"}}).nvtx);
  EXPECT_EQ(read({{"LIMITER_SAMPLING_INTERVAL_NS", "50000"}}).sampling_interval_ns, 50000u);
  EXPECT_EQ(read({{"LIMITER_SAMPLING_INTERVAL", "1.5"}}).sampling_interval_ns, 1500u);
  EXPECT_TRUE(read({{"LIMITER_ACTIVITY_TRACE", "1"}}).trace);
  EXPECT_EQ(read({{"LIMITER_COUNT", "5"}}).count, 5u);
  // limiter run writes the new name, empty for "not given": a stale older name stays out.
  EXPECT_EQ(read({{"LIMITER_LAUNCH_COUNT", ""}, {"LIMITER_COUNT", "5"}}).count, CollectorOptions{}.count);
}

// limiter.profile()'s keywords and limiter run's flags: a flag given wins; else its variable, a knob's
// too (LIMITER_DEBUG); else the default. Only flags can be given: a knob's name is not a flag.
TEST(RunFlags, OptionsFromFlagsTakeTheGivenThenTheEnvironmentThenTheDefault) {
  const Environment environment = {
      {"LIMITER_PER_KERNEL_COUNT", "7"}, {"LIMITER_DEBUG", "1"}, {"LIMITER_KERNEL_REGEX", "gemm"}};
  const CollectorOptions options =
      options_from_flags({{"per-kernel-count", "3"}, {"debug", "0"}}, lookup_in(environment));
  EXPECT_EQ(options.per_kernel_count, 3u);
  EXPECT_TRUE(options.debug) << "a knob is read from its variable, never from a given name";
  EXPECT_EQ(options.kernel_regex, "gemm");
  EXPECT_EQ(options.stall_window_samples, CollectorOptions{}.stall_window_samples);
  EXPECT_THROW(options_from_flags({{"per-kernel-count", "many"}}, lookup_in({})), InputError);
}

// Each value a row refuses, read from its variable: one line that names the variable and the value.
TEST(RunFlags, AMalformedVariableIsOneLineNamingIt) {
  const std::map<ValueType, std::string> malformed = {{ValueType::on_off, "maybe"},
                                                      {ValueType::number, "3x"},
                                                      {ValueType::seconds, "soon"},
                                                      {ValueType::choice, "bogus"},
                                                      {ValueType::list, "[1, 2"}};
  for (const RunFlag& flag : run_flags()) {
    const auto bad = malformed.find(flag.type);
    if (bad == malformed.end()) continue;  // text: any value is one
    const Environment environment = {{environment_name(flag), bad->second}};
    try {
      collector_options_from_environment(lookup_in(environment));
      ADD_FAILURE() << environment_name(flag) << "='" << bad->second << "' was accepted";
    } catch (const InputError& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.rfind(environment_name(flag) + " must be ", 0), 0u) << message;
      EXPECT_NE(message.find("not '" + bad->second + "'"), std::string::npos) << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
  }
}

// The options of the mode's own flag in that mode, for the refusals below.
CollectorOptions in_mode(ModeSet mode) {
  CollectorOptions options;
  for (const RunFlag& flag : run_flags())
    if (flag.chooses == mode) set_run_flag(flag, options, "1", display_name(flag));
  return options;
}

std::string mode_flag(ModeSet mode) {
  for (const RunFlag& flag : run_flags())
    if (flag.chooses == mode) return display_name(flag);
  return "the default run";
}

// Each option in each mode its row does not allow: refused, naming the mode and the option.
TEST(RunFlags, EachModeConflictNamesBothSides) {
  int refusals = 0;
  for (const RunFlag& flag : run_flags()) {
    if (flag.chooses) continue;  // two modes: below
    for (ModeSet mode : {kDefaultRun, kEveryLaunch, kTraceMode, kStallsMode, kSamplingMode}) {
      CollectorOptions options = in_mode(mode);
      set_run_flag(flag, options, example(flag), display_name(flag));
      const std::string message = refusal(options);
      const std::string refused = mode == kDefaultRun
                                      ? display_name(flag) + " goes with "
                                      : mode_flag(mode) + " cannot be combined with " + display_name(flag);
      if (flag.modes & mode) {
        EXPECT_EQ(message.find(refused), std::string::npos) << message;
        continue;
      }
      EXPECT_EQ(message.rfind(refused, 0), 0u) << message;
      ++refusals;
      EXPECT_NE(message.find(mode_flag(mode)), std::string::npos) << flag.name << ": " << message;
      EXPECT_NE(message.find(display_name(flag)), std::string::npos) << flag.name << ": " << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
      if (mode == kDefaultRun) {
        EXPECT_FALSE(flag.why.empty()) << flag.name << " refused by the default run without why";
      }
    }
  }
  EXPECT_GT(refusals, 40);  // the table's mode rules, every one of them reached
  for (ModeSet first : {kEveryLaunch, kTraceMode, kStallsMode, kSamplingMode})
    for (ModeSet second : {kEveryLaunch, kTraceMode, kStallsMode, kSamplingMode}) {
      if (first == second) continue;
      CollectorOptions options = in_mode(first);
      set_run_flag(run_flag(mode_flag(second).substr(2)), options, "1", mode_flag(second));
      const std::string message = refusal(options);
      EXPECT_NE(message.find(mode_flag(first)), std::string::npos) << message;
      EXPECT_NE(message.find(mode_flag(second)), std::string::npos) << message;
      EXPECT_NE(message.find("each choose one mode"), std::string::npos) << message;
    }
}

TEST(RunFlags, ConflictsAndNeedsNameBothSides) {
  const auto with = [](auto change) {
    CollectorOptions options;
    change(options);
    return refusal(options);
  };
  EXPECT_EQ(with([](auto& o) {
              o.cache_control = "all";
              o.replay = "kernel";
            }),
            "--cache-control all cannot be combined with --replay kernel: CUPTI replays the passes itself, with no "
            "moment in between to empty L2 (use the default --replay auto with a one-pass plan)");
  EXPECT_NE(with([](auto& o) {
              o.sampling = true;
              o.cache_control = "all";
            }).find("--cache-control all needs --per-kernel-count or --exact-undecided with --sampling"),
            std::string::npos);
  EXPECT_EQ(with([](auto& o) {
              o.sampling = true;
              o.cache_control = "all";
              o.per_kernel_count = 2;
            }),
            "");
  EXPECT_NE(with([](auto& o) {
              o.sampling = true;
              o.exact_undecided_count = 3;
              o.per_kernel_count = 1;
            }).find("--exact-undecided cannot be combined with --per-kernel-count"),
            std::string::npos);
  EXPECT_NE(with([](auto& o) {
              o.every_launch = true;
              o.budget_by_range = true;
              o.nvtx = true;
            }).find("--budget-by-range needs --per-kernel-count or --per-kernel-skip:"),
            std::string::npos);
  EXPECT_EQ(with([](auto& o) {
              o.every_launch = true;
              o.budget_by_range = true;
              o.nvtx = true;
              o.per_kernel_skip = 1;
            }),
            "");
  EXPECT_NE(with([](auto& o) {
              o.every_launch = true;
              o.budget_by_range = true;
              o.per_kernel_count = 1;
            }).find("--no-nvtx cannot be combined with --budget-by-range"),
            std::string::npos);
}

}  // namespace
}  // namespace limiter
