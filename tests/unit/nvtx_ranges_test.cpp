// NVTX ranges: Nsight Compute's filter syntax, the paths a record keeps, selection of launches
// by range (and per-kernel budgets per range), the record's "nvtx" field through the three
// readers, and the roll-up by range.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "collect/range/launch_selector.hpp"
#include "limiter/error.hpp"
#include "limiter/nvtx_ranges.hpp"
#include "limiter/record_json.hpp"
#include "limiter/record_stream.hpp"
#include "limiter/run_summary.hpp"
#include "record_layout.hpp"

namespace limiter {
namespace {

const std::string kData = LIMITER_TEST_DATA_DIR;

NvtxRanges stack(std::vector<std::string> ranges, std::string domain = "") {
  NvtxRanges r;
  r.push_pop.push_back({std::move(domain), std::move(ranges)});
  return r;
}

NvtxRanges started(std::string name, std::string domain = "") {
  NvtxRanges r;
  r.start_end.push_back({std::move(domain), std::move(name)});
  return r;
}

bool matches(const std::string& expression, const NvtxRanges& ranges) {
  return NvtxExpression(expression).matches(ranges);
}

TEST(NvtxExpression, PushPopRangesAtAnyLevelDirectlyInsideOrAnywhereInside) {
  const auto step = stack({"epoch", "train_step", "forward", "linear"});
  EXPECT_TRUE(matches("train_step/", step));
  EXPECT_TRUE(matches("linear/", step));
  EXPECT_TRUE(matches("train_step/forward/", step));
  EXPECT_TRUE(matches("train_step/forward", step));   // the last '/' is optional once there is one
  EXPECT_FALSE(matches("train_step/linear/", step));  // linear is not directly inside train_step
  EXPECT_TRUE(matches("train_step/*/linear/", step));
  EXPECT_TRUE(matches("train_step/*/forward/", step));  // '*' is zero or more ranges
  EXPECT_FALSE(matches("backward/", step));
  EXPECT_FALSE(matches("train_step", step));  // no '/': a start/end range
}

TEST(NvtxExpression, BottomAndTopOfTheStack) {
  const auto step = stack({"epoch", "train_step", "forward"});
  EXPECT_TRUE(matches("[epoch/", step));
  EXPECT_FALSE(matches("[train_step/", step));
  EXPECT_TRUE(matches("forward]", step));
  EXPECT_TRUE(matches("train_step/forward]", step));
  EXPECT_FALSE(matches("train_step]", step));
  EXPECT_TRUE(matches("[epoch/*/forward]", step));
  EXPECT_TRUE(matches("[epoch/train_step/forward]", step));
  EXPECT_FALSE(matches("[train_step/forward]", step));
}

TEST(NvtxExpression, DomainsStartEndRangesAndRegularExpressions) {
  EXPECT_TRUE(matches("lib@work/", stack({"work"}, "lib")));
  EXPECT_FALSE(matches("work/", stack({"work"}, "lib")));  // the default domain only
  EXPECT_FALSE(matches("lib@work/", stack({"work"})));
  EXPECT_TRUE(matches("phase", started("phase")));
  EXPECT_TRUE(matches("lib@phase", started("phase", "lib")));
  EXPECT_FALSE(matches("phase", started("phase", "lib")));
  EXPECT_FALSE(matches("phase/", started("phase")));  // a push/pop expression
  EXPECT_TRUE(matches("regex:step_[0-9]+/", stack({"step_12", "forward"})));
  EXPECT_TRUE(matches("regex:^step/fwd|forward/", stack({"step", "forward"})));
  EXPECT_FALSE(matches("regex:^step$/", stack({"step_1"})));
  EXPECT_TRUE(matches("regex:ph.se", started("phase")));
}

TEST(NvtxExpression, BadExpressionsNameTheSyntax) {
  for (const char* bad : {"", "a//b", "/a", "regex:(/"}) {
    try {
      NvtxExpression expression(bad);
      FAIL() << "accepted '" << bad << "'";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("NVTX expression"), std::string::npos) << e.what();
    }
  }
}

TEST(NvtxFilter, AnyIncludeAndNoExclude) {
  const NvtxFilter filter({"forward/", "optimizer/"}, {"forward/attention/"});
  EXPECT_TRUE(filter.active());
  EXPECT_TRUE(filter.selects(stack({"train_step", "forward", "linear"})));
  EXPECT_TRUE(filter.selects(stack({"train_step", "optimizer"})));
  EXPECT_FALSE(filter.selects(stack({"train_step", "backward"})));
  EXPECT_FALSE(filter.selects(stack({"train_step", "forward", "attention"})));
  EXPECT_FALSE(filter.selects(NvtxRanges{}));
  const NvtxFilter exclude_only({}, {"warmup/"});
  EXPECT_TRUE(exclude_only.selects(NvtxRanges{}));
  EXPECT_FALSE(exclude_only.selects(stack({"warmup"})));
  EXPECT_FALSE(NvtxFilter().active());
}

TEST(NvtxPaths, PathsAreExpressionsThatSelectTheLaunchAndReadBack) {
  NvtxRanges ranges = stack({"train_step", "forward"});
  ranges.push_pop.push_back({"lib", {"work"}});
  ranges.push_pop.push_back({"empty", {}});
  ranges.start_end.push_back({"", "epoch"});
  ranges.start_end.push_back({"lib", "phase"});
  const auto paths = nvtx_paths(ranges);
  EXPECT_EQ(paths, (std::vector<std::string>{"train_step/forward/", "lib@work/", "epoch", "lib@phase"}));
  for (const auto& path : paths) EXPECT_TRUE(matches(path, ranges)) << path;
  EXPECT_EQ(nvtx_paths(nvtx_ranges_from_paths(paths)), paths);
  EXPECT_EQ(nvtx_label(paths), "train_step/forward/ + lib@work/ + epoch + lib@phase");
  EXPECT_EQ(nvtx_label({}), kNoNvtxRange);
  EXPECT_TRUE(NvtxRanges{}.empty());
  EXPECT_TRUE(nvtx_ranges_from_paths({}).empty());
}

TEST(LaunchSelectorNvtx, OnlyLaunchesInsideTheIncludedRangesCountTowardsSkipAndCount) {
  CollectorOptions options;
  options.nvtx_include = {"train_step/"};
  options.skip = 1;
  options.count = 2;
  detail::LaunchSelector selector(options);
  EXPECT_TRUE(selector.filters());
  EXPECT_TRUE(selector.filters_nvtx());
  const auto in_step = stack({"train_step", "forward"});
  EXPECT_FALSE(selector.select("gemm"));                      // outside every range (warm-up)
  EXPECT_FALSE(selector.select("gemm", "", true, &in_step));  // skipped
  EXPECT_TRUE(selector.select("gemm", "", true, &in_step));
  const auto elsewhere = stack({"eval"});
  EXPECT_FALSE(selector.select("gemm", "", true, &elsewhere));
  EXPECT_TRUE(selector.select("gemm", "", true, &in_step));
  EXPECT_TRUE(selector.exhausted());
}

TEST(LaunchSelectorNvtx, BudgetByRangeGivesEachRangeItsOwnPerKernelBudget) {
  CollectorOptions options;
  options.per_kernel_count = 1;
  const auto forward = stack({"train_step", "forward"}), backward = stack({"train_step", "backward"});
  detail::LaunchSelector by_kernel(options);
  EXPECT_TRUE(by_kernel.select("gemm", "g", true, &forward));
  EXPECT_FALSE(by_kernel.select("gemm", "g", true, &backward));
  options.budget_by_range = true;
  detail::LaunchSelector by_range(options);
  EXPECT_TRUE(by_range.select("gemm", "g", true, &forward));
  EXPECT_TRUE(by_range.select("gemm", "g", true, &backward));
  EXPECT_FALSE(by_range.select("gemm", "g", true, &forward));
  EXPECT_FALSE(by_range.select("gemm", "g", true, &backward));
  EXPECT_TRUE(by_range.select("gemm", "g"));  // outside every range: a budget of its own
}

// The probe's record with NVTX paths on its launches, as limiter writes it: a launch per line.
RunRecord probe_with_ranges() {
  RunRecord run = read_run_file(kData + "/cupti/h200_probe_run.json");
  for (std::size_t i = 0; i < run.launches.size(); ++i) {
    if (i % 3 == 0) run.launches[i].nvtx = {"train_step/forward/"};
    if (i % 3 == 1) run.launches[i].nvtx = {"train_step/backward/", "lib@phase"};
  }
  return run;
}

std::string as_lines(const RunRecord& run) { return testing::as_written_lines(run); }

std::optional<RunRecord> by_lines(const std::string& text) { return testing::read_by_lines(text); }

RunRecord by_stream(const std::string& text) { return testing::read_streamed(text); }

TEST(NvtxRecord, TheThreeReadersReadTheRangesAlike) {
  const RunRecord run = probe_with_ranges();
  const auto json = to_json(run);
  EXPECT_EQ(json["launches"][1]["nvtx"], nlohmann::ordered_json({"train_step/backward/", "lib@phase"}));
  EXPECT_FALSE(json["launches"][2].contains("nvtx"));  // none: records stay as they were
  EXPECT_EQ(run_from_json(nlohmann::json::parse(json.dump())), run);
  EXPECT_EQ(by_stream(json.dump()), run);  // all on one line
  const auto lines = by_lines(as_lines(run));
  ASSERT_TRUE(lines);
  EXPECT_EQ(*lines, run);
}

TEST(NvtxRecord, NullIsNoRangeAndOtherTypesAreRejectedByEveryReader) {
  const RunRecord run = probe_with_ranges();
  auto json = to_json(run);
  json["launches"][0]["nvtx"] = nullptr;
  RunRecord expected = run;
  expected.launches[0].nvtx.clear();
  EXPECT_EQ(run_from_json(nlohmann::json::parse(json.dump())), expected);
  EXPECT_EQ(by_stream(json.dump()), expected);
  for (const nlohmann::ordered_json& bad :
       {nlohmann::ordered_json("a/"), nlohmann::ordered_json({1}), nlohmann::ordered_json::object(),
        nlohmann::ordered_json({{"a", 1}}), nlohmann::ordered_json::array({nlohmann::ordered_json::array()})}) {
    SCOPED_TRACE(bad.dump());
    json = to_json(run);
    json["launches"][0]["nvtx"] = bad;
    EXPECT_THROW(run_from_json(nlohmann::json::parse(json.dump())), InputError);
    EXPECT_THROW(by_stream(json.dump()), InputError);
    const std::string text = as_lines(run);
    const std::string good = to_json(run)["launches"][0].dump(), worse = json["launches"][0].dump();
    std::string broken = text;
    broken.replace(broken.find(good), good.size(), worse);
    EXPECT_THROW(by_lines(broken), InputError);
  }
}

TEST(NvtxRollup, LaunchesRollUpByTheirRangesMostTimeFirst) {
  const RunRecord run = probe_with_ranges();
  const RunSummary summary = summarize(analyze_run(run));
  ASSERT_EQ(summary.nvtx_ranges.size(), 3u);
  std::size_t launches = 0;
  double share = 0;
  for (std::size_t i = 0; i < summary.nvtx_ranges.size(); ++i) {
    const auto& r = summary.nvtx_ranges[i];
    launches += r.launches;
    share += r.time_share.value_or(0);
    EXPECT_FALSE(r.top_kernels.empty());
    EXPECT_LE(r.top_kernels.size(), kNvtxTopKernels);
    if (i > 0) {
      EXPECT_GE(summary.nvtx_ranges[i - 1].durations.total_ns, r.durations.total_ns);
    }
  }
  EXPECT_EQ(launches, run.launches.size());
  EXPECT_NEAR(share, 1.0, 1e-9);
  std::set<std::string> names;
  for (const auto& r : summary.nvtx_ranges) names.insert(r.ranges);
  EXPECT_EQ(names, (std::set<std::string>{"train_step/forward/", "train_step/backward/ + lib@phase", kNoNvtxRange}));
  // A record without ranges has no roll-up by range: its reports stay as they were.
  EXPECT_TRUE(summarize(analyze_run(read_run_file(kData + "/cupti/h200_probe_run.json"))).nvtx_ranges.empty());
}

}  // namespace
}  // namespace limiter
