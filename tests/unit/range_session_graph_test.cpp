// CUDA graph launches in the exact session, on the fake driver's graphs (fake_range_backend.hpp):
// node by node (each kernel node alone in the exec, in its own range, before the app's own
// launch, which then runs none of them twice), as one range (--graph-profiling graph, a node
// that cannot run alone, a node the driver will not turn off), and the app's graph kept alive
// while a node-by-node exec needs its node handles (graph_replay.cpp, kept_graphs.cpp).
#include <gtest/gtest.h>

#include "range_session_harness.hpp"

namespace limiter {
namespace {

using detail::GraphEvent;
using test::exact;
using test::finish;
using test::Harness;
using test::kContext;
using Spec = test::FakeRangeBackend::GraphNodeSpec;

const std::vector<Spec> kTwoKernels = {
    {CU_GRAPH_NODE_TYPE_KERNEL, "alpha"}, {CU_GRAPH_NODE_TYPE_MEMSET, ""}, {CU_GRAPH_NODE_TYPE_KERNEL, "beta"}};

struct Graph {
  CUgraph graph;
  CUgraphExec exec;
};

// The app instantiates GRAPH (the resource callback that tells the session).
Graph instantiate(Harness& h, const std::vector<Spec>& nodes, std::uint32_t id = 7) {
  Graph g;
  g.graph = h.backend.add_graph(nodes);
  g.exec = h.backend.instantiate(g.graph, kContext);
  GraphEvent event;
  event.kind = GraphEvent::Kind::exec_created;
  event.graph = g.graph;
  event.exec = g.exec;
  event.graph_exec_id = id;
  h.session->on_graph_event(event);
  return g;
}

// The app's cuGraphLaunch: ENTER, the driver runs the exec's enabled nodes, EXIT.
void launch(Harness& h, CUgraphExec exec) {
  detail::LaunchCall call;
  call.context = kContext;
  call.graph = exec;
  h.session->on_launch(call);
  h.backend.run_graph(exec);
  h.session->on_launch_exit(call);
}

// The app's cuGraphDestroy(GRAPH): its ENTER and EXIT callbacks around the driver's destroy of
// whatever graph the call's parameter names by then (the resource callback sees it go). A
// driver that IGNORES_SWAP destroys the app's graph all the same.
void app_destroys(Harness& h, CUgraph graph, bool ignores_swap = false) {
  CUgraph parameter = graph;
  GraphEvent call;
  call.kind = GraphEvent::Kind::graph_destroy_call;
  call.destroy_target = &parameter;
  call.enter = true;
  h.session->on_graph_event(call);
  const CUgraph destroyed = ignores_swap ? graph : parameter;
  GraphEvent going;
  going.kind = GraphEvent::Kind::graph_destroying;
  going.graph = destroyed;
  h.session->on_graph_event(going);
  h.backend.driver_destroys(destroyed);
  call.enter = false;
  h.session->on_graph_event(call);
  EXPECT_EQ(parameter, graph);  // the app's call as it made it
}

// The app's cuGraphExecDestroy(EXEC): the resource callback, then the call's EXIT.
void app_destroys_exec(Harness& h, CUgraphExec exec) {
  GraphEvent event;
  event.kind = GraphEvent::Kind::exec_destroying;
  event.exec = exec;
  h.session->on_graph_event(event);
  event.kind = GraphEvent::Kind::exec_destroyed;
  h.session->on_graph_event(event);
}

TEST(RangeSessionGraphs, EachKernelNodeRunsAloneInItsOwnRangeAndOnlyOnce) {
  Harness h(exact());
  const Graph g = instantiate(h, kTwoKernels);
  launch(h, g.exec);
  EXPECT_EQ(h.backend.graph_launches, 3);  // each runnable node alone: alpha, the memset, beta
  launch(h, g.exec);                       // its nodes were enabled again at EXIT
  const RunRecord run = finish(h);
  EXPECT_EQ(h.backend.kernels_ran, (std::vector<std::string>{"alpha", "beta", "alpha", "beta"}));
  EXPECT_EQ(h.names(run.launches), (std::vector<std::string>{"alpha", "beta", "alpha", "beta"}));
  ASSERT_EQ(run.launches.size(), 4u);
  EXPECT_EQ(run.launches[0].graph_id, 7u);
  EXPECT_EQ(run.launches[0].graph_node, 0u);
  EXPECT_EQ(run.launches[1].graph_node, 2u);  // its place in the graph, the memset between
  EXPECT_EQ(run.launches[1].grid, (Dim3{4, 1, 1}));
  EXPECT_EQ(run.launches[1].registers_per_thread, 32);
  EXPECT_NE(run.launches[0].counter("fake__range_index"), run.launches[1].counter("fake__range_index"));
  EXPECT_EQ(h.session->range_timings().range_mode_switches, 1u);  // user ranges from the first graph on
  EXPECT_EQ(h.session->range_timings().graph_nodes, 6u);
  EXPECT_TRUE(run.missed.empty());
}

TEST(RangeSessionGraphs, GraphProfilingGraphMeasuresTheLaunchAsOneRange) {
  CollectorOptions options = exact();
  options.graph_profiling = "graph";
  Harness h(options);
  const Graph g = instantiate(h, kTwoKernels);
  launch(h, g.exec);
  const RunRecord run = finish(h);
  EXPECT_EQ(h.backend.graph_launches, 0);  // the app's own launch alone
  EXPECT_EQ(h.backend.kernels_ran, (std::vector<std::string>{"alpha", "beta"}));
  ASSERT_EQ(run.launches.size(), 1u);
  EXPECT_EQ(run.launches[0].name, "graph 7 (one range: 2 kernels; --graph-profiling graph)");
  EXPECT_EQ(run.launches[0].graph_id, 7u);
}

TEST(RangeSessionGraphs, NodesThatCannotRunAloneMakeTheGraphOneRange) {
  Harness host(exact());
  const Graph with_host = instantiate(host, {{CU_GRAPH_NODE_TYPE_KERNEL, "alpha"}, {CU_GRAPH_NODE_TYPE_HOST, ""}});
  launch(host, with_host.exec);
  RunRecord run = finish(host);
  ASSERT_EQ(run.launches.size(), 1u);
  EXPECT_NE(run.launches[0].name.find("it has a host node, which cannot run on its own"), std::string::npos);

  Harness refused(exact());  // the driver will not turn a node off: all back on, one range
  refused.backend.refuse_disable = true;
  const Graph g = instantiate(refused, kTwoKernels);
  launch(refused, g.exec);
  launch(refused, g.exec);
  run = finish(refused);
  EXPECT_EQ(refused.backend.kernels_ran, (std::vector<std::string>{"alpha", "beta", "alpha", "beta"}));
  ASSERT_EQ(run.launches.size(), 2u);
  EXPECT_NE(run.launches[0].name.find("cuGraphNodeSetEnabled refused one of its nodes"), std::string::npos);

  Harness handles(exact());  // an exec that does not know its graph's node handles
  handles.backend.refuse_node_handles = true;
  const Graph other = instantiate(handles, kTwoKernels);
  launch(handles, other.exec);
  run = finish(handles);
  ASSERT_EQ(run.launches.size(), 1u);
  EXPECT_NE(run.launches[0].name.find("the driver refused its node handles"), std::string::npos);
}

TEST(RangeSessionGraphs, TheAppsGraphIsKeptUntilItsLastExecIsDestroyed) {
  Harness h(exact());
  const Graph g = instantiate(h, kTwoKernels);
  app_destroys(h, g.graph);                      // as PyTorch does right after instantiating
  EXPECT_TRUE(h.backend.graph_exists(g.graph));  // our empty graph went in its place
  EXPECT_EQ(h.backend.graphs_created, 1);
  launch(h, g.exec);
  EXPECT_EQ(h.names(finish(h).launches), (std::vector<std::string>{"alpha", "beta"}));  // still node by node
  app_destroys_exec(h, g.exec);
  EXPECT_FALSE(h.backend.graph_exists(g.graph));  // released with its last exec
  EXPECT_EQ(h.backend.graphs_destroyed, 1);

  Harness unneeded(exact());  // a graph no node-by-node exec needs is destroyed as asked
  const CUgraph alone = unneeded.backend.add_graph(kTwoKernels);
  app_destroys(unneeded, alone);
  EXPECT_FALSE(unneeded.backend.graph_exists(alone));
  EXPECT_EQ(unneeded.backend.graphs_created, 0);
}

TEST(RangeSessionGraphs, ADriverThatIgnoresTheSwapLeavesTheExecOneRangePerLaunch) {
  Harness h(exact());
  const Graph g = instantiate(h, kTwoKernels);
  app_destroys(h, g.graph, /*ignores_swap=*/true);
  EXPECT_EQ(h.backend.graphs_destroyed, 1);  // our empty graph, by us at EXIT
  launch(h, g.exec);
  const RunRecord run = finish(h);
  ASSERT_EQ(run.launches.size(), 1u);
  EXPECT_NE(run.launches[0].name.find("the app destroyed the graph it was instantiated from"), std::string::npos);
  EXPECT_EQ(h.backend.kernels_ran, (std::vector<std::string>{"alpha", "beta"}));
}

// A graph instantiated before the session subscribed (an in-process region after the app's warm-up):
// its kernels are unknown and run unprofiled, and the record says so with the fix, launch by launch.
TEST(RangeSessionGraphs, AGraphInstantiatedBeforeProfilingIsSaidMissed) {
  Harness h(exact());
  const CUgraph graph = h.backend.add_graph(kTwoKernels);
  const CUgraphExec exec = h.backend.instantiate(graph, kContext);  // no exec_created event: before us
  launch(h, exec);
  launch(h, exec);
  const RunRecord run = finish(h);
  EXPECT_TRUE(run.launches.empty());
  ASSERT_EQ(run.missed.size(), 1u);
  EXPECT_EQ(run.missed[0].launches, 2u);
  EXPECT_NE(run.missed[0].reason.find("instantiated before profiling began"), std::string::npos);
  EXPECT_NE(run.missed[0].fix.find("inside the profiled region"), std::string::npos);
}

}  // namespace
}  // namespace limiter
