// The app's executable graphs (graph_execs.hpp): recorded at their creation, while the app's graph
// they were made from still exists.
#include "collect/range/graph_execs.hpp"

#include <algorithm>
#include <optional>

#include "collect/trace.hpp"

namespace limiter::detail {

// The node types cuGraphNodeSetEnabled accepts.
bool runnable_alone(CUgraphNodeType type) {
  return type == CU_GRAPH_NODE_TYPE_KERNEL || type == CU_GRAPH_NODE_TYPE_MEMSET || type == CU_GRAPH_NODE_TYPE_MEMCPY;
}

namespace {

const char* node_type_name(CUgraphNodeType type) {
  switch (type) {
    case CU_GRAPH_NODE_TYPE_HOST:
      return "host";
    case CU_GRAPH_NODE_TYPE_GRAPH:
      return "child graph";
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
      return "event wait";
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
      return "event record";
    case CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL:
      return "semaphore signal";
    case CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT:
      return "semaphore wait";
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
      return "memory allocation";
    case CU_GRAPH_NODE_TYPE_MEM_FREE:
      return "memory free";
    case CU_GRAPH_NODE_TYPE_BATCH_MEM_OP:
      return "batch memory operation";
    case CU_GRAPH_NODE_TYPE_CONDITIONAL:
      return "conditional";
    default:
      return "unsupported";
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

// At the exec's creation, while the app's graph still exists: the exec's nodes are reachable
// only through that graph's node handles, so a graph the app destroys (PyTorch does, right after
// instantiation, unless keep_graph=True) is kept alive while this exec needs it (kept_graphs.cpp).
void GraphExecs::record(CUgraph source, CUgraphExec exec, std::uint32_t graph_exec_id) {
  GraphExec graph;
  graph.graph_id = graph_exec_id;
  graph.source = source;
  const std::optional<GraphTopology> topology = backend_.graph_topology(source);
  const std::vector<CUgraphNode> order = topology ? topological_order(*topology) : std::vector<CUgraphNode>{};
  std::string unsupported;
  for (CUgraphNode node : order) {
    GraphNode entry;
    entry.handle = node;
    entry.index = graph.nodes.size();
    entry.type = backend_.node_type(node);
    if (!runnable_alone(entry.type) && entry.type != CU_GRAPH_NODE_TYPE_EMPTY && unsupported.empty())
      unsupported = node_type_name(entry.type);
    if (entry.type == CU_GRAPH_NODE_TYPE_KERNEL) {
      KernelLaunch launch;
      if (const std::optional<GraphKernelNode> params = backend_.kernel_node(node)) {
        launch.mangled_name = params->mangled_name;
        launch.grid = params->grid;
        launch.block = params->block;
        launch.dynamic_shared_bytes = params->dynamic_shared_bytes;
        if (params->function) {
          const auto resources = backend_.kernel_attributes(params->function);
          launch.registers_per_thread = resources.registers;
          launch.static_shared_bytes = static_cast<std::uint64_t>(resources.static_shared);
          launch.local_bytes_per_thread = static_cast<std::uint64_t>(resources.local);
        }
      }
      launch.name = demangle(launch.mangled_name.empty() ? nullptr : launch.mangled_name.c_str(), "(unknown kernel)");
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
  } else if (graph_profiling_ == "graph") {
    graph.whole_reason = "--graph-profiling graph";
  } else {
    // The exec knows its nodes only by the app's graph's node handles: a clone's handles were
    // refused by cuGraphNodeGetEnabled on an H100, also after cuGraphExecUpdate with the clone.
    const auto probe =
        std::find_if(graph.nodes.begin(), graph.nodes.end(), [](const GraphNode& n) { return runnable_alone(n.type); });
    if (probe == graph.nodes.end() || backend_.exec_knows_node(exec, probe->handle)) {
      handles = "the app's graph";  // kept alive if the app destroys it (kept_graphs.cpp)
      graph.per_node = true;
    } else {
      graph.whole_reason = "the driver refused its node handles";
    }
  }
  LIMITER_TRACE("graph exec %u: %zu nodes, %zu kernels, %s (handles: %s)", graph_exec_id, graph.nodes.size(),
                graph.kernel_count, graph.per_node ? "per node" : ("one range: " + graph.whole_reason).c_str(),
                handles);
  execs_[exec] = std::move(graph);
}

// The driver destroys an app's graph that was not kept (kept_graphs.cpp): execs that use its node
// handles fall back to one range per launch.
void GraphExecs::source_destroyed(CUgraph graph) {
  kept_.erase(graph);
  for (auto& [exec, known] : execs_) {
    if (known.source != graph) continue;
    LIMITER_TRACE("graph exec %llu: the app destroys its graph", static_cast<unsigned long long>(known.graph_id));
    known.source = nullptr;
    if (known.per_node && known.nodes.size() > 0 &&
        std::any_of(known.nodes.begin(), known.nodes.end(),
                    [](const GraphNode& n) { return runnable_alone(n.type); })) {
      known.per_node = false;
      known.whole_reason = "the app destroyed the graph it was instantiated from, and with it the node handles";
    }
  }
}

GraphExec* GraphExecs::find(CUgraphExec exec) {
  auto it = execs_.find(exec);
  return it == execs_.end() ? nullptr : &it->second;
}

CUgraphExec GraphExecs::exec_of(const GraphExec& graph) const {
  const auto it =
      std::find_if(execs_.begin(), execs_.end(), [&](const auto& entry) { return &entry.second == &graph; });
  return it == execs_.end() ? nullptr : it->first;
}

bool GraphExecs::needed(CUgraph source) const {
  return std::any_of(execs_.begin(), execs_.end(),
                     [&](const auto& entry) { return entry.second.source == source && entry.second.per_node; });
}

// A kept graph no exec needs any more is released once the destroy call returns, outside the
// driver's own destruction.
void GraphExecs::exec_destroying(CUgraphExec exec) {
  auto it = execs_.find(exec);
  if (it == execs_.end()) return;
  const CUgraph source = it->second.source;
  execs_.erase(it);
  if (!kept_.count(source)) return;
  const bool still_used =
      std::any_of(execs_.begin(), execs_.end(), [&](const auto& entry) { return entry.second.source == source; });
  if (still_used) return;
  kept_.erase(source);
  released_.push_back(source);
}

std::vector<CUgraph> GraphExecs::take_released() {
  std::vector<CUgraph> out;
  out.swap(released_);
  return out;
}

void GraphExecs::enable_runnable_nodes(const GraphExec& graph) {
  const CUgraphExec exec = exec_of(graph);
  if (!exec) return;
  for (const auto& node : graph.nodes)
    if (runnable_alone(node.type)) backend_.set_node_enabled(exec, node.handle, true);
}

}  // namespace limiter::detail
