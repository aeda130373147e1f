// The app's CUDA graphs, kept alive for node-by-node profiling (graph_replay.cpp). An executable
// graph's nodes are known to the driver only by the node handles of the graph it was
// instantiated from (cuGraphNodeSetEnabled), and PyTorch destroys that graph right after
// instantiating it (torch.cuda.graph, torch.compile's cudagraph trees). A clone's handles are
// refused, also after cuGraphExecUpdate with the clone (H100). So when the app destroys a graph
// that a node-by-node exec still needs, cuGraphDestroy's ENTER callback hands the driver an empty
// graph of ours to destroy instead: the driver takes the call's parameters from the callback's
// structure (H100, driver 580: bench/graph_keep_probe, 2026-11-24). The app's graph is destroyed
// by us once the last exec made from it is destroyed. A driver that ignored the swap destroys the
// app's graph as asked: the resource callback sees it go, its execs fall back to one range per
// launch (GraphExecs::source_destroyed), and our empty graph is destroyed at EXIT.
#include <algorithm>

#include "collect/range/range_session.hpp"

namespace limiter {

namespace detail {

thread_local bool inside_graph_keeper = false;  // our own cuGraphCreate/cuGraphDestroy: callbacks ignored
// This thread's cuGraphDestroy between ENTER and EXIT: the app's graph kept, our empty one
// handed to the driver, and whether the driver destroyed that one (the swap worked).
thread_local CUgraph kept_in_this_call = nullptr;
thread_local CUgraph empty_in_this_call = nullptr;
thread_local bool empty_destroyed = false;

namespace {

struct KeeperCall {  // our own driver calls: their callbacks are ours to ignore
  KeeperCall() { inside_graph_keeper = true; }
  ~KeeperCall() { inside_graph_keeper = false; }
};

}  // namespace

}  // namespace detail

void detail::RangeSession::on_graph_destroy(const GraphEvent& call) {
  if (detail::inside_graph_keeper || !call.destroy_target) return;
  CUgraph* target = call.destroy_target;
  if (call.enter) {
    detail::kept_in_this_call = detail::empty_in_this_call = nullptr;
    detail::empty_destroyed = false;
    const CUgraph graph = *target;
    {
      std::lock_guard lock(mutex);
      if (!graphs_.needed(graph)) return;
    }
    CUgraph empty = nullptr;
    {
      detail::KeeperCall ours;
      empty = backend.create_empty_graph();
      if (!empty) return;  // then destroyed as asked: one range per launch
    }
    {
      std::lock_guard lock(mutex);
      graphs_.keep(graph);
    }
    *target = empty;
    detail::kept_in_this_call = graph;
    detail::empty_in_this_call = empty;
    LIMITER_TRACE("the app destroys graph %p, which a node-by-node exec needs: kept", static_cast<void*>(graph));
    return;
  }
  if (!detail::empty_in_this_call) return;
  const CUgraph graph = detail::kept_in_this_call, empty = detail::empty_in_this_call;
  detail::kept_in_this_call = detail::empty_in_this_call = nullptr;
  *target = graph;  // the call's parameters as the app gave them
  if (detail::empty_destroyed) return;
  LIMITER_TRACE("graph %p: the driver ignored the swap and destroyed it", static_cast<void*>(graph));
  detail::KeeperCall ours;
  backend.destroy_graph(empty);
}

// The resource callback: a graph is being destroyed. Ours (the empty one, or a kept graph we
// release) are expected; any other is the app's, and execs that needed its handles lose them.
void detail::RangeSession::on_graph_destroy_starting(CUgraph graph) {
  if (detail::inside_graph_keeper) return;
  if (graph != nullptr && graph == detail::empty_in_this_call) {
    detail::empty_destroyed = true;
    return;
  }
  std::lock_guard lock(mutex);
  graphs_.source_destroyed(graph);
}

void detail::RangeSession::on_graph_exec_destroyed() {
  if (detail::inside_graph_keeper) return;
  std::vector<CUgraph> release;
  {
    std::lock_guard lock(mutex);
    release = graphs_.take_released();
  }
  detail::KeeperCall ours;
  for (CUgraph graph : release) {
    LIMITER_TRACE("graph %p: its last exec destroyed, the kept graph released", static_cast<void*>(graph));
    backend.destroy_graph(graph);
  }
}

}  // namespace limiter
