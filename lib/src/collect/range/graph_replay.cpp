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

// The node types cuGraphNodeSetEnabled accepts.
bool runnable_alone(CUgraphNodeType type) {
  return type == CU_GRAPH_NODE_TYPE_KERNEL || type == CU_GRAPH_NODE_TYPE_MEMSET || type == CU_GRAPH_NODE_TYPE_MEMCPY;
}

namespace {

const char* node_type_name(CUgraphNodeType type) {
  switch (type) {
    case CU_GRAPH_NODE_TYPE_HOST: return "host";
    case CU_GRAPH_NODE_TYPE_GRAPH: return "child graph";
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT: return "event wait";
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD: return "event record";
    case CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL: return "semaphore signal";
    case CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT: return "semaphore wait";
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC: return "memory allocation";
    case CU_GRAPH_NODE_TYPE_MEM_FREE: return "memory free";
    case CU_GRAPH_NODE_TYPE_BATCH_MEM_OP: return "batch memory operation";
    case CU_GRAPH_NODE_TYPE_CONDITIONAL: return "conditional";
    default: return "unsupported";
  }
}

// The graph's nodes in a topological order: Kahn's algorithm, ties broken by the driver's
// node order (creation order, which is already topological for captured graphs).
std::vector<CUgraphNode> topological_order(const GraphTopology& graph) {
  const std::vector<CUgraphNode>& nodes = graph.nodes;
  const std::size_t count = nodes.size();
  auto position = [&](CUgraphNode node) {
    return static_cast<std::size_t>(std::find(nodes.begin(), nodes.end(), node) - nodes.begin());
  };
  std::vector<std::size_t> waiting(count, 0);
  std::vector<std::vector<std::size_t>> successors(count);
  for (const auto& [from, to] : graph.edges) {
    const std::size_t a = position(from), b = position(to);
    if (a >= count || b >= count) return {};
    successors[a].push_back(b);
    ++waiting[b];
  }
  std::vector<CUgraphNode> order;
  std::vector<bool> done(count, false);
  while (order.size() < count) {
    std::size_t next = count;
    for (std::size_t i = 0; i < count && next == count; ++i)
      if (!done[i] && waiting[i] == 0) next = i;
    if (next == count) return {};  // a cycle: not a graph the driver would instantiate
    done[next] = true;
    order.push_back(nodes[next]);
    for (std::size_t s : successors[next]) --waiting[s];
  }
  return order;
}

}  // namespace

}  // namespace detail

// At the exec's creation, while the app's graph still exists: the exec's nodes are reachable
// only through that graph's node handles, so a graph the app destroys (PyTorch does, right after
// instantiation, unless keep_graph=True) is kept alive while this exec needs it (kept_graphs.cpp).
void detail::RangeSession::record_graph(CUgraph source, CUgraphExec exec, std::uint32_t graph_exec_id) {
  detail::GraphExec graph;
  graph.graph_id = graph_exec_id;
  graph.source = source;
  const std::optional<GraphTopology> topology = backend.graph_topology(source);
  const std::vector<CUgraphNode> order = topology ? detail::topological_order(*topology) : std::vector<CUgraphNode>{};
  std::string unsupported;
  for (CUgraphNode node : order) {
    detail::GraphNode entry;
    entry.handle = node;
    entry.index = graph.nodes.size();
    entry.type = backend.node_type(node);
    if (!detail::runnable_alone(entry.type) && entry.type != CU_GRAPH_NODE_TYPE_EMPTY && unsupported.empty())
      unsupported = detail::node_type_name(entry.type);
    if (entry.type == CU_GRAPH_NODE_TYPE_KERNEL) {
      KernelLaunch launch;
      if (const std::optional<GraphKernelNode> params = backend.kernel_node(node)) {
        launch.mangled_name = params->mangled_name;
        launch.grid = params->grid;
        launch.block = params->block;
        launch.dynamic_shared_bytes = params->dynamic_shared_bytes;
        if (params->function) {
          const auto resources = backend.kernel_attributes(params->function);
          launch.registers_per_thread = resources.registers;
          launch.static_shared_bytes = static_cast<std::uint64_t>(resources.static_shared);
          launch.local_bytes_per_thread = static_cast<std::uint64_t>(resources.local);
        }
      }
      launch.name = detail::demangle(launch.mangled_name.empty() ? nullptr : launch.mangled_name.c_str(), "(unknown kernel)");
      launch.graph_id = graph.graph_id;
      launch.graph_node = entry.index;
      entry.kernel = std::move(launch);
      ++graph.kernel_count;
    }
    graph.nodes.push_back(std::move(entry));
  }
  const char* handles = "none";
  if (topology && topology->nodes.empty()) {
    graph.per_node = true;  // an empty graph: nothing to profile
  } else if (order.empty()) {
    graph.whole_reason = "its nodes could not be listed";
  } else if (!unsupported.empty()) {
    graph.whole_reason = std::string("it has a ") + unsupported + " node, which cannot run on its own";
  } else if (options.graph_profiling == "graph") {
    graph.whole_reason = "--graph-profiling graph";
  } else {
    // The exec knows its nodes only by the app's graph's node handles: a clone's handles were
    // refused by cuGraphNodeGetEnabled on an H100, also after cuGraphExecUpdate with the clone.
    const auto probe = std::find_if(graph.nodes.begin(), graph.nodes.end(),
                                    [](const detail::GraphNode& n) { return detail::runnable_alone(n.type); });
    if (probe == graph.nodes.end() || backend.exec_knows_node(exec, probe->handle)) {
      handles = "the app's graph";  // kept alive if the app destroys it (kept_graphs.cpp)
      graph.per_node = true;
    } else {
      graph.whole_reason = "the driver refused its node handles";
    }
  }
  LIMITER_TRACE("graph exec %u: %zu nodes, %zu kernels, %s (handles: %s)", graph_exec_id, graph.nodes.size(), graph.kernel_count,
                graph.per_node ? "per node" : ("one range: " + graph.whole_reason).c_str(), handles);
  forget_graph_exec(exec);
  graph_execs[exec] = std::move(graph);
}

