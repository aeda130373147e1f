// CollectorOptions: one check of every combination, and the environment that carries the value
// into an injected process gives back the same value (collector_options.hpp).
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "limiter/collector_options.hpp"
#include "limiter/error.hpp"

#include "collector_options_testing.hpp"

namespace limiter {
namespace {

using test::refusal;

TEST(CollectorOptions, TheDefaultsAreValid) { EXPECT_EQ(refusal(CollectorOptions{}), ""); }

TEST(CollectorOptions, StallsGoAloneWithItsPeriod) {
  CollectorOptions options;
  options.stalls = true;
  options.stall_period_log2 = 10;
  options.raw_dir = "/tmp/raw";  // keeps the cubins
  options.profiler_api_regions = true;
  EXPECT_EQ(refusal(options), "");
  options.stall_period_log2 = 4;
  EXPECT_NE(refusal(options).find("--stall-period must be between 5 and 31"), std::string::npos);
  options.stall_period_log2 = 0;
  for (auto counters : std::initializer_list<void (*)(CollectorOptions&)>{
           [](CollectorOptions& o) { o.plan = "sol"; }, [](CollectorOptions& o) { o.kernel_regex = "gemm"; },
           [](CollectorOptions& o) { o.per_kernel_count = 3; }}) {
    CollectorOptions mixed = options;
    counters(mixed);
    EXPECT_NE(refusal(mixed).find("--stalls samples warp stall reasons alone"), std::string::npos) << refusal(mixed);
  }
}

// One single-answer mode at most, and none is the default run; each mode's own flags say so.
TEST(CollectorOptions, OneModeAtMostAndNoneIsTheDefaultRun) {
  const auto with = [](auto change) {
    CollectorOptions options;
    change(options);
    return refusal(options);
  };
  EXPECT_TRUE(runs_default_phases(CollectorOptions{}));
  EXPECT_EQ(with([](auto& o) { o.every_launch = true; }), "");
  EXPECT_EQ(with([](auto& o) {
              o.stalls = true;
              o.stall_period_log2 = 9;
            }),
            "");
  EXPECT_EQ(with([](auto& o) { o.stall_period_log2 = 9; }), "");  // the default run's sampling phase
  EXPECT_EQ(with([](auto& o) {
              o.per_kernel_count = 3;
              o.kernel_regex = "gemm";
              o.cache_control = "all";
            }),
            "");
  EXPECT_EQ(with([](auto& o) {
              o.nvtx = true;
              o.budget_by_range = true;
            }),
            "");  // its budget is per range too
  EXPECT_EQ(with([](auto& o) { o.stall_window_ms = 300; }), "");
  EXPECT_EQ(with([](auto& o) {
              o.trace = true;
              o.sampling = true;
            }),
            "--trace and --sampling each choose one mode; choose one, or none for the default run (PC sampling "
            "for a window, then counters for each kernel's first launches, then the timeline)");
  EXPECT_NE(with([](auto& o) {
              o.every_launch = true;
              o.stalls = true;
            }).find("--every-launch and --stalls each choose"),
            std::string::npos);
  EXPECT_EQ(with([](auto& o) {
              o.every_launch = true;
              o.stall_window_ms = 300;
            }),
            "--every-launch cannot be combined with --stall-window: --stall-window bounds the default run's "
            "PC-sampling phase");
  EXPECT_NE(with([](auto& o) {
              o.stalls = true;
              o.stall_window_ms = 300;
            })
                .find("--stalls cannot be combined with "
                      "--stall-window"),
            std::string::npos);
  EXPECT_NE(with([](auto& o) { o.stall_window_ms = 0; }).find("--stall-window must be at least 1"), std::string::npos);
  EXPECT_NE(with([](auto& o) {
              o.every_launch = true;
              o.stall_period_log2 = 9;
            })
                .find("--every-launch cannot be combined with --stall-period: --stall-period sets PC sampling's "
                      "period, which only --stalls and the default run use"),
            std::string::npos);
  EXPECT_NE(
      with([](auto& o) { o.timeline = true; }).find("--timeline goes with --every-launch, not with the default run"),
      std::string::npos);
  EXPECT_EQ(with([](auto& o) {
              o.every_launch = true;
              o.timeline = true;
            }),
            "");
}

TEST(CollectorOptions, EachConflictNamesItsFlags) {
  const auto with = [](auto change) {
    CollectorOptions options;
    change(options);
    return refusal(options);
  };
  EXPECT_NE(with([](auto& o) { o.plan = "nope"; }).find("unknown metric plan 'nope'"), std::string::npos);
  EXPECT_EQ(with([](auto& o) { o.metrics = {"sm__cycles_elapsed.avg"}; }), "");  // a list instead of the plan
  EXPECT_EQ(with([](auto& o) {
              o.plan = "nope";
              o.metrics = {"sm__cycles_elapsed.avg"};
            }),
            "--plan cannot be combined with --metrics: --metrics replaces the plan");
  EXPECT_NE(with([](auto& o) { o.sample_every = 0; }).find("--sample-every must be at least 1"), std::string::npos);
  EXPECT_NE(with([](auto& o) { o.replay = "user"; }).find("--replay must be auto or kernel"), std::string::npos);
  EXPECT_NE(with([](auto& o) { o.graph_profiling = "nodes"; }).find("--graph-profiling must be node or graph"),
            std::string::npos);
  EXPECT_NE(with([](auto& o) { o.sampling_interval_ns = 500; }).find("--sampling-interval must be at least 1"),
            std::string::npos);
  for (auto filter : std::initializer_list<void (*)(CollectorOptions&)>{
           [](CollectorOptions& o) { o.kernel_regex = "gemm"; }, [](CollectorOptions& o) { o.skip = 1; },
           [](CollectorOptions& o) { o.count = 5; }, [](CollectorOptions& o) { o.sample_every = 2; },
           [](CollectorOptions& o) { o.profiler_api_regions = true; },
           [](CollectorOptions& o) { o.graph_profiling = "graph"; },
           [](CollectorOptions& o) { o.replay = "kernel"; }}) {
    EXPECT_NE(with([&](auto& o) {
                o.sampling = true;
                filter(o);
              }).find("--sampling samples the whole GPU"),
              std::string::npos);
  }
  EXPECT_EQ(with([](auto& o) {
              o.sampling = true;
              o.per_kernel_count = 3;
            }),
            "");  // budgets, then sampling
  EXPECT_NE(with([](auto& o) { o.exact_undecided_count = 3; })
                .find("--exact-undecided goes with --sampling, not with "
                      "the default run"),
            std::string::npos);
  EXPECT_NE(with([](auto& o) {
              o.sampling = true;
              o.exact_undecided_count = 3;
              o.per_kernel_skip = 1;
            }).find("--exact-undecided cannot be combined with --per-kernel-skip"),
            std::string::npos);
  EXPECT_NE(with([](auto& o) { o.sampling_phase_launches = 5; }).find("--sampling-phase goes with --sampling"),
            std::string::npos);
  EXPECT_NE(with([](auto& o) {
              o.sampling = true;
              o.sampling_phase_launches = 5;
            }).find("--sampling-phase needs --exact-undecided"),
            std::string::npos);
  EXPECT_NE(with([](auto& o) { o.nvtx_include = {"a/"}; }).find("--no-nvtx cannot be combined with --nvtx-include"),
            std::string::npos);
  EXPECT_NE(with([](auto& o) {
              o.every_launch = true;
              o.nvtx = true;
              o.budget_by_range = true;
            }).find("--budget-by-range needs --per-kernel-count"),
            std::string::npos);
  EXPECT_NE(with([](auto& o) {
              o.nvtx = true;
              o.nvtx_include = {"a//b"};
            }).find("empty range name"),
            std::string::npos);
  // --trace: the timeline alone; regions and NVTX go with it, counters and filters do not.
  EXPECT_EQ(with([](auto& o) { o.trace = true; }), "");
  EXPECT_EQ(with([](auto& o) {
              o.trace = true;
              o.profiler_api_regions = true;
              o.nvtx = true;
            }),
            "");
  EXPECT_NE(with([](auto& o) {
              o.trace = true;
              o.exact_undecided_count = 2;
            }).find("--trace cannot be combined with --exact-undecided"),
            std::string::npos);
  for (auto exact_only : std::initializer_list<void (*)(CollectorOptions&)>{
           [](CollectorOptions& o) { o.kernel_regex = "gemm"; }, [](CollectorOptions& o) { o.skip = 1; },
           [](CollectorOptions& o) { o.count = 5; }, [](CollectorOptions& o) { o.sample_every = 2; },
           [](CollectorOptions& o) { o.per_kernel_count = 2; }, [](CollectorOptions& o) { o.plan = "sol"; },
           [](CollectorOptions& o) { o.metrics = {"sm__cycles_elapsed.avg"}; },
           [](CollectorOptions& o) { o.raw_dir = "raw"; }, [](CollectorOptions& o) { o.replay = "kernel"; },
           [](CollectorOptions& o) { o.graph_profiling = "graph"; }}) {
    EXPECT_NE(with([&](auto& o) {
                o.trace = true;
                exact_only(o);
              }).find("--trace cannot be combined with --"),
              std::string::npos);
  }
  EXPECT_NE(with([](auto& o) { o.range_sync = "some"; }).find("LIMITER_RANGE_SYNC must be none, graph or all"),
            std::string::npos);
}

// limiter run serialises the value, the injected process reads it back: every field survives.
TEST(CollectorOptions, TheEnvironmentGivesBackTheSameValue) {
  CollectorOptions o;
  o.plan = "sol";
  o.metrics = {"sm__cycles_elapsed.avg", "dram__bytes_read.sum"};
  o.kernel_regex = "gemm|conv, \"quoted\"";
  o.skip = 3;
  o.count = 7;
  o.sample_every = 2;
  o.per_kernel_skip = 1;
  o.per_kernel_count = 4;
  o.nvtx = true;
  o.nvtx_include = {"train/", "regex:fw.*/"};
  o.nvtx_exclude = {"eval/"};
  o.nvtx_process_scope = true;
  o.budget_by_range = true;
  o.raw_dir = "/tmp/raw dir";
  o.command_line = {"python3", "-c", "print('a b')"};
  o.replay = "kernel";
  o.graph_profiling = "graph";
  o.ranges_per_image = 8;
  o.always_active = true;
  o.profiler_api_regions = true;
  o.sampling = true;
  o.sampling_interval_ns = 50000;
  o.exact_undecided_count = 2;
  o.sampling_phase_launches = 900;
  o.lock_timeout_s = 2.5;
  o.lock_dir = "/var/tmp";
  o.debug = true;
  o.auto_range_for_filters = true;
  o.range_sync = "graph";
  o.pm_buffer_mib = 64;
  o.keep_pm_images = true;
  o.trace = true;
  o.timeline = true;
  o.api_records = false;  // its default is true: the value must come back false
  o.every_launch = true;
  o.stall_window_ms = 250;
  o.stall_window_samples = 1234;
  o.cubin_dir = "/tmp/cubins here";
  std::map<std::string, std::string> environment;
  for (const auto& entry : collector_options_environment(o)) {
    const auto equals = entry.find('=');
    ASSERT_NE(equals, std::string::npos) << entry;
    EXPECT_TRUE(environment.emplace(entry.substr(0, equals), entry.substr(equals + 1)).second) << "twice: " << entry;
  }
  const auto lookup = [&](const char* name) -> const char* {
    const auto found = environment.find(name);
    return found == environment.end() ? nullptr : found->second.c_str();
  };
  const CollectorOptions back = collector_options_from_environment(lookup);
  EXPECT_EQ(back.plan, o.plan);
  EXPECT_EQ(back.metrics, o.metrics);
  EXPECT_EQ(back.kernel_regex, o.kernel_regex);
  EXPECT_EQ(back.skip, o.skip);
  EXPECT_EQ(back.count, o.count);
  EXPECT_EQ(back.sample_every, o.sample_every);
  EXPECT_EQ(back.per_kernel_skip, o.per_kernel_skip);
  EXPECT_EQ(back.per_kernel_count, o.per_kernel_count);
  EXPECT_EQ(back.nvtx, o.nvtx);
  EXPECT_EQ(back.nvtx_include, o.nvtx_include);
  EXPECT_EQ(back.nvtx_exclude, o.nvtx_exclude);
  EXPECT_EQ(back.nvtx_process_scope, o.nvtx_process_scope);
  EXPECT_EQ(back.budget_by_range, o.budget_by_range);
  EXPECT_EQ(back.raw_dir, o.raw_dir);
  EXPECT_EQ(back.command_line, o.command_line);
  EXPECT_EQ(back.replay, o.replay);
  EXPECT_EQ(back.graph_profiling, o.graph_profiling);
  EXPECT_EQ(back.ranges_per_image, o.ranges_per_image);
  EXPECT_EQ(back.always_active, o.always_active);
  EXPECT_EQ(back.profiler_api_regions, o.profiler_api_regions);
  EXPECT_EQ(back.sampling, o.sampling);
  EXPECT_EQ(back.sampling_interval_ns, o.sampling_interval_ns);
  EXPECT_EQ(back.exact_undecided_count, o.exact_undecided_count);
  EXPECT_EQ(back.sampling_phase_launches, o.sampling_phase_launches);
  EXPECT_EQ(back.lock_timeout_s, o.lock_timeout_s);
  EXPECT_EQ(back.lock_dir, o.lock_dir);
  EXPECT_EQ(back.debug, o.debug);
  EXPECT_EQ(back.auto_range_for_filters, o.auto_range_for_filters);
  EXPECT_EQ(back.api_records, o.api_records);
  EXPECT_EQ(back.range_sync, o.range_sync);
  EXPECT_EQ(back.pm_buffer_mib, o.pm_buffer_mib);
  EXPECT_EQ(back.keep_pm_images, o.keep_pm_images);
  EXPECT_EQ(back.trace, o.trace);
  EXPECT_EQ(back.timeline, o.timeline);
  EXPECT_EQ(back.every_launch, o.every_launch);
  EXPECT_EQ(back.stall_window_ms, o.stall_window_ms);
  EXPECT_EQ(back.stall_window_samples, o.stall_window_samples);
  EXPECT_EQ(back.cubin_dir, o.cubin_dir);

  // And the defaults survive too (every variable is written, defaults included).
  environment.clear();
  for (const auto& entry : collector_options_environment(CollectorOptions{}))
    environment.emplace(entry.substr(0, entry.find('=')), entry.substr(entry.find('=') + 1));
  const CollectorOptions defaults = collector_options_from_environment(lookup);
  EXPECT_EQ(defaults.count, CollectorOptions{}.count);
  EXPECT_EQ(defaults.per_kernel_count, CollectorOptions{}.per_kernel_count);
  EXPECT_FALSE(defaults.debug);
  EXPECT_FALSE(defaults.trace);
  EXPECT_FALSE(defaults.timeline);  // kernel records would change the exact counters
  EXPECT_EQ(refusal(defaults), "");
}

TEST(CollectorOptions, TheKnobsOfAnEmptyEnvironmentAreTheDefaults) {
  const CollectorOptions o = collector_options_from_environment([](const char*) -> const char* { return nullptr; });
  EXPECT_EQ(o.lock_dir, "/tmp");
  EXPECT_EQ(o.pm_buffer_mib, 512u);
  EXPECT_EQ(o.range_sync, "none");
  EXPECT_FALSE(o.debug);
}

TEST(CollectorOptions, AMalformedVariableNamesItself) {
  const auto reading = [](const char* variable, const char* value) {
    try {
      collector_options_from_environment(
          [&](const char* name) -> const char* { return std::string(name) == variable ? value : nullptr; });
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(reading("LIMITER_SKIP", "3x"), "LIMITER_SKIP must be a whole number, not '3x'");
  EXPECT_NE(reading("LIMITER_NVTX_INCLUDE", "a/").find("LIMITER_NVTX_INCLUDE must be a JSON array"), std::string::npos);
  EXPECT_EQ(reading("LIMITER_LOCK_TIMEOUT", "soon"), "LIMITER_LOCK_TIMEOUT must be 0 or more seconds, not 'soon'");
}

}  // namespace
}  // namespace limiter
