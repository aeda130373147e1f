// A PyTorch program's CUDA graph under user replay on an H100 (bench/workloads/graph_replay.py,
// PHASE_ITERATIONS=2, run 2 of bench/results/2026-11-23-graphs.md), re-read and re-analysed
// offline. PyTorch destroyed the captured graph, so each replay was profiled as one range: the
// record says so by name, with the graph's ID and no node; eager launches after the capture
// kept user replay and are all there. (The counters of those ranges are not checked: the
// results page explains why they are not trusted.)
#include <gtest/gtest.h>

#include "limiter/analysis.hpp"
#include "limiter/record_json.hpp"
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

}  // namespace
}  // namespace limiter
