// The app's executable graphs, the exact session's part (collect/range/graph_execs.hpp), on the
// fake driver's graphs: the nodes recorded in order with their kernels, node by node or one range
// and why, the app's graph kept while an exec needs it and released with its last exec.
#include <gtest/gtest.h>

#include "collect/range/graph_execs.hpp"
#include "fake_range_backend.hpp"

namespace limiter {
namespace {

using Spec = test::FakeRangeBackend::GraphNodeSpec;
const CUcontext kContext = reinterpret_cast<CUcontext>(0x10);
const std::vector<Spec> kTwoKernels = {
    {CU_GRAPH_NODE_TYPE_KERNEL, "alpha"}, {CU_GRAPH_NODE_TYPE_MEMSET, ""}, {CU_GRAPH_NODE_TYPE_KERNEL, "beta"}};

// The app's graph of two kernels and a memset, and what it instantiates, recorded.
struct GraphExecsTest : ::testing::Test {
  CUgraphExec recorded(std::uint32_t id) {
    const CUgraphExec exec = backend.instantiate(graph, kContext);
    graphs.record(graph, exec, id);
    return exec;
  }
  test::FakeRangeBackend backend;
  detail::GraphExecs graphs{backend, "node"};
  CUgraph graph = backend.add_graph(kTwoKernels);
};

TEST_F(GraphExecsTest, AnExecsNodesAreRecordedInOrderWithTheirKernels) {
  const CUgraphExec exec = recorded(7);
  const detail::GraphExec* recorded = graphs.find(exec);
  ASSERT_NE(recorded, nullptr);
  EXPECT_EQ(graphs.exec_of(*recorded), exec);
  EXPECT_EQ(recorded->graph_id, 7u);
  EXPECT_EQ(recorded->kernel_count, 2u);
  ASSERT_EQ(recorded->nodes.size(), 3u);
  ASSERT_TRUE(recorded->nodes[0].kernel.has_value());
  EXPECT_EQ(recorded->nodes[0].kernel->name, "alpha");
  EXPECT_EQ(recorded->nodes[2].kernel->graph_node, 2u);
  EXPECT_FALSE(recorded->nodes[1].kernel.has_value());
  EXPECT_TRUE(recorded->per_node);
  EXPECT_TRUE(graphs.needed(graph));
}

TEST_F(GraphExecsTest, AGraphThatCannotRunNodeByNodeIsOneRangeAndSaysWhy) {
  detail::GraphExecs whole(backend, "graph");
  const CUgraphExec exec = backend.instantiate(graph, kContext);
  whole.record(graph, exec, 1);
  EXPECT_FALSE(whole.find(exec)->per_node);
  EXPECT_EQ(whole.find(exec)->whole_reason, "--graph-profiling graph");
  EXPECT_FALSE(whole.needed(graph));

  const CUgraph with_host = backend.add_graph({{CU_GRAPH_NODE_TYPE_KERNEL, "alpha"}, {CU_GRAPH_NODE_TYPE_HOST, ""}});
  const CUgraphExec host_exec = backend.instantiate(with_host, kContext);
  graphs.record(with_host, host_exec, 2);
  EXPECT_EQ(graphs.find(host_exec)->whole_reason, "it has a host node, which cannot run on its own");
  backend.refuse_node_handles = true;
  const CUgraphExec refused = backend.instantiate(graph, kContext);
  graphs.record(graph, refused, 3);
  EXPECT_EQ(graphs.find(refused)->whole_reason, "the driver refused its node handles");
}

TEST_F(GraphExecsTest, AKeptGraphIsReleasedWithItsLastExec) {
  const CUgraphExec first = recorded(1), second = recorded(2);
  graphs.keep(graph);  // the app destroys it while its execs need it
  graphs.exec_destroying(first);
  EXPECT_EQ(graphs.find(first), nullptr);
  EXPECT_TRUE(graphs.take_released().empty());  // the second exec still needs it
  EXPECT_TRUE(graphs.kept(graph));
  graphs.exec_destroying(second);
  EXPECT_EQ(graphs.take_released(), std::vector<CUgraph>{graph});
  EXPECT_FALSE(graphs.kept(graph));
  EXPECT_TRUE(graphs.take_released().empty());  // handed out once
}

TEST_F(GraphExecsTest, AGraphTheDriverDestroysTakesItsExecsToOneRange) {
  const CUgraphExec exec = recorded(1);
  graphs.source_destroyed(graph);
  EXPECT_FALSE(graphs.find(exec)->per_node);
  EXPECT_EQ(graphs.find(exec)->source, nullptr);
  EXPECT_NE(graphs.find(exec)->whole_reason.find("destroyed the graph"), std::string::npos);
  EXPECT_FALSE(graphs.needed(graph));
}

TEST_F(GraphExecsTest, EveryNodeThatRunsAloneIsEnabledAgain) {
  const CUgraphExec exec = recorded(1);
  for (const auto& node : graphs.find(exec)->nodes) backend.set_node_enabled(exec, node.handle, false);
  backend.run_graph(exec);
  EXPECT_TRUE(backend.kernels_ran.empty());
  graphs.enable_runnable_nodes(*graphs.find(exec));
  backend.run_graph(exec);
  EXPECT_EQ(backend.kernels_ran, (std::vector<std::string>{"alpha", "beta"}));
}

}  // namespace
}  // namespace limiter