void detail::RangeSession::forget_graph_exec(CUgraphExec exec) {
  auto it = graph_execs.find(exec);
  if (it != graph_execs.end()) graph_execs.erase(it);
}

// The driver destroys an app's graph that was not kept (kept_graphs.cpp): execs that use its node
// handles fall back to one range per launch.
void detail::RangeSession::forget_source_graph(CUgraph graph) {
  for (auto& [exec, known] : graph_execs) {
    if (known.source != graph) continue;
    LIMITER_TRACE("graph exec %llu: the app destroys its graph", static_cast<unsigned long long>(known.graph_id));
    known.source = nullptr;
    if (known.per_node && known.nodes.size() > 0 &&
        std::any_of(known.nodes.begin(), known.nodes.end(),
                    [](const detail::GraphNode& n) { return detail::runnable_alone(n.type); })) {
      known.per_node = false;
      known.whole_reason = "the app destroyed the graph it was instantiated from, and with it the node handles";
    }
  }
}

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
    disable_profiler(p);  // decodes the batch first
  } catch (...) {
    p.paused = true;  // the next selected launch starts a new one
    end_turn(p);
    throw;
  }
  start_profiler(p, 0);  // the process keeps its turn on the counters
}

void detail::RangeSession::profile_graph_launch(ContextProfiler& p, detail::GraphExec& graph, CUstream stream,
                                           bool per_thread_stream, std::vector<detail::PendingLaunch>& launches) {
  using detail::Clock;
  using detail::seconds_since;
  enter_user_range_mode(p);
  auto& exec_entry = *std::find_if(graph_execs.begin(), graph_execs.end(),
                                   [&](const auto& entry) { return &entry.second == &graph; });
  const CUgraphExec exec = exec_entry.first;
  const bool sync_before_pop = detail::range_sync_of(options.range_sync) != detail::RangeSync::none;
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
          if (ranged && p.pending.size() >= p.ranges_per_image) flush_batch(p);  // the image holds a batch
          if (set_enabled(node.handle, 1) != CUDA_SUCCESS)
            throw SystemError("cuGraphNodeSetEnabled refused node " + std::to_string(node.index));
          if (ranged) {
            start_batch(p);
            if (p.pending.empty()) p.oldest_pending = Clock::now();
            flush_caches(p, stream, per_thread_stream);
            push_range(p);
          }
          const auto launched_at = Clock::now();
          const CUresult launched = backend.launch_graph(exec, stream, per_thread_stream);
          times.graph_node_launch_s += seconds_since(launched_at);
          ++times.graph_nodes;
          if (launched != CUDA_SUCCESS && ranged) pop_range(p, stream, per_thread_stream, false);
          if (launched != CUDA_SUCCESS)
            throw SystemError("launching node " + std::to_string(node.index) + " of a graph failed: " +
                              detail::driver_error_name(launched));
          next = i + 1;  // it ran: whatever fails below, the app's launch must not run it again
          if (ranged) {
            pop_range(p, stream, per_thread_stream, sync_before_pop);
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
  if (p.pending.size() >= p.ranges_per_image) flush_batch(p);
  start_batch(p);
  if (p.pending.empty()) p.oldest_pending = Clock::now();
  flush_caches(p, stream, per_thread_stream);
  push_range(p);
  in_flight.range_open = true;
  in_flight.sync_before_pop = sync_before_pop;
  in_flight.pending_index = p.pending.size();
  p.pending.push_back(std::move(whole));
}

}  // namespace limiter
