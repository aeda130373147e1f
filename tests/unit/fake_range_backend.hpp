#pragma once
// A RangeBackend without a GPU (collect/range/range_backend.hpp), for the RangeSession's unit tests.
// It plays the driver and the Range Profiler as the session uses them: a kernel that runs
// (run_kernel) while a profiler is started in auto range becomes a range; in user range a
// push/pop pair does. Ranges become readable at decode(). Each range's counters say which range
// it was ("fake__range_index", counting from 0 over the whole test) and a duration, so a test
// can tell which launch got which range. Calls are counted; Start can be made to fail as busy.
// CUDA graphs as the driver holds them (add_graph, instantiate): launching an exec runs its
// enabled nodes in order, each kernel node a kernel; the kernels that ran are listed.
#include <cupti.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "collect/cupti/cupti_check.hpp"
#include "collect/range/range_backend.hpp"
#include "limiter/error.hpp"

namespace limiter::test {

struct FakeRange {
  std::string name;     // user range: the pushed name; auto range: empty
  std::uint64_t index;  // over the whole test, in the order the ranges were made
};

class FakeRangeBackend final : public detail::RangeBackend {
 public:
  // The plan's passes (above 1: kernel replay), and Starts to refuse as busy before one works.
  std::size_t passes = 1;
  int busy_starts = 0;
  std::set<CUstream> capturing;
  // A device without some counter of the plan (MIG, vGPU): SetConfig fails unless the config
  // was built with the device's counter availability.
  bool lacks_a_counter = false;
  // Failures: a device the range profiler does not support (the reason), ranges dropped at the
  // next decode (the image was full), pushes and decodes that fail.
  std::string unsupported;
  std::size_t drop_at_decode = 0;
  int failing_pushes = 0;
  bool failing_decodes = false;
  std::string failing_config;  // the config image refused with this (an InputError)

  // The device's set-up, which may run on a preparer thread (device_preparer.hpp): counted, and
  // held at the support check while hold_support_check is set. The context current on this
  // thread (current_context), for a region that begins.
  std::atomic<int> support_checks{0}, descriptions{0}, config_images{0};
  std::atomic<bool> hold_support_check{false};
  CUcontext current = nullptr;

  // Calls, for the tests to count.
  // Atomic: a start ahead makes its calls on the preparer's thread while a test polls them.
  std::atomic<int> enables{0}, starts{0}, stops{0}, disables{0}, decodes{0}, pushes{0}, context_syncs{0};
  std::atomic<int> set_ups{0};       // counter_host calls: one per context set up (and per config built again)
  std::atomic<int> uuid_queries{0};  // the counters' lock is looked up by the device's UUID
  int availability_queries = 0;
  // --cache-control all: flushes, and pushes that came right after one (the launch's own range).
  int l2_flushes = 0, l2_releases = 0, pushes_after_flush = 0;

  // What the driver does when a launch's ENTER has returned: the kernel runs.
  void run_kernel(CUcontext context) {
    auto it = started_.find(context);
    if (it == started_.end() || !it->second.running || it->second.user_range) return;
    it->second.recorded.push_back({"", next_range_++});
  }

