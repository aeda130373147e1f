// CUDA graphs at user-replay cost (one-pass plans; --replay kernel ranges graph kernels by kernel
// replay instead, ~50 ms a node). Under user replay CUPTI gives graph
// kernels no auto range, and a user range around a graph launch measures the whole graph as one
// workload (CUPTI's documentation). So a selected graph launch is run node by node before the app's own
// launch: each runnable node (kernel, memset, memcpy) alone enabled in the exec, the exec
// launched on the app's stream, each selected kernel node inside its own user range
// (user_ranges.cpp: the context is in user-range mode from its first graph launch on). The nodes
// are then left disabled, so the app's launch that follows runs none of them twice, and enabled
// again at EXIT (changes apply to later launches only). The node handles are the app's graph's,
// which stays alive for it even when the app destroys it (kept_graphs.cpp). Graphs with nodes
// that cannot be disabled (host, event, child graph, memory, conditional nodes), and every graph
// under --graph-profiling graph, are measured as one range per launch instead.
#include <algorithm>

#include "collect/range/range_session.hpp"
#include "collect/cupti/driver_api.hpp"
#include "limiter/error.hpp"

namespace limiter {

namespace detail {

thread_local bool inside_graph_replay = false;  // our own graph launches: their callbacks are ignored

}  // namespace detail

// Ranges are pushed per graph node: the context's profiler goes to user-range mode at its first
// profiled graph launch and stays there (user_ranges.cpp). A new profiler object: SetConfig on
// the same object after a Stop kept auto range on an H100 (PushRange then failed with
// CUPTI_ERROR_INVALID_PARAMETER). The switch costs a Stop, a Disable, an Enable and a Start, once.
void detail::RangeSession::enter_user_range_mode(ContextProfiler& p) {
  if (p.user_range || !p.user_replay) return;
  LIMITER_TRACE("context %p: user-range mode from its first graph launch on", static_cast<void*>(p.context));
  p.graphs_launched = true;  // so does a profiler started again after a pause
  ++times.range_mode_switches;
  try {
    batches_.disable(p);  // decodes the batch first
  } catch (...) {
    p.paused = true;  // the next selected launch starts a new one
    end_turn(p);
    throw;
  }
  batches_.start_profiler(p, 0);  // the process keeps its turn on the counters
}

void detail::RangeSession::profile_graph_launch(ContextProfiler& p, detail::GraphExec& graph, CUstream stream,
                                                bool per_thread_stream, std::vector<detail::PendingLaunch>& launches) {
  using detail::Clock;
  using detail::seconds_since;
  enter_user_range_mode(p);
  const CUgraphExec exec = graphs_.exec_of(graph);
  const bool sync_before_pop = ranges_.syncs_graph_ranges();
  in_flight = {};
  in_flight.profiler = &p;
  in_flight.stream = stream;
  in_flight.per_thread_stream = per_thread_stream;
  in_flight.graph = &graph;
  const auto set_enabled = [&](CUgraphNode node, unsigned on) {
    const auto started = Clock::now();
    const CUresult status = backend.set_node_enabled(exec, node, on != 0);
    times.graph_toggle_s += seconds_since(started);
    return status;
  };

  if (graph.per_node) {
    struct ReplayFlag {  // cleared however this ends (a CUPTI error throws)
      ReplayFlag() { detail::inside_graph_replay = true; }
      ~ReplayFlag() { detail::inside_graph_replay = false; }
    } replaying;
    in_flight.nodes_disabled = true;  // EXIT turns every runnable node on again, whatever happens here
    bool all_off = true;
    for (const auto& node : graph.nodes)
      if (detail::runnable_alone(node.type)) all_off = all_off && set_enabled(node.handle, 0) == CUDA_SUCCESS;
    if (all_off) {
      std::size_t kernel = 0, next = 0;  // the nodes before `next` have run
      try {
        if (std::any_of(launches.begin(), launches.end(), [](const auto& pending) { return pending.keep; }))
          measure_range_work(p);
        for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
          const auto& node = graph.nodes[i];
          next = i;
          if (!detail::runnable_alone(node.type)) continue;
          const bool ranged = node.kernel && launches[kernel].keep;
          if (ranged && p.pending.size() >= p.ranges_per_image) batches_.flush(p);  // the image holds a batch
          if (set_enabled(node.handle, 1) != CUDA_SUCCESS)
            throw SystemError("cuGraphNodeSetEnabled refused node " + std::to_string(node.index));
          if (ranged) {
            batches_.start(p);
            if (p.pending.empty()) p.oldest_pending = Clock::now();
            ranges_.flush_caches(p.context, stream, per_thread_stream);
            push_range(p);
          }
          const auto launched_at = Clock::now();
          const CUresult launched = backend.launch_graph(exec, stream, per_thread_stream);
          times.graph_node_launch_s += seconds_since(launched_at);
          ++times.graph_nodes;
          if (launched != CUDA_SUCCESS && ranged) ranges_.pop(p.profiler, stream, per_thread_stream, false);
          if (launched != CUDA_SUCCESS)
            throw SystemError("launching node " + std::to_string(node.index) +
                              " of a graph failed: " + detail::driver_error_name(launched));
          next = i + 1;  // it ran: whatever fails below, the app's launch must not run it again
          if (ranged) {
            ranges_.pop(p.profiler, stream, per_thread_stream, sync_before_pop);
            p.pending.push_back(std::move(launches[kernel]));
          }
          set_enabled(node.handle, 0);
          if (node.kernel) ++kernel;
        }
      } catch (const std::exception& e) {
        // The nodes that have not run are turned on, so the app's own launch runs them: each
        // node still runs once, in order. Their kernels are counted as missed, with the error.
        std::uint64_t unprofiled = 0;
        for (std::size_t i = 0, k = 0; i < graph.nodes.size(); ++i) {
          if (!detail::runnable_alone(graph.nodes[i].type)) continue;
          backend.set_node_enabled(exec, graph.nodes[i].handle, i >= next);
          if (graph.nodes[i].kernel && k++ >= kernel && launches[k - 1].keep) ++unprofiled;
        }
        miss(detail::MissReason::error, unprofiled, std::string("profiling a graph node by node: ") + e.what());
      }
      return;
    }
    // A node refused to be disabled: all back on, and this launch is one range.
    for (const auto& node : graph.nodes)
      if (detail::runnable_alone(node.type)) backend.set_node_enabled(exec, node.handle, true);
    in_flight.nodes_disabled = false;
    graph.per_node = false;
    graph.whole_reason = "cuGraphNodeSetEnabled refused one of its nodes";
  }

  // One range around the app's own launch, closed at EXIT: the graph's kernels together.
  std::size_t selected = 0;
  for (const auto& pending : launches) selected += pending.keep ? 1 : 0;
  if (selected == 0) return;
  detail::PendingLaunch whole;
  whole.keep = true;
  whole.launch.name = "graph " + std::to_string(graph.graph_id) + " (one range: " + std::to_string(graph.kernel_count) +
                      " kernels; " + graph.whole_reason + ")";
  whole.launch.graph_id = graph.graph_id;
  whole.launch.stream_id = launches.front().launch.stream_id;
  whole.launch.context_id = launches.front().launch.context_id;
  whole.launch.device = launches.front().launch.device;
  whole.launch.nvtx = launches.front().launch.nvtx;
  measure_range_work(p);
  if (p.pending.size() >= p.ranges_per_image) batches_.flush(p);
  batches_.start(p);
  if (p.pending.empty()) p.oldest_pending = Clock::now();
  ranges_.flush_caches(p.context, stream, per_thread_stream);
  push_range(p);
  in_flight.range_open = true;
  in_flight.sync_before_pop = sync_before_pop;
  in_flight.pending_index = p.pending.size();
  p.pending.push_back(std::move(whole));
}

}  // namespace limiter
