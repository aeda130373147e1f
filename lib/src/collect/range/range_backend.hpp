#pragma once
// The seam between the RangeSession and CUPTI: every Range Profiler, Profiler Host and driver
// call the exact mode makes, in plain values. cupti_range_backend.cpp makes the real calls;
// unit tests give a fake (tests/unit/fake_range_backend.hpp) and so drive the session's logic —
// budgets, batches, pauses, turns, flushes, missed launches, graphs node by node — without a
// GPU (kineto's way).
#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "limiter/record.hpp"

namespace limiter::detail {

// The host side of one context: its config image and the evaluation of its counter-data
// images (the Profiler Host API, detail::ProfilerHost).
class CounterHost {
 public:
  virtual ~CounterHost() = default;
  virtual std::vector<std::uint8_t> config_image(const std::vector<std::string>& metrics) = 0;
  virtual std::size_t pass_count(std::vector<std::uint8_t>& config) = 0;
  virtual std::size_t range_count(const std::vector<std::uint8_t>& image) = 0;
  // A user range's name ("7": the launch's place in its batch); nothing where it has none.
  virtual std::optional<std::string> range_name(const std::vector<std::uint8_t>& image, std::size_t range) = 0;
  // Metric values of one range; NaN where the image lacks the counters.
  virtual std::vector<double> evaluate(const std::vector<std::uint8_t>& image, std::size_t range,
                                       const std::vector<std::string>& metrics) = 0;
};

// A kernel's resources (cuFuncGetAttribute), asked once per function handle.
struct KernelAttributes {
  int registers = 0;
  int static_shared = 0;
  int local = 0;
};

// How a range profiler object is configured before Start.
struct RangeConfig {
  const std::vector<std::uint8_t>* config = nullptr;
  std::vector<std::uint8_t>* image = nullptr;
  bool user_range = false;   // ranges pushed and popped by us; else one per kernel (auto range)
  bool user_replay = false;  // one pass, decoded at Stop; else kernel replay
  std::size_t ranges_per_pass = 0;
};

// A range profiler object (CUPTI's CUpti_RangeProfiler_Object), opaque to the session.
struct RangeObject;

// An app's CUDA graph: its nodes in the driver's order, and its edges (from, to).
struct GraphTopology {
  std::vector<CUgraphNode> nodes;
  std::vector<std::pair<CUgraphNode, CUgraphNode>> edges;
};

// A kernel node's launch as its parameters give it.
struct GraphKernelNode {
  std::string mangled_name;  // empty when the driver does not name its function
  Dim3 grid, block;
  unsigned dynamic_shared_bytes = 0;
  CUfunction function = nullptr;  // its function (or kernel) handle, for its resources
};

// Failures throw CuptiError (cupti_check.hpp); CUPTI_ERROR_HARDWARE_BUSY means another tool or
// process holds the counters, and is retried.
class RangeBackend {
 public:
  virtual ~RangeBackend() = default;

  // A context's device, its UUID text (counter_lock.hpp), whether the range profiler supports
  // it (throws SystemError naming why not), and its description for the record.
  virtual CUdevice device_of(CUcontext context) = 0;
  virtual std::string device_uuid(CUdevice device) = 0;
  virtual void check_supported(CUdevice device) = 0;
  virtual DeviceDescription describe(CUdevice device) = 0;
  // The counter-availability image; empty when it cannot be had (profiling works without it).
  virtual std::vector<std::uint8_t> counter_availability(CUcontext context) = 0;
  virtual std::unique_ptr<CounterHost> counter_host(const std::string& chip,
                                                    const std::vector<std::uint8_t>& availability) = 0;

  virtual RangeObject* enable(CUcontext context) = 0;
  virtual std::size_t counter_data_size(RangeObject* object, const std::vector<std::string>& metrics,
                                        std::size_t ranges) = 0;
  virtual void initialize_image(RangeObject* object, std::vector<std::uint8_t>& image) = 0;
  virtual void set_config(RangeObject* object, const RangeConfig& config) = 0;
  virtual void start(RangeObject* object) = 0;
  virtual void stop(RangeObject* object) = 0;
  virtual void push_range(RangeObject* object, const std::string& name) = 0;
  virtual void pop_range(RangeObject* object) = 0;
  // The ranges run so far written into the image; returns how many CUPTI dropped (image full).
  virtual std::size_t decode(RangeObject* object) = 0;
  virtual void disable(RangeObject* object) noexcept = 0;

  // A launch's function: its resources; its module loaded now (lazy loading would put the load
  // inside the launch's range). Launch facts the record keeps: stream and context IDs.
  virtual KernelAttributes kernel_attributes(CUfunction function) = 0;
  virtual void load_function(CUfunction function) = 0;
  virtual bool stream_capturing(CUstream stream) = 0;  // a launch into it is not an execution
  virtual std::uint64_t stream_id(CUstream stream) = 0;
  virtual std::uint64_t context_id(CUcontext context) = 0;

  // The calling thread's current context; nullptr where it has none.
  virtual CUcontext current_context() = 0;
  // Makes a context current on this thread (a thread of ours that has none), and back.
  virtual void push_context(CUcontext context) = 0;
  virtual void pop_context() = 0;
  // Waits for a context's work (made current for the call) or a stream's.
  virtual void synchronize_context(CUcontext context) = 0;
  virtual void synchronize_stream(CUstream stream, bool per_thread_stream) = 0;

  // Graphs profiled node by node (graph_replay.cpp, kept_graphs.cpp). A graph's topology
  // (nothing when it cannot be listed), a node's type and kernel parameters (nothing when the
  // driver refuses them); whether an exec knows a node by this handle (cuGraphNodeGetEnabled).
  virtual std::optional<GraphTopology> graph_topology(CUgraph graph) = 0;
  virtual CUgraphNodeType node_type(CUgraphNode node) = 0;
  virtual std::optional<GraphKernelNode> kernel_node(CUgraphNode node) = 0;
  virtual bool exec_knows_node(CUgraphExec exec, CUgraphNode node) = 0;
  virtual CUresult set_node_enabled(CUgraphExec exec, CUgraphNode node, bool enabled) = 0;
  virtual CUresult launch_graph(CUgraphExec exec, CUstream stream, bool per_thread_stream) = 0;
  // An empty graph of ours (nullptr when the driver refuses one), and a graph destroyed.
  virtual CUgraph create_empty_graph() = 0;
  virtual void destroy_graph(CUgraph graph) = 0;

  // --cache-control all: L2 emptied of the app's data before the next work on STREAM (the
  // context current), waited for (l2_flush.hpp); and the context's flush kernel and buffer freed.
  virtual void flush_l2(CUcontext context, CUstream stream, bool per_thread_stream) = 0;
  virtual void release_l2_flush(CUcontext context) noexcept = 0;
};

// The real one: CUPTI and the driver.
std::unique_ptr<RangeBackend> cupti_range_backend();

}  // namespace limiter::detail
