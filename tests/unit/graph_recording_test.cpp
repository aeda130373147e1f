// A PyTorch program's CUDA graph profiled node by node under user replay on an H100
// (bench/workloads/graph_replay.py, PHASE_ITERATIONS=2; bench/results/2026-11-23-graphs.md),
// re-read and re-analysed offline: every kernel node of every replay is a launch of its own,
// with its graph and node, and counts what the same kernel counts when launched eagerly.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "limiter/analysis.hpp"
#include "limiter/record_json.hpp"
#include "test_data.hpp"

namespace limiter {
namespace {

RunRecord graph_recording() { return read_run_file(testing::kData + "/cupti/h100_graph_replay_limiter.json.gz"); }

TEST(GraphRecording, EveryKernelNodeOfEveryReplayIsALaunchWithItsNode) {
  const RunRecord run = graph_recording();
  EXPECT_TRUE(run.missed.empty());
  std::vector<std::uint64_t> nodes;
  std::set<std::uint64_t> graphs;
  for (const auto& launch : run.launches) {
    if (!launch.graph_id) {
      EXPECT_FALSE(launch.graph_node.has_value()) << launch.sequence;
      continue;
    }
    graphs.insert(*launch.graph_id);
    ASSERT_TRUE(launch.graph_node.has_value()) << launch.sequence;  // per node, not one range
    nodes.push_back(*launch.graph_node);
  }
  EXPECT_EQ(graphs.size(), 1u);
  // Two replays of the ten-kernel graph, each node once per replay, in topological order.
  std::vector<std::uint64_t> expected;
  for (int replay = 0; replay < 2; ++replay)
    for (std::uint64_t node = 0; node < 10; ++node) expected.push_back(node);
  EXPECT_EQ(nodes, expected);
}

TEST(GraphRecording, GraphNodesCountWhatTheSameEagerKernelsCountAndGetVerdicts) {
  const RunRecord run = graph_recording();
  const RunAnalysis analysis = analyze_run(run);
  ASSERT_EQ(analysis.kernels.size(), run.launches.size());
  std::size_t compared = 0;
  for (std::size_t i = 0; i < run.launches.size(); ++i) {
    const KernelLaunch& node = run.launches[i];
    if (!node.graph_id) continue;
    EXPECT_TRUE(analysis.kernels[i].verdict.has_value()) << node.name;
    // The last eager launch of the same kernel and configuration (the phase after the capture).
    const KernelLaunch* eager = nullptr;
    for (const auto& launch : run.launches)
      if (!launch.graph_id && launch.name == node.name && launch.grid == node.grid) eager = &launch;
    ASSERT_NE(eager, nullptr) << node.name;
    for (const char* metric : {"lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_write.sum"}) {
      const double a = node.counter(metric).value_or(NAN), b = eager->counter(metric).value_or(NAN);
      EXPECT_NEAR(a, b, 0.01 * b) << node.name << " " << metric;
    }
    ++compared;
  }
  EXPECT_EQ(compared, 20u);
}

}  // namespace
}  // namespace limiter