  CUdevice device_of(CUcontext) override { return 0; }
  std::string device_uuid(CUdevice) override {
    ++uuid_queries;
    return "GPU-fake";
  }
  void check_supported(CUdevice) override {
    ++support_checks;
    while (hold_support_check.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (!unsupported.empty()) throw SystemError(unsupported);
  }
  DeviceDescription describe(CUdevice) override {
    ++descriptions;
    DeviceDescription device;
    device.name = "Fake H100";
    device.chip = "GH100";
    device.sm_count = 132;
    return device;
  }
  std::vector<std::uint8_t> counter_availability(CUcontext) override {
    ++availability_queries;
    return {1, 2, 3};
  }

  class Host final : public detail::CounterHost {
   public:
    Host(FakeRangeBackend& backend, bool availability) : backend_(backend), availability_(availability) {}
    // The config says whether it was built knowing the device's counter availability.
    std::vector<std::uint8_t> config_image(const std::vector<std::string>&) override {
      ++backend_.config_images;
      if (!backend_.failing_config.empty()) throw InputError(backend_.failing_config);
      return {static_cast<std::uint8_t>(availability_ ? 8 : 7)};
    }
    std::size_t pass_count(std::vector<std::uint8_t>&) override { return backend_.passes; }
    std::size_t range_count(const std::vector<std::uint8_t>& image) override { return backend_.decoded(image).size(); }
    std::optional<std::string> range_name(const std::vector<std::uint8_t>& image, std::size_t range) override {
      const auto& ranges = backend_.decoded(image);
      if (range >= ranges.size() || ranges[range].name.empty()) return std::nullopt;
      return ranges[range].name;
    }
    std::vector<double> evaluate(const std::vector<std::uint8_t>& image, std::size_t range,
                                 const std::vector<std::string>& metrics) override {
      const auto& r = backend_.decoded(image).at(range);
      std::vector<double> values;
      for (const auto& metric : metrics) {
        if (metric == "gpu__time_duration.sum")
          values.push_back(1000.0 * static_cast<double>(r.index + 1));
        else if (metric == "fake__range_index")
          values.push_back(static_cast<double>(r.index));
        else
          values.push_back(std::nan(""));
      }
      return values;
    }

   private:
    FakeRangeBackend& backend_;
    bool availability_;
  };

  std::unique_ptr<detail::CounterHost> counter_host(const std::string&,
                                                    const std::vector<std::uint8_t>& availability) override {
    ++set_ups;
    return std::make_unique<Host>(*this, !availability.empty());
  }

  detail::RangeObject* enable(CUcontext context) override {
    ++enables;
    objects_[++next_object_] = context;
    return reinterpret_cast<detail::RangeObject*>(next_object_);
  }
  std::size_t counter_data_size(detail::RangeObject*, const std::vector<std::string>&, std::size_t) override {
    return 64;
  }
  void initialize_image(detail::RangeObject*, std::vector<std::uint8_t>& image) override {
    images_[image.data()].clear();
  }
  void set_config(detail::RangeObject* object, const detail::RangeConfig& config) override {
    if (lacks_a_counter && config.config->at(0) != 8)
      throw detail::CuptiError("cuptiRangeProfilerSetConfig: invalid parameter", CUPTI_ERROR_INVALID_PARAMETER);
    auto& state = started_[objects_.at(id(object))];
    state.image = config.image->data();
    state.user_range = config.user_range;
  }
  void start(detail::RangeObject* object) override {
    if (busy_starts > 0) {
      --busy_starts;
      throw detail::CuptiError("cuptiRangeProfilerStart: busy", CUPTI_ERROR_HARDWARE_BUSY);
    }
    auto& state = started_[objects_.at(id(object))];
    if (state.running)
      throw detail::CuptiError("cuptiRangeProfilerStart: already started", CUPTI_ERROR_INVALID_OPERATION);
    ++starts;
    state.running = true;
  }
  void stop(detail::RangeObject* object) override {
    auto& state = started_[objects_.at(id(object))];
    if (!state.running) throw detail::CuptiError("cuptiRangeProfilerStop: not started", CUPTI_ERROR_INVALID_OPERATION);
    ++stops;
    state.running = false;
  }
  void push_range(detail::RangeObject* object, const std::string& name) override {
    if (failing_pushes > 0) {
      --failing_pushes;
      throw detail::CuptiError("cuptiRangeProfilerPushRange: invalid parameter", CUPTI_ERROR_INVALID_PARAMETER);
    }
    auto& state = started_[objects_.at(id(object))];
    if (!state.running)
      throw detail::CuptiError("cuptiRangeProfilerPushRange: not started", CUPTI_ERROR_INVALID_OPERATION);
    ++pushes;
    if (flush_pending_) ++pushes_after_flush;
    flush_pending_ = false;
    state.open_name = name;
  }
  void pop_range(detail::RangeObject* object) override {
    auto& state = started_[objects_.at(id(object))];
    if (!state.running)
      throw detail::CuptiError("cuptiRangeProfilerPopRange: not started", CUPTI_ERROR_INVALID_OPERATION);
    state.recorded.push_back({state.open_name, next_range_++});
  }
  std::size_t decode(detail::RangeObject* object) override {
    ++decodes;
    if (failing_decodes) throw detail::CuptiError("cuptiRangeProfilerDecodeData: unknown", CUPTI_ERROR_UNKNOWN);
    auto& state = started_[objects_.at(id(object))];
    auto& image = images_[state.image];
    const std::size_t dropped = std::min(drop_at_decode, state.recorded.size());
    drop_at_decode = 0;
    image.insert(image.end(), state.recorded.begin(), state.recorded.end() - static_cast<std::ptrdiff_t>(dropped));
    state.recorded.clear();
    return dropped;
  }
  void disable(detail::RangeObject* object) noexcept override {
    ++disables;
    started_.erase(objects_[id(object)]);
    objects_.erase(id(object));
  }

  detail::KernelAttributes kernel_attributes(CUfunction) override { return {32, 0, 0}; }
  void load_function(CUfunction) override {}
  bool stream_capturing(CUstream stream) override { return capturing.count(stream) > 0; }
  std::uint64_t stream_id(CUstream stream) override { return reinterpret_cast<std::uintptr_t>(stream); }
  std::uint64_t context_id(CUcontext context) override { return reinterpret_cast<std::uintptr_t>(context); }
  CUcontext current_context() override { return current; }
  void push_context(CUcontext) override {}
  void pop_context() override {}
  void synchronize_context(CUcontext) override { ++context_syncs; }
  void synchronize_stream(CUstream, bool) override {}
  void flush_l2(CUcontext, CUstream, bool) override {
    ++l2_flushes;
    flush_pending_ = true;
  }
  void release_l2_flush(CUcontext) noexcept override { ++l2_releases; }

  // Graphs. Nodes of type KERNEL run the kernel named; others (memset, host...) run nothing.
  struct GraphNodeSpec {
    CUgraphNodeType type = CU_GRAPH_NODE_TYPE_KERNEL;
    std::string kernel;
  };
  bool refuse_node_handles = false;  // cuGraphNodeGetEnabled refuses the graph's handles
  bool refuse_disable = false;       // cuGraphNodeSetEnabled refuses to turn a node off
  int graph_launches = 0, graphs_created = 0, graphs_destroyed = 0;
  std::vector<std::string> kernels_ran;  // graph kernels, in the order they ran

  // An app's graph, its nodes in a chain (each depends on the one before).
  CUgraph add_graph(const std::vector<GraphNodeSpec>& nodes) {
    const CUgraph graph = handle<CUgraph>();
    auto& entry = graphs_[graph];
    for (const auto& spec : nodes) entry.push_back({handle<CUgraphNode>(), spec});
    return graph;
  }
  CUgraphExec instantiate(CUgraph graph, CUcontext context) {
    const CUgraphExec exec = handle<CUgraphExec>();
    auto& entry = execs_[exec];
    entry.context = context;
    for (const auto& node : graphs_.at(graph)) entry.nodes.push_back({node.handle, node.spec, true});
    return exec;
  }
  // The driver destroys a graph (the app's cuGraphDestroy, after its ENTER callback).
  void driver_destroys(CUgraph graph) { graphs_.erase(graph); }
  bool graph_exists(CUgraph graph) const { return graphs_.count(graph) > 0; }
  // The driver runs an exec (the app's launch, or ours): its enabled nodes, in order.
  CUresult run_graph(CUgraphExec exec) {
    auto& entry = execs_.at(exec);
    for (const auto& node : entry.nodes) {
      if (!node.enabled || node.spec.type != CU_GRAPH_NODE_TYPE_KERNEL) continue;
      kernels_ran.push_back(node.spec.kernel);
      run_kernel(entry.context);
    }
    return CUDA_SUCCESS;
  }

  std::optional<detail::GraphTopology> graph_topology(CUgraph graph) override {
    const auto it = graphs_.find(graph);
    if (it == graphs_.end()) return std::nullopt;
    detail::GraphTopology topology;
    for (std::size_t i = 0; i < it->second.size(); ++i) {
      topology.nodes.push_back(it->second[i].handle);
      if (i > 0) topology.edges.emplace_back(it->second[i - 1].handle, it->second[i].handle);
    }
    return topology;
  }
  CUgraphNodeType node_type(CUgraphNode node) override { return spec_of(node).type; }
  std::optional<detail::GraphKernelNode> kernel_node(CUgraphNode node) override {
    detail::GraphKernelNode kernel;
    kernel.mangled_name = spec_of(node).kernel;
    kernel.grid = {4, 1, 1};
    kernel.block = {64, 1, 1};
    kernel.function = reinterpret_cast<CUfunction>(std::hash<std::string>{}(kernel.mangled_name) | 1);
    return kernel;
  }
  bool exec_knows_node(CUgraphExec exec, CUgraphNode node) override {
    if (refuse_node_handles) return false;
    for (const auto& n : execs_.at(exec).nodes)
      if (n.handle == node) return true;
    return false;
  }
  CUresult set_node_enabled(CUgraphExec exec, CUgraphNode node, bool enabled) override {
    if (refuse_disable && !enabled) return CUDA_ERROR_INVALID_VALUE;
    for (auto& n : execs_.at(exec).nodes)
      if (n.handle == node) n.enabled = enabled;
    return CUDA_SUCCESS;
  }
  CUresult launch_graph(CUgraphExec exec, CUstream, bool) override {
    ++graph_launches;
    return run_graph(exec);
  }
  CUgraph create_empty_graph() override {
    ++graphs_created;
    const CUgraph graph = handle<CUgraph>();
    graphs_[graph];
    return graph;
  }
  void destroy_graph(CUgraph graph) override {
    ++graphs_destroyed;
    graphs_.erase(graph);
  }

 private:
  struct Started {
    const std::uint8_t* image = nullptr;
    bool running = false, user_range = false;
    std::string open_name;
    std::vector<FakeRange> recorded;  // run, not yet decoded
  };
  static std::uintptr_t id(detail::RangeObject* object) { return reinterpret_cast<std::uintptr_t>(object); }
  const std::vector<FakeRange>& decoded(const std::vector<std::uint8_t>& image) { return images_[image.data()]; }

  struct Node {
    CUgraphNode handle;
    GraphNodeSpec spec;
    bool enabled = true;
  };
  struct Exec {
    CUcontext context = nullptr;
    std::vector<Node> nodes;
  };
  template <typename Handle>
  Handle handle() {
    return reinterpret_cast<Handle>(++next_handle_ * 0x100);
  }
  const GraphNodeSpec& spec_of(CUgraphNode node) const {
    for (const auto& [graph, nodes] : graphs_)
      for (const auto& n : nodes)
        if (n.handle == node) return n.spec;
    for (const auto& [exec, entry] : execs_)
      for (const auto& n : entry.nodes)
        if (n.handle == node) return n.spec;
    throw std::out_of_range("no such graph node");
  }

  std::uintptr_t next_handle_ = 0x1000;
  std::map<CUgraph, std::vector<Node>> graphs_;
  std::map<CUgraphExec, Exec> execs_;
  std::uintptr_t next_object_ = 0;
  std::uint64_t next_range_ = 0;
  bool flush_pending_ = false;
  std::map<std::uintptr_t, CUcontext> objects_;
  std::map<CUcontext, Started> started_;
  std::map<const std::uint8_t*, std::vector<FakeRange>> images_;
};

}  // namespace limiter::test
