// A PyTorch program's CUDA graph under user replay on an H100 (bench/workloads/graph_replay.py,
// PHASE_ITERATIONS=2, run 2 of bench/results/2026-11-23-graphs.md), re-read and re-analysed
// offline. PyTorch destroyed the captured graph, and limiter did not keep it alive yet (it does
// since 2026-11-24: the last test), so each replay was profiled as one range: the record says so
// by name, with the graph's ID and no node; eager launches after the capture
// kept user replay and are all there. (The counters of those ranges are not checked: the
// results page explains why they are not trusted.)
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "limiter/analysis.hpp"
#include "limiter/record_json.hpp"
#include "limiter/user_range_time.hpp"
#include "test_data.hpp"

namespace limiter {
namespace {

RunRecord graph_recording() {
  return read_run_file(testing::kData + "/cupti/h100_graph_replay_one_range_limiter.json.gz");
}

TEST(GraphRecording, EachReplayOfADestroyedGraphIsOneRangeThatSaysWhy) {
  const RunRecord run = graph_recording();
  EXPECT_TRUE(run.missed.empty());
  std::vector<const KernelLaunch*> graph_launches;
  for (const auto& launch : run.launches)
    if (launch.graph_id) graph_launches.push_back(&launch);
  ASSERT_EQ(graph_launches.size(), 2u);  // two replays
  for (const KernelLaunch* launch : graph_launches) {
    EXPECT_EQ(*launch->graph_id, *graph_launches[0]->graph_id);
    EXPECT_FALSE(launch->graph_node.has_value());
    EXPECT_NE(launch->name.find("one range: 10 kernels"), std::string::npos) << launch->name;
    EXPECT_NE(launch->name.find("the app destroyed the graph"), std::string::npos) << launch->name;
  }
}

TEST(GraphRecording, EagerLaunchesAfterTheCaptureAreProfiledAndGetVerdicts) {
  const RunRecord run = graph_recording();
  const RunAnalysis analysis = analyze_run(run);
  ASSERT_EQ(analysis.kernels.size(), run.launches.size());
  std::uint64_t last_graph = 0;
  for (const auto& launch : run.launches)
    if (launch.graph_id) last_graph = launch.sequence;
  std::size_t after = 0;
  for (std::size_t i = 0; i < run.launches.size(); ++i) {
    if (run.launches[i].sequence <= last_graph) continue;
    EXPECT_FALSE(run.launches[i].graph_id.has_value());
    EXPECT_TRUE(analysis.kernels[i].verdict.has_value()) << run.launches[i].name;
    ++after;
  }
  EXPECT_GE(after, 20u);  // two eager iterations of the ten kernels, after the replays
}

// The graph kept (KEEP_GRAPH=1 PHASE_ITERATIONS=10, 2026-11-24, bench/results/2026-11-23-graphs.md):
// its 10 nodes profiled one by one in 11 replays and the eager launches after the first graph
// launch, all in user ranges, timed by the compute engine's active cycles.
RunRecord kept_graph_recording() {
  return read_run_file(testing::kData + "/cupti/h100_graph_nodes_user_ranges_limiter.json.gz");
}

double median_duration(std::vector<const KernelLaunch*> launches) {
  std::vector<double> times;
  for (const KernelLaunch* launch : launches) times.push_back(*launch->counter("gpu__time_duration.sum"));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

TEST(GraphRecording, UserRangesAreTimedByTheEnginesActiveCycles) {
  const RunRecord run = kept_graph_recording();
  EXPECT_TRUE(run.missed.empty());
  ASSERT_EQ(run.launches.size(), 347u);
  std::vector<const KernelLaunch*> auto_ranged, eager_user, nodes;
  for (const auto& launch : run.launches) {
    if (!launch.user_range_ns) {
      auto_ranged.push_back(&launch);
      continue;
    }
    (launch.graph_node ? nodes : eager_user).push_back(&launch);
    ASSERT_TRUE(launch.kernel_active_ns.has_value()) << launch.name;
    const double duration = *launch.counter("gpu__time_duration.sum");
    EXPECT_DOUBLE_EQ(duration, *launch.kernel_active_ns);
    EXPECT_LE(duration, *launch.user_range_ns);
    EXPECT_DOUBLE_EQ(*engine_active_ns(launch), *launch.kernel_active_ns);  // re-derivable from the record
  }
  EXPECT_EQ(nodes.size(), 110u);
  EXPECT_EQ(eager_user.size(), 102u);
  // A 3.6 us kernel: its ranges last 20-26 us; the engine's active time keeps the profiler's
  // own range work (~2.4 us eager, ~5 us per node), so 6.1 and 8.6 us.
  const double alone = median_duration(auto_ranged);
  EXPECT_NEAR(alone, 3616.0, 1.0);
  EXPECT_LT(median_duration(eager_user), 2.0 * alone);
  EXPECT_LT(median_duration(nodes), 2.5 * alone);
  EXPECT_EQ(analyze_run(run).kernels.size(), run.launches.size());
}

// PyTorch's default since 2026-11-24 (bench/results/2026-11-24-graphs-default.md, PHASE_ITERATIONS=10,
// H100): the graph PyTorch destroyed right after instantiating it, kept alive by limiter
// (kept_graphs.cpp), profiled node by node; the profiler's own work in an empty range taken out
// of every user range's time (kRangeWorkCounter).
TEST(GraphRecording, AGraphTheAppDestroyedIsProfiledNodeByNode) {
  const RunRecord run = read_run_file(testing::kData + "/cupti/h100_graph_destroyed_nodes_limiter.json.gz");
  EXPECT_TRUE(run.missed.empty());
  ASSERT_EQ(run.launches.size(), 347u);
  std::vector<const KernelLaunch*> auto_ranged, eager_user, nodes;
  std::vector<std::uint64_t> node_order;
  for (const auto& launch : run.launches) {
    EXPECT_EQ(launch.name.find("one range"), std::string::npos) << launch.name;
    if (launch.graph_id) {
      ASSERT_TRUE(launch.graph_node.has_value()) << launch.name;
      node_order.push_back(*launch.graph_node);
    }
    if (!launch.user_range_ns) {
      auto_ranged.push_back(&launch);
      continue;
    }
    (launch.graph_node ? nodes : eager_user).push_back(&launch);
    SCOPED_TRACE(launch.name);
    ASSERT_TRUE(launch.counter(kRangeWorkCounter).has_value());
    EXPECT_GT(*launch.counter(kRangeWorkCounter), 1000.0);  // ~1.9 us on an H100
    ASSERT_TRUE(launch.kernel_active_ns.has_value());
    EXPECT_DOUBLE_EQ(*user_range_kernel_ns(launch), *launch.kernel_active_ns);  // re-derivable from the record
    EXPECT_DOUBLE_EQ(*launch.counter("gpu__time_duration.sum"), *launch.kernel_active_ns);
    KernelLaunch again = launch;
    EXPECT_TRUE(time_user_range(again));  // `limiter analyze` does it once more: nothing changes
    EXPECT_EQ(again, launch);
  }
  std::vector<std::uint64_t> expected;
  for (int replay = 0; replay < 11; ++replay)
    for (std::uint64_t node = 0; node < 10; ++node) expected.push_back(node);
  EXPECT_EQ(node_order, expected);  // 11 replays of the 10 nodes, in order
  EXPECT_EQ(eager_user.size(), 102u);
  // A 3.6 us kernel: 4.0 us in an eager user range (6.1 us before the range work was taken out),
  // 6.3 us as a graph node, which keeps the graph launch's own work (8.6 us before); never less
  // than the kernel's own time, which taking out an empty graph launch gave (2.6 us).
  const double alone = median_duration(auto_ranged);
  EXPECT_NEAR(alone, 3600.0, 100.0);
  EXPECT_LT(median_duration(eager_user), 1.3 * alone);
  EXPECT_GT(median_duration(eager_user), alone);
  EXPECT_LT(median_duration(nodes), 2.0 * alone);
  EXPECT_GT(median_duration(nodes), alone);
  const RunAnalysis analysis = analyze_run(run);
  ASSERT_EQ(analysis.kernels.size(), run.launches.size());
  for (const auto& kernel : analysis.kernels) EXPECT_TRUE(kernel.verdict.has_value());
}

}  // namespace
}  // namespace limiter
