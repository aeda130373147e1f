// limiter run on an app with NVTX ranges of every kind (nvtx_app.cu): each launch records its
// ranges, and --nvtx-include / --nvtx-exclude select launches by them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "limiter/record_json.hpp"

namespace {

// The GPU machine runs the staged binaries: LIMITER_CLI and LIMITER_NVTX_APP name them.
std::string from_env(const char* name, const char* built) {
  const char* path = std::getenv(name);
  return path ? path : built;
}

std::map<std::string, std::vector<std::string>> ranges_by_kernel(const std::string& path) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& launch : limiter::read_run_file(path).launches) out[launch.name] = launch.nvtx;
  return out;
}

TEST(LimiterRunGpu, NvtxRangesRecordedAndSelected) {
  const auto dir = std::filesystem::temp_directory_path();
  const auto all = (dir / "limiter_gpu_nvtx.json").string(), some = (dir / "limiter_gpu_nvtx_some.json").string();
  std::filesystem::remove(all);
  std::filesystem::remove(some);
  const std::string run = from_env("LIMITER_CLI", LIMITER_CLI) + " run -q --every-launch ";
  const std::string app = from_env("LIMITER_NVTX_APP", NVTX_APP);
  const int status = std::system((run + "-o " + all + " -- " + app).c_str());
  if (WEXITSTATUS(status) == 2) GTEST_SKIP() << "no GPU";
  ASSERT_EQ(status, 0);
  const auto ranges = ranges_by_kernel(all);
  using Paths = std::vector<std::string>;
  EXPECT_EQ(ranges.at("in_outer(int*)"), Paths{"outer/"});
  EXPECT_EQ(ranges.at("in_inner(int*)"), Paths{"outer/inner/"});
  EXPECT_EQ(ranges.at("in_domain(int*)"), Paths{"lib@work/"});
  EXPECT_EQ(ranges.at("in_registered(int*)"), Paths{"lib@registered/"});
  EXPECT_EQ(ranges.at("in_phase(int*)"), Paths{"phase"});
  EXPECT_EQ(ranges.at("outside(int*)"), Paths{});
  EXPECT_EQ(ranges.at("from_thread(int*)"), Paths{});  // pushed by another thread

  const std::string filters =
      "--nvtx-include outer/ --nvtx-include lib@work/ --nvtx-include phase "
      "--nvtx-exclude outer/inner/ ";
  ASSERT_EQ(std::system((run + filters + "-o " + some + " -- " + app).c_str()), 0);
  const auto selected = ranges_by_kernel(some);
  std::vector<std::string> names;
  for (const auto& [name, paths] : selected) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"in_domain(int*)", "in_outer(int*)", "in_phase(int*)"}));

  // One stack for all threads: the other thread's kernel is inside the main thread's range.
  std::filesystem::remove(all);
  ASSERT_EQ(std::system((run + "--nvtx-push-pop-scope process -o " + all + " -- " + app).c_str()), 0);
  const auto process = ranges_by_kernel(all);
  EXPECT_EQ(process.at("from_thread(int*)"), Paths{"waiting/"});
  EXPECT_EQ(process.at("in_inner(int*)"), Paths{"outer/inner/"});
}

// --trace: the ranges themselves on the timeline (no counters), each around its kernel.
TEST(LimiterRunGpu, NvtxRangesOnTheTraceTimeline) {
  const auto path = (std::filesystem::temp_directory_path() / "limiter_gpu_nvtx_trace.json").string();
  std::filesystem::remove(path);
  const std::string run = from_env("LIMITER_CLI", LIMITER_CLI) + " run -q --trace ";
  const int status = std::system((run + "-o " + path + " -- " + from_env("LIMITER_NVTX_APP", NVTX_APP)).c_str());
  if (WEXITSTATUS(status) == 2) GTEST_SKIP() << "no GPU";
  ASSERT_EQ(status, 0);
  const limiter::RunRecord record = limiter::read_run_file(path);
  ASSERT_TRUE(record.timeline);
  std::map<std::string, const limiter::TimelineEvent*> ranges, kernels;
  for (const auto& e : record.timeline->events) {
    if (e.kind == limiter::ActivityKind::nvtx_range) ranges[e.name] = &e;
    if (e.kind == limiter::ActivityKind::kernel) kernels[e.name] = &e;
  }
  std::vector<std::string> names;
  for (const auto& [name, event] : ranges) names.push_back(name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"lib@registered/", "lib@work/", "outer/", "outer/inner/", "phase", "waiting/"}));
  EXPECT_EQ(record.timeline->nvtx_ranges_unclosed, 0u);
  // The same clock as the activity records: each range began before its kernel was launched.
  for (const auto& [range, kernel] : {std::pair{"outer/", "in_outer(int*)"},
                                      {"outer/inner/", "in_inner(int*)"},
                                      {"lib@work/", "in_domain(int*)"},
                                      {"phase", "in_phase(int*)"}}) {
    ASSERT_TRUE(ranges.count(range) && kernels.count(kernel)) << range;
    EXPECT_LT(ranges[range]->start_ns, kernels[kernel]->start_ns) << range;
    EXPECT_GE(ranges[range]->end_ns, ranges[range]->start_ns) << range;
  }
  EXPECT_TRUE(ranges["outer/"]->thread_id);
}

}  // namespace
