#pragma once
// The RangeSession's values: its constants, a launch waiting for its range, the executable
// graphs it knows, one context's profiler (range_session.hpp).
#include <cuda.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "collect/clock.hpp"
#include "collect/demangle.hpp"
#include "collect/range/range_backend.hpp"
#include "limiter/record.hpp"

namespace limiter::detail {

// Ranges one counter-data image holds before it is evaluated, kept (raw) and re-initialised.
// With user replay it is also the batch between two Stop/Start pairs, and Start costs ~44 ms
// per batch on an H200 while CUPTI holds ~1.5 MB of host memory per range slot. Measured with
// 2,000 launches (bench/results/2026-11-22-h200-collector-overhead.md): 64 slots 1.98 ms per
// launch and 372 MB RSS, 128 slots 1.36 ms and 472 MB, 256 slots 1.12 ms and 669 MB.
constexpr std::size_t kDefaultRangesPerImage = 128;

// A completed launch waits at most this long in a user-replay batch while the app keeps
// launching without synchronising: what a SIGKILL can take away is bounded.
constexpr auto kMaxBatchAge = std::chrono::seconds(1);

// In user-range mode, a run of unselected launches pauses the profiler only once it lasted this
// long (and kPauseAfterUnselected launches): unselected launches cost ~9 us there, a resume
// for a kernel first seen later ~100-270 ms.
constexpr auto kMinUnselectedRun = std::chrono::milliseconds(500);

// A busy GPU (another tool holds its counters) is tried again this often.
// Within a turn, a busy Start is tried kBusyAttempts times, backing off from 5 ms (~155 ms).
constexpr auto kBusyRetry = std::chrono::milliseconds(250);
constexpr int kBusyAttempts = 6;

struct PendingLaunch {
  KernelLaunch launch;  // metadata; counters are added when its range is decoded
  bool keep = false;    // selected by the filters (others are decoded and dropped)
  // An empty user range (push, pop, nothing between): the profiler's own work in a range
  // (user_range_time.hpp), not a launch of the record.
  bool measures_range_work = false;
  // The app's launch call that issued it (CUPTI's correlation id; 0: none, as our own replay's):
  // the activity timeline joins its kernel record by it (activity_session.hpp).
  std::uint32_t correlation_id = 0;
};

// What a launch callback needs of its function, worked out once per function and context:
// demangling a PyTorch template name takes microseconds, and every launch asks (unselected ones
// included, so this is the per-launch cost of a run under a budget once its steps are profiled).
struct KernelInfo {
  std::string mangled_name, name;
  KernelAttributes resources;
};

// One node of an executable graph, in a topological order of the graph (graph_replay.cpp).
struct GraphNode {
  CUgraphNode handle = nullptr;  // identifies the node in the exec (cuGraphNodeSetEnabled)
  CUgraphNodeType type{};
  std::uint64_t index = 0;             // position in the topological order: graph_node in the record
  std::optional<KernelLaunch> kernel;  // kernel nodes: name, grid, block, resources from the node's parameters
};

// What the collector knows of an executable graph, from its instantiation.
struct GraphExec {
  std::uint64_t graph_id = 0;    // CUPTI's graph-exec ID
  std::vector<GraphNode> nodes;  // topological order
  std::size_t kernel_count = 0;
  CUgraph source = nullptr;  // the app's graph, whose node handles identify the exec's nodes
  // Every node can run on its own (kernel, memset, memcpy, empty nodes; usable handles): a
  // selected launch runs node by node, each kernel in its own range. Otherwise the launch is
  // one range, and this says why.
  bool per_node = false;
  std::string whole_reason;
};

struct ContextProfiler;

// A launch between its ENTER and EXIT callbacks, for EXIT to finish (user ranges, graphs).
struct LaunchInFlight {
  ContextProfiler* profiler = nullptr;
  CUstream stream = nullptr;
  bool per_thread_stream = false;
  GraphExec* graph = nullptr;
  bool nodes_disabled = false;    // per node: the app's own launch ran with them off; EXIT turns them on
  bool range_open = false;        // a user range around the app's launch: EXIT closes it
  bool sync_before_pop = false;   // and waits for the launch's stream first
  std::size_t pending_index = 0;  // the range's launch in the batch (dropped if the launch fails)
};

// When a user range is closed (user_ranges.cpp): at once, PopRange being ordered after the
// launch's work on the GPU, or after a stream synchronise (for graph ranges, or all ranges).
enum class RangeSync { none, graph, all };
RangeSync range_sync_of(const std::string& name);  // CollectorOptions::range_sync

// A graph node cuGraphNodeSetEnabled accepts (kernel, memset, memcpy): it can run on its own.
bool runnable_alone(CUgraphNodeType type);

// In user-range mode: the place in the batch of the launch a range was pushed for (its name).
std::optional<std::size_t> user_range_index(CounterHost& host, const std::vector<std::uint8_t>& image,
                                            std::size_t range);

// Why launches could not be profiled, with the fix: the reasons a record's "missed" list names.
enum class MissReason {
  counters_busy,
  lock_timeout,
  set_up_failed,
  not_ranged,
  dropped,
  error,
  process_ended,
  graph_unknown,  // a graph instantiated before the session subscribed: its kernel nodes are not known
};

// One profiled context: its range profiler and counter-data image.
struct ContextProfiler {
  CUcontext context = nullptr;
  CUdevice device = 0;
  std::string device_uuid;
  DeviceDescription description;
  std::vector<std::uint8_t> availability, config, image;
  bool availability_checked = false;  // the config built again with the device's counter availability
  std::unique_ptr<CounterHost> host;
  RangeObject* profiler = nullptr;
  std::size_t passes = 1;
  bool user_replay = false;      // one pass (not --replay kernel): ranges decoded in batches, at Stop
  bool user_range = false;       // user replay in user-range mode: a range pushed per launch and per graph node
  bool graphs_launched = false;  // a graph was launched under user replay: user range from then on
  std::size_t ranges_per_image = kDefaultRangesPerImage;
  std::size_t ranges_consumed = 0;  // ranges of `image` already evaluated
  std::size_t images_written = 0;
  std::deque<PendingLaunch> pending;
  Clock::time_point oldest_pending{};  // when the batch's first launch was made
  // User-range mode: the engine's active time in the shortest empty range so far, taken out of
  // the launches' times (user_range_time.hpp); one empty range per batch.
  std::optional<double> range_work_ns;
  bool paused = false;  // disabled between profiled regions or turns: launches run at full speed
  // User replay: the last batch stopped and decoded, the profiler enabled but not started; the
  // next launch it ranges starts it (RangeBatches::start). A flush pays no Start for launches that may
  // never come: a budget run's steps after its kernels are profiled.
  bool stopped = false;
  // Started ahead (RangeSession::start_ahead) and no launch ranged yet: to the launches it is
  // not running, as before it existed (no pause after unselected launches, no phase end).
  bool fresh = false;
  bool retired = false;            // disabled for good (--launch-count reached, context destroyed)
  Clock::time_point busy_until{};  // another tool held the counters at the last Start
};

// A context whose profiler could not start, and whether to try again.
struct FailedContext {
  MissReason reason = MissReason::set_up_failed;
  std::string detail;
  Clock::time_point retry_at = Clock::time_point::max();  // busy counters: tried again later
};

}  // namespace limiter::detail
