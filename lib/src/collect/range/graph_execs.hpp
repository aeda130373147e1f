#pragma once
// The app's executable graphs, a part of the exact session (range_session.hpp): each exec's nodes
// in a topological order, whether it can be profiled node by node (graph_replay.cpp) or only as
// one range and why, and the app's graphs kept alive for it (kept_graphs.cpp). Reads the driver
// through the RangeBackend only; the session's lock guards it.
#include <cuda.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "collect/range/range_types.hpp"

namespace limiter::detail {

class GraphExecs {
 public:
  // GRAPH_PROFILING: CollectorOptions::graph_profiling ("node" or "graph": one range per launch).
  GraphExecs(RangeBackend& backend, std::string graph_profiling)
      : backend_(backend), graph_profiling_(std::move(graph_profiling)) {}

  // An exec created from the app's graph SOURCE (the resource callback), while SOURCE exists.
  void record(CUgraph source, CUgraphExec exec, std::uint32_t graph_exec_id);
  GraphExec* find(CUgraphExec exec);
  CUgraphExec exec_of(const GraphExec& graph) const;  // nullptr where it is not one of these
  // An exec is being destroyed: forgotten, and the app's graph it kept alive released (by
  // take_released, once the destroy call returns) where no other exec needs it.
  void exec_destroying(CUgraphExec exec);
  // Whether an exec profiled node by node needs the app's graph SOURCE (its node handles).
  bool needed(CUgraph source) const;
  void keep(CUgraph source) { kept_.insert(source); }  // the app destroys it: we keep it alive
  bool kept(CUgraph source) const { return kept_.count(source) > 0; }
  // The driver destroys an app's graph: execs that used its node handles fall back to one range.
  void source_destroyed(CUgraph source);
  std::vector<CUgraph> take_released();  // kept graphs no exec needs any more: ours to destroy
  // Every node that can run alone enabled again (after a launch node by node).
  void enable_runnable_nodes(const GraphExec& graph);

 private:
  RangeBackend& backend_;
  std::string graph_profiling_;
  std::map<CUgraphExec, GraphExec> execs_;
  // The app's graphs it destroyed while an exec made from them is profiled node by node: kept
  // alive (kept_graphs.cpp), and destroyed by us once no exec of theirs is left.
  std::set<CUgraph> kept_;
  std::vector<CUgraph> released_;  // their last exec is being destroyed: released at its EXIT
};

}  // namespace limiter::detail
