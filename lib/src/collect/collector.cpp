// The collector (CUPTI.md §0–§3): one CUPTI subscriber; per context a Range Profiler in auto
// range mode, started once and decoded after every launch (never Start/Stop per launch: that
// drops kernels on other streams and corrupted application memory on an H200); launch
// metadata from driver-domain callbacks; values evaluated on the host at once.
#include "limiter/collector.hpp"

#include <cupti.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <cxxabi.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <ctime>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>

#include "collect/collector_internal.hpp"
#include "collect/cupti_check.hpp"
#include "collect/driver_api.hpp"
#include "collect/launch_selector.hpp"
#include "collect/profiler_host.hpp"
#include "limiter/error.hpp"
#include "limiter/metric_plans.hpp"
#include "limiter/record_json.hpp"

namespace limiter {
namespace {

using detail::driver_api;
using detail::ProfilerHost;

// Ranges one counter-data image holds before it is evaluated, kept (raw) and re-initialised.
// With user replay it is also the batch between two Stop/Start pairs, and Start costs ~44 ms
// per batch on an H200 while CUPTI holds ~1.5 MB of host memory per range slot. Measured with
// 2,000 launches (bench/results/2026-11-22-h200-collector-overhead.md): 64 slots 1.98 ms per
// launch and 372 MB RSS, 128 slots 1.36 ms and 472 MB, 256 slots 1.12 ms and 669 MB.
constexpr std::size_t kDefaultRangesPerImage = 128;

std::string demangle(const char* mangled) {
  if (!mangled) return "(unknown kernel)";
  int status = 0;
  char* readable = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string name = (status == 0 && readable) ? readable : mangled;
  std::free(readable);
  return name;
}

struct PendingLaunch {
  KernelLaunch launch;  // metadata; counters are added when its range is decoded
  bool keep = false;    // selected by the filters (others are decoded and dropped)
};

// Kernel attributes, asked once per function handle.
struct KernelAttributes {
  int registers = 0;
  int static_shared = 0;
  int local = 0;
};

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct GraphKernel {
  KernelLaunch launch;  // name, grid, block, shared from the node's parameters
};

}  // namespace

// One profiled context: its range profiler and counter-data image.
struct ContextProfiler {
  CUcontext context = nullptr;
  CUdevice device = 0;
  DeviceDescription description;
  std::vector<std::uint8_t> availability, config, image;
  std::unique_ptr<ProfilerHost> host;
  CUpti_RangeProfiler_Object* profiler = nullptr;
  std::size_t passes = 1;
  bool user_replay = false;         // one pass, no graph yet: ranges are decoded in batches, at Stop
  std::size_t ranges_per_image = kDefaultRangesPerImage;
  std::size_t ranges_consumed = 0;  // ranges of `image` already evaluated
  std::size_t images_written = 0;
  std::deque<PendingLaunch> pending;
  bool paused = false;   // disabled between profiled regions: the app's launches run at full speed
  bool retired = false;  // disabled for good (--launch-count reached, context destroyed)
};

struct Collector::Impl {
  CollectorOptions options;
  std::vector<std::string> metrics;
  detail::LaunchSelector selector;
  CUpti_SubscriberHandle subscriber = nullptr;
  std::mutex mutex;  // held from a launch's ENTER callback to its EXIT, on the same thread
  std::map<CUcontext, std::unique_ptr<ContextProfiler>> contexts;
  std::set<CUcontext> failed_contexts;
  std::set<CUcontext> graph_contexts;  // contexts that build CUDA graphs: kernel replay from set-up
  std::map<void*, KernelAttributes> attributes;
  std::map<CUgraphExec, std::vector<GraphKernel>> graph_kernels;
  std::vector<KernelLaunch> completed;
  DeviceDescription last_device;
  std::uint64_t next_sequence = 0;
  std::uint64_t dropped_ranges = 0;
  std::uint64_t unattributed_ranges = 0;
  int active_depth = 0;
  std::string raw_dir;
  std::ofstream raw_launches;
  detail::LaunchSink sink;  // injection: each completed launch goes to disk at once
  CollectorTimings times;

  explicit Impl(const CollectorOptions& opts) : options(opts), selector(opts) {}

  bool active() const { return options.always_active || active_depth > 0; }

  ContextProfiler& context_profiler(CUcontext context);
  void set_up(ContextProfiler& profiler);
  void on_launch_enter(CUpti_CallbackId cbid, const CUpti_CallbackData& data);
  void on_launch_exit(const CUpti_CallbackData& data);
  void decode(ContextProfiler& profiler);
  void finish(ContextProfiler& profiler);
  void pause(ContextProfiler& profiler);
  void reinitialize_image(ContextProfiler& profiler);
  void enable_profiler(ContextProfiler& profiler);
  void configure_and_start(ContextProfiler& profiler);
  void flush_batch(ContextProfiler& profiler, bool restart = true);
  void disable_profiler(ContextProfiler& profiler);
  void start_profiler(ContextProfiler& profiler);
  void on_graph_work(CUcontext context);
  void keep_raw_image(ContextProfiler& profiler);
  void complete(ContextProfiler& profiler, PendingLaunch&& pending, std::size_t range);
  KernelAttributes attributes_of(CUfunction function, CUdevice device);
  void record_graph(const CUpti_GraphData& graph);
  void flush_all() {
    std::lock_guard lock(mutex);
    for (auto& [context, profiler] : contexts) flush_batch(*profiler);
  }
};

namespace {

thread_local bool holds_launch_lock = false;
thread_local bool inside_flush = false;  // set while flush_batch synchronises a context
thread_local Clock::time_point launch_call_start;  // when our ENTER callback handed back to the driver

// LIMITER_DEBUG=1 traces the collector's steps on stderr (for reports from new platforms).
const bool kTrace = std::getenv("LIMITER_DEBUG") != nullptr;
#define LIMITER_TRACE(...)                   \
  do {                                       \
    if (kTrace) {                            \
      std::fprintf(stderr, "limiter: ");     \
      std::fprintf(stderr, __VA_ARGS__);     \
      std::fprintf(stderr, "\n");            \
    }                                        \
  } while (0)

void CUPTIAPI on_callback(void* user, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  auto* impl = static_cast<Collector::Impl*>(user);
  try {
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
      const auto& call = *static_cast<const CUpti_CallbackData*>(data);
      if (cbid == CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize || cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize ||
          cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz) {
        // The app waits anyway: a good moment to decode a user-replay batch. Our own
        // cuCtxSynchronize (in flush_batch) comes back here: ignore it, or the lock deadlocks.
        if (call.callbackSite == CUPTI_API_EXIT && !holds_launch_lock && !inside_flush) impl->flush_all();
        return;
      }
      if (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate || cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate_v2 ||
          cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags ||
          cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams ||
          cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams_ptsz) {
        if (call.callbackSite == CUPTI_API_ENTER) impl->on_graph_work(call.context);
        return;
      }
      if (cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture || cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz ||
          cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2 ||
          cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz || cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphCreate) {
        if (call.callbackSite == CUPTI_API_ENTER) impl->on_graph_work(call.context);
        return;
      }
      if (call.callbackSite == CUPTI_API_ENTER) {
        impl->on_launch_enter(cbid, call);
      } else {
        impl->on_launch_exit(call);
      }
    } else if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
      const auto& resource = *static_cast<const CUpti_ResourceData*>(data);
      if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
        std::lock_guard lock(impl->mutex);
        auto it = impl->contexts.find(resource.context);
        if (it != impl->contexts.end()) impl->finish(*it->second);
      } else if (cbid == CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED) {
        std::lock_guard lock(impl->mutex);
        impl->record_graph(*static_cast<const CUpti_GraphData*>(resource.resourceDescriptor));
      }
    }
  } catch (const std::exception& e) {
    // A callback cannot throw into the driver: report once per failure and carry on unprofiled.
    std::fprintf(stderr, "limiter: profiling error: %s\n", e.what());
    if (holds_launch_lock && domain == CUPTI_CB_DOMAIN_DRIVER_API &&
        static_cast<const CUpti_CallbackData*>(data)->callbackSite == CUPTI_API_EXIT) {
      holds_launch_lock = false;
      impl->mutex.unlock();
    }
  }
}

constexpr CUpti_CallbackId kSyncCallbacks[] = {
    CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize,
    CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz};

constexpr CUpti_CallbackId kGraphCallbacks[] = {
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate,           CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate_v2,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags,  CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams_ptsz, CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz,    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz, CUPTI_DRIVER_TRACE_CBID_cuGraphCreate,
};

constexpr CUpti_CallbackId kLaunchCallbacks[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,           CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,         CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,            CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
};

}  // namespace

KernelAttributes Collector::Impl::attributes_of(CUfunction function, CUdevice device) {
  auto it = attributes.find(function);
  if (it != attributes.end()) return it->second;
  const auto& cu = driver_api();
  KernelAttributes result;
  auto get = [&](CUfunction_attribute attribute, int& value) {
    // Runtime launches pass a context-less CUkernel: cuFuncGetAttribute refuses it (400).
    if (cu.func_get_attribute(&value, attribute, function) != CUDA_SUCCESS)
      cu.kernel_get_attribute(&value, attribute, reinterpret_cast<CUkernel>(function), device);
  };
  get(CU_FUNC_ATTRIBUTE_NUM_REGS, result.registers);
  get(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, result.static_shared);
  get(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, result.local);
  attributes.emplace(function, result);
  return result;
}

void Collector::Impl::record_graph(const CUpti_GraphData& graph) {
  const auto& cu = driver_api();
  std::size_t count = 0;
  if (cu.graph_get_nodes(graph.graph, nullptr, &count) != CUDA_SUCCESS) return;
  std::vector<CUgraphNode> nodes(count);
  if (cu.graph_get_nodes(graph.graph, nodes.data(), &count) != CUDA_SUCCESS) return;
  std::vector<GraphKernel> kernels;
  for (CUgraphNode node : nodes) {
    CUgraphNodeType type{};
    if (cu.graph_node_get_type(node, &type) != CUDA_SUCCESS || type != CU_GRAPH_NODE_TYPE_KERNEL) continue;
    CUDA_KERNEL_NODE_PARAMS params{};
    GraphKernel kernel;
    if (cu.graph_kernel_node_get_params(node, &params) == CUDA_SUCCESS) {
      const char* name = nullptr;
      if (params.func && cu.func_get_name(&name, params.func) == CUDA_SUCCESS) kernel.launch.mangled_name = name;
      else if (params.kern && cu.kernel_get_name(&name, params.kern) == CUDA_SUCCESS) kernel.launch.mangled_name = name;
      kernel.launch.grid = {params.gridDimX, params.gridDimY, params.gridDimZ};
      kernel.launch.block = {params.blockDimX, params.blockDimY, params.blockDimZ};
      kernel.launch.dynamic_shared_bytes = params.sharedMemBytes;
    }
    kernel.launch.name = demangle(kernel.launch.mangled_name.empty() ? nullptr : kernel.launch.mangled_name.c_str());
    kernels.push_back(std::move(kernel));
  }
  graph_kernels[graph.graphExec] = std::move(kernels);
}

ContextProfiler& Collector::Impl::context_profiler(CUcontext context) {
  auto& slot = contexts[context];
  if (!slot) {
    slot = std::make_unique<ContextProfiler>();
    slot->context = context;
    try {
      set_up(*slot);
    } catch (...) {
      // Never retried: the app runs on unprofiled, and the error is reported once.
      contexts.erase(context);
      failed_contexts.insert(context);
      throw;
    }
  }
  return *slot;
}

void Collector::Impl::set_up(ContextProfiler& p) {
  LIMITER_TRACE("set up context %p", static_cast<void*>(p.context));
  const auto& cu = driver_api();
  // Not in the constructor: inside InitializeInjection the driver is still initialising, and
  // cuptiProfilerInitialize fails there with CUPTI_ERROR_UNKNOWN (seen on an H200).
  static const bool profiler_initialized = [] {
    CUpti_Profiler_Initialize_Params initialize{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    LIMITER_CUPTI_CHECK(cuptiProfilerInitialize(&initialize));
    return true;
  }();
  (void)profiler_initialized;
  if (cu.ctx_get_device(&p.device) != CUDA_SUCCESS) throw SystemError("cuCtxGetDevice failed in a launch callback");

  CUpti_Profiler_DeviceSupported_Params supported{CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE};
  supported.cuDevice = p.device;
  supported.api = CUPTI_PROFILER_RANGE_PROFILING;
  LIMITER_CUPTI_CHECK(cuptiProfilerDeviceSupported(&supported));
  if (supported.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
    std::string why;
    if (supported.architecture != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) why += " the architecture (needs Volta or newer);";
    if (supported.vGpu != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) why += " vGPU without profiling enabled;";
    if (supported.confidentialCompute != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) why += " confidential computing;";
    if (supported.cmp != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) why += " a CMP device;";
    if (supported.sli != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) why += " SLI;";
    if (supported.wsl != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) why += " WSL;";
    throw SystemError("this GPU cannot be profiled with the range profiler because of" + why +
                      " run on a supported, non-virtualised GPU");
  }

  // The device as the record describes it.
  char name[256] = {};
  cu.device_get_name(name, sizeof name, p.device);
  auto attribute = [&](CUdevice_attribute which) {
    int value = 0;
    cu.device_get_attribute(&value, which, p.device);
    return value;
  };
  p.description.name = name;
  p.description.arch = "sm_" + std::to_string(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)) +
                       std::to_string(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
  p.description.sm_count = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  p.description.memory_bus_width_bits = attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  p.description.l2_bytes = static_cast<std::uint64_t>(attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE));
  std::size_t total = 0;
  if (cu.device_total_mem(&total, p.device) == CUDA_SUCCESS) p.description.global_memory_bytes = total;

  CUpti_Device_GetChipName_Params chip{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  chip.deviceIndex = static_cast<std::size_t>(p.device);
  LIMITER_CUPTI_CHECK(cuptiDeviceGetChipName(&chip));
  p.description.chip = chip.pChipName;
  last_device = p.description;

  // The availability image lets the host API refuse counters this device cannot give (MIG,
  // vGPU); evaluation does not need it (CUPTI.md §6). Best effort: it has been seen to fail
  // with CUPTI_ERROR_HARDWARE_BUSY inside a launch callback, and profiling works without it.
  CUpti_Profiler_GetCounterAvailability_Params availability{CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
  availability.ctx = p.context;
  if (cuptiProfilerGetCounterAvailability(&availability) == CUPTI_SUCCESS) {
    p.availability.resize(availability.counterAvailabilityImageSize);
    availability.pCounterAvailabilityImage = p.availability.data();
    if (const CUptiResult status = cuptiProfilerGetCounterAvailability(&availability); status != CUPTI_SUCCESS) {
      LIMITER_TRACE("no counter availability image: %s", detail::cupti_error_text(status).c_str());
      p.availability.clear();
    }
  }

  LIMITER_TRACE("device %s chip %s, availability %zu bytes", p.description.name.c_str(), p.description.chip.c_str(),
                p.availability.size());
  p.host = std::make_unique<ProfilerHost>(p.description.chip, p.availability);
  p.config = p.host->config_image(metrics);
  p.passes = ProfilerHost::pass_count(p.config);

  p.ranges_per_image = options.ranges_per_image ? options.ranges_per_image : kDefaultRangesPerImage;
  start_profiler(p);
  if (!raw_dir.empty()) {
    detail::write_raw_context(raw_dir, p.description, metrics, p.passes, p.user_replay ? "user" : "kernel",
                              p.availability, p.config);
  }
  if (sink.on_device) sink.on_device(p.description);
}

void Collector::Impl::enable_profiler(ContextProfiler& p) {
  CUpti_RangeProfiler_Enable_Params enable{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
  enable.ctx = p.context;
  LIMITER_CUPTI_CHECK(cuptiRangeProfilerEnable(&enable));
  p.profiler = enable.pRangeProfilerObject;

  std::vector<const char*> names;
  for (const auto& metric : metrics) names.push_back(metric.c_str());
  CUpti_RangeProfiler_GetCounterDataSize_Params size{CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
  size.pRangeProfilerObject = p.profiler;
  size.pMetricNames = names.data();
  size.numMetrics = names.size();
  size.maxNumOfRanges = p.ranges_per_image;
  size.maxNumRangeTreeNodes = static_cast<std::uint32_t>(p.ranges_per_image);
  LIMITER_CUPTI_CHECK(cuptiRangeProfilerGetCounterDataSize(&size));
  p.image.assign(size.counterDataSize, 0);
  reinitialize_image(p);
}

void Collector::Impl::configure_and_start(ContextProfiler& p) {
  const auto started = Clock::now();
  CUpti_RangeProfiler_SetConfig_Params config{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
  config.pRangeProfilerObject = p.profiler;
  config.configSize = p.config.size();
  config.pConfig = p.config.data();
  config.counterDataImageSize = p.image.size();
  config.pCounterDataImage = p.image.data();
  config.range = CUPTI_AutoRange;
  config.replayMode = p.user_replay ? CUPTI_UserReplay : CUPTI_KernelReplay;
  config.maxRangesPerPass = p.ranges_per_image;
  config.numNestingLevels = 1;
  config.minNestingLevel = 1;
  config.passIndex = 0;
  config.targetNestingLevel = 1;
  LIMITER_CUPTI_CHECK(cuptiRangeProfilerSetConfig(&config));
  LIMITER_TRACE("config %zu bytes, %zu passes, image %zu bytes, %s replay", p.config.size(), p.passes, p.image.size(),
                p.user_replay ? "user" : "kernel");
  CUpti_RangeProfiler_Start_Params start{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
  start.pRangeProfilerObject = p.profiler;
  LIMITER_CUPTI_CHECK(cuptiRangeProfilerStart(&start));
  times.start_s += seconds_since(started);
}

// User replay: the ranges of a batch become readable once its pass is submitted by Stop.
// Waits for the context first, so no kernel of the batch is still running at Stop.
void Collector::Impl::flush_batch(ContextProfiler& p, bool restart) {
  if (p.retired || p.paused || !p.user_replay || (p.pending.empty() && restart)) return;
  LIMITER_TRACE("flush batch of %zu", p.pending.size());
  if (!p.pending.empty()) {
    const auto started = Clock::now();
    inside_flush = true;
    driver_api().ctx_synchronize();
    inside_flush = false;
    times.synchronize_s += seconds_since(started);
  }
  const auto started = Clock::now();
  CUpti_RangeProfiler_Stop_Params stop{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
  stop.pRangeProfilerObject = p.profiler;
  LIMITER_CUPTI_CHECK(cuptiRangeProfilerStop(&stop));
  times.stop_s += seconds_since(started);
  ++times.batches;
  decode(p);
  if (p.ranges_consumed > 0) {
    keep_raw_image(p);
    ++p.images_written;
    reinitialize_image(p);
  }
  if (restart) configure_and_start(p);
}

// Stops the context's profiler, decodes what it holds and disables it: the context's launches
// run unprofiled (and at full speed) until enable_profiler.
void Collector::Impl::disable_profiler(ContextProfiler& p) {
  if (p.user_replay) {
    flush_batch(p, /*restart=*/false);
  } else {
    CUpti_RangeProfiler_Stop_Params stop{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    stop.pRangeProfilerObject = p.profiler;
    if (cuptiRangeProfilerStop(&stop) == CUPTI_SUCCESS) decode(p);
    keep_raw_image(p);
    if (p.ranges_consumed > 0) ++p.images_written;
  }
  CUpti_RangeProfiler_Disable_Params disable{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
  disable.pRangeProfilerObject = p.profiler;
  const CUptiResult status = cuptiRangeProfilerDisable(&disable);
  p.profiler = nullptr;
  if (status != CUPTI_SUCCESS) LIMITER_TRACE("Disable: %s", detail::cupti_error_text(status).c_str());
}

// The replay mode follows the pass count. One pass needs no save/restore: user replay runs
// each kernel once and decodes batches at Stop (1.3-1.6 ms per launch on an H200, against ~52 ms
// with kernel replay; bench/results/). Several passes need kernel replay: CUPTI saves device
// memory and replays each kernel once per pass, decoding after every launch. So do contexts
// that build CUDA graphs: under user replay CUPTI does not range graph kernels.
void Collector::Impl::start_profiler(ContextProfiler& p) {
  p.user_replay = options.replay == "auto" && p.passes == 1 && graph_contexts.count(p.context) == 0;
  enable_profiler(p);
  configure_and_start(p);
  p.paused = false;
}

// Graph work is coming in this context (a capture or an instantiation, before any graph
// launch): from now on it needs kernel replay. Switching at the graph's launch is too late:
// on an H200 the graph's kernels then got no ranges and lost their results.
void Collector::Impl::on_graph_work(CUcontext context) {
  if (holds_launch_lock || inside_flush) return;
  std::lock_guard lock(mutex);
  if (!graph_contexts.insert(context).second) return;
  auto it = contexts.find(context);
  if (it == contexts.end() || it->second->retired || it->second->paused || !it->second->user_replay) return;
  LIMITER_TRACE("graph work: context %p goes on with kernel replay", static_cast<void*>(context));
  // A new profiler object: changing the replay mode of a started one crashed on an H200.
  disable_profiler(*it->second);
  start_profiler(*it->second);
}

void Collector::Impl::reinitialize_image(ContextProfiler& p) {
  const auto started = Clock::now();
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params init{
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
  init.pRangeProfilerObject = p.profiler;
  init.counterDataSize = p.image.size();
  init.pCounterData = p.image.data();
  LIMITER_CUPTI_CHECK(cuptiRangeProfilerCounterDataImageInitialize(&init));
  p.ranges_consumed = 0;
  times.image_init_s += seconds_since(started);
}

void Collector::Impl::keep_raw_image(ContextProfiler& p) {
  if (raw_dir.empty() || p.ranges_consumed == 0) return;
  detail::write_raw_image(raw_dir, p.images_written, p.image);
}

void Collector::Impl::on_launch_enter(CUpti_CallbackId cbid, const CUpti_CallbackData& data) {
  LIMITER_TRACE("launch enter cbid %u %s", static_cast<unsigned>(cbid), data.symbolName ? data.symbolName : "?");
  // Outside a profiled region the context's profiler is paused (disabled): nothing to follow.
  if (!active()) return;
  const auto entered = Clock::now();
  const auto& cu = driver_api();
  CUstream stream = nullptr;
  std::vector<PendingLaunch> launches;
  auto single = [&](CUfunction function, Dim3 grid, Dim3 block, unsigned dynamic_shared) {
    PendingLaunch pending;
    pending.launch.mangled_name = data.symbolName ? data.symbolName : "";
    pending.launch.name = demangle(data.symbolName);
    pending.launch.grid = grid;
    pending.launch.block = block;
    pending.launch.dynamic_shared_bytes = dynamic_shared;
    CUdevice device = 0;
    cu.ctx_get_device(&device);
    const auto resources = attributes_of(function, device);
    pending.launch.registers_per_thread = resources.registers;
    pending.launch.static_shared_bytes = static_cast<std::uint64_t>(resources.static_shared);
    pending.launch.local_bytes_per_thread = static_cast<std::uint64_t>(resources.local);
    launches.push_back(std::move(pending));
  };
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
      // cuLaunchCooperativeKernel_params starts with the same fields as cuLaunchKernel_params.
      const auto& p = *static_cast<const cuLaunchKernel_params*>(data.functionParams);
      stream = p.hStream;
      single(p.f, {p.gridDimX, p.gridDimY, p.gridDimZ}, {p.blockDimX, p.blockDimY, p.blockDimZ}, p.sharedMemBytes);
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      const auto& p = *static_cast<const cuLaunchKernelEx_params*>(data.functionParams);
      stream = p.config->hStream;
      single(p.f, {p.config->gridDimX, p.config->gridDimY, p.config->gridDimZ},
             {p.config->blockDimX, p.config->blockDimY, p.config->blockDimZ}, p.config->sharedMemBytes);
      break;
    }
    default: {
      const auto& p = *static_cast<const cuGraphLaunch_params*>(data.functionParams);
      stream = p.hStream;
      auto it = graph_kernels.find(p.hGraph);
      if (it != graph_kernels.end())
        for (const auto& kernel : it->second) launches.push_back({kernel.launch, false});
      break;
    }
  }
  // Launches into a capturing stream are not executions; touching them breaks the capture.
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  if (cu.stream_is_capturing(stream, &capture) == CUDA_SUCCESS && capture != CU_STREAM_CAPTURE_STATUS_NONE) return;

  LIMITER_TRACE("metadata done, %zu kernels", launches.size());
  mutex.lock();
  holds_launch_lock = true;
  launch_call_start = Clock::now();  // replaced below once our work is done
  if (failed_contexts.count(data.context)) return;  // EXIT releases the lock
  bool any_selected = false;
  for (auto& pending : launches) {
    pending.keep = selector.select(pending.launch.name);
    any_selected = any_selected || pending.keep;
  }
  // No profiler running in the context and nothing selected (skipped by -s, not matching -k):
  // the launch runs unranged, at full speed. Once a profiler runs, every launch is a range.
  const auto existing = contexts.find(data.context);
  const bool running = existing != contexts.end() && !existing->second->paused && !existing->second->retired;
  if (!running && !any_selected) return;  // EXIT releases the lock
  const bool first = existing == contexts.end();
  auto& profiler = context_profiler(data.context);
  const double set_up = first ? seconds_since(entered) : 0.0;
  times.set_up_s += set_up;
  if (profiler.retired) return;  // EXIT releases the lock
  unsigned long long stream_id = 0, context_id = 0;
  cu.stream_get_id(stream, &stream_id);
  cu.ctx_get_id(data.context, &context_id);
  times.metadata_s += seconds_since(entered) - set_up;
  if (profiler.paused) start_profiler(profiler);  // a new region
  ++times.launches;
  if (profiler.user_replay && profiler.pending.size() + launches.size() > profiler.ranges_per_image) {
    flush_batch(profiler);
  }
  for (auto& pending : launches) {
    pending.launch.stream_id = stream_id;
    pending.launch.context_id = context_id;
    pending.launch.device = static_cast<int>(profiler.device);
    profiler.pending.push_back(std::move(pending));
  }
  launch_call_start = Clock::now();
}

void Collector::Impl::on_launch_exit(const CUpti_CallbackData& data) {
  if (!holds_launch_lock) return;
  times.launch_call_s += seconds_since(launch_call_start);
  auto it = contexts.find(data.context);
  if (it != contexts.end() && !it->second->retired && !it->second->paused) {
    if (!it->second->user_replay) decode(*it->second);
    // Once --count launches are profiled, stop the profiler: the rest of the app runs at speed.
    if (selector.exhausted() && (it->second->user_replay || it->second->pending.empty())) finish(*it->second);
  }
  holds_launch_lock = false;
  mutex.unlock();
}

void Collector::Impl::decode(ContextProfiler& p) {
  LIMITER_TRACE("decode, %zu pending", p.pending.size());
  auto started = Clock::now();
  CUpti_RangeProfiler_DecodeData_Params decode_params{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
  decode_params.pRangeProfilerObject = p.profiler;
  LIMITER_CUPTI_CHECK(cuptiRangeProfilerDecodeData(&decode_params));
  times.decode_s += seconds_since(started);
  started = Clock::now();
  if (decode_params.numOfRangeDropped > 0) {
    dropped_ranges += decode_params.numOfRangeDropped;
    std::fprintf(stderr, "limiter: warning: CUPTI dropped %zu ranges (counter-data image full)\n",
                 decode_params.numOfRangeDropped);
  }
  const std::size_t total = ProfilerHost::range_count(p.image);
  for (std::size_t range = p.ranges_consumed; range < total; ++range) {
    if (p.pending.empty()) {
      ++unattributed_ranges;  // a kernel we saw no launch for (e.g. a graph created before us)
      PendingLaunch unknown;
      unknown.launch.name = "(unattributed kernel)";
      unknown.keep = false;  // no metadata: counted in unattributed_ranges, not recorded
      complete(p, std::move(unknown), range);
      continue;
    }
    PendingLaunch pending = std::move(p.pending.front());
    p.pending.pop_front();
    complete(p, std::move(pending), range);
  }
  p.ranges_consumed = total;
  times.evaluate_s += seconds_since(started);
  // A graph whose kernels CUPTI did not range (or a launch that failed) leaves pending
  // entries behind: they have no counters, so they are not launches of the record.
  p.pending.clear();
  if (!p.user_replay && p.ranges_consumed >= p.ranges_per_image) {
    keep_raw_image(p);
    ++p.images_written;
    reinitialize_image(p);
  }
}

void Collector::Impl::complete(ContextProfiler& p, PendingLaunch&& pending, std::size_t range) {
  if (!pending.keep) return;
  KernelLaunch launch = std::move(pending.launch);
  launch.sequence = next_sequence++;
  const auto values = p.host->evaluate(p.image, range, metrics);
  for (std::size_t i = 0; i < metrics.size(); ++i)
    if (!std::isnan(values[i])) launch.counters[metrics[i]] = values[i];
  if (!raw_dir.empty()) detail::append_raw_launch(raw_launches, launch, p.images_written, range);
  if (sink.on_launch) sink.on_launch(launch);
  if (options.keep_launches) completed.push_back(std::move(launch));
}

void Collector::Impl::finish(ContextProfiler& p) {
  if (p.retired) return;
  if (!p.paused) disable_profiler(p);
  p.retired = true;
}

void Collector::Impl::pause(ContextProfiler& p) {
  if (p.retired || p.paused) return;
  LIMITER_TRACE("pause context %p", static_cast<void*>(p.context));
  disable_profiler(p);
  p.paused = true;
}

Collector::Collector(const CollectorOptions& options) : impl_(std::make_unique<Impl>(options)) {
  impl_->metrics = options.metrics.empty() ? metric_plan(options.plan).metrics : options.metrics;
  driver_api();  // no driver: fail here, with the fix
  impl_->raw_dir = options.raw_dir;
  if (!impl_->raw_dir.empty()) detail::open_raw_dir(impl_->raw_dir, impl_->raw_launches);
  LIMITER_CUPTI_CHECK(cuptiSubscribe(&impl_->subscriber, on_callback, impl_.get()));
  for (CUpti_CallbackId cbid : kLaunchCallbacks)
    LIMITER_CUPTI_CHECK(cuptiEnableCallback(1, impl_->subscriber, CUPTI_CB_DOMAIN_DRIVER_API, cbid));
  for (CUpti_CallbackId cbid : kGraphCallbacks)
    LIMITER_CUPTI_CHECK(cuptiEnableCallback(1, impl_->subscriber, CUPTI_CB_DOMAIN_DRIVER_API, cbid));
  for (CUpti_CallbackId cbid : kSyncCallbacks)
    LIMITER_CUPTI_CHECK(cuptiEnableCallback(1, impl_->subscriber, CUPTI_CB_DOMAIN_DRIVER_API, cbid));
  LIMITER_CUPTI_CHECK(cuptiEnableCallback(1, impl_->subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                                          CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING));
  LIMITER_CUPTI_CHECK(cuptiEnableCallback(1, impl_->subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                                          CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED));
}

Collector::~Collector() {
  if (!impl_) return;
  {
    std::lock_guard lock(impl_->mutex);
    for (auto& [context, profiler] : impl_->contexts) {
      try {
        impl_->finish(*profiler);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "limiter: while stopping the profiler: %s\n", e.what());
      }
    }
  }
  if (impl_->subscriber) cuptiUnsubscribe(impl_->subscriber);
}

void Collector::write_raw_files() {
  std::lock_guard lock(impl_->mutex);
  for (auto& [context, profiler] : impl_->contexts) impl_->keep_raw_image(*profiler);
}

void Collector::start() {
  std::lock_guard lock(impl_->mutex);
  ++impl_->active_depth;
}

void Collector::stop() noexcept {
  std::lock_guard lock(impl_->mutex);
  if (impl_->active_depth > 0) --impl_->active_depth;
  try {
    // A region's launches are in the record when it ends; with no region left open, the
    // profilers pause so that the app's other launches run at full speed.
    for (auto& [context, profiler] : impl_->contexts) {
      if (impl_->active()) impl_->flush_batch(*profiler);
      else impl_->pause(*profiler);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "limiter: profiling error at the end of a region: %s\n", e.what());
  }
}

void Collector::flush() { impl_->flush_all(); }

CollectorTimings Collector::timings() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->times;
}

std::string CollectorTimings::to_text() const {
  const double per_launch = launches ? 1e6 / static_cast<double>(launches) : 0.0;
  const double total =
      metadata_s + launch_call_s + synchronize_s + stop_s + decode_s + evaluate_s + image_init_s + start_s;
  char text[1024];
  std::snprintf(text, sizeof text,
                "collector set-up %.0f ms; time per launch (%llu launches, %llu user-replay batches): %.1f us\n"
                "  metadata %.1f us, launch call with CUPTI's range work %.1f us, batch synchronise %.1f us,\n"
                "  Stop %.1f us, DecodeData %.1f us, evaluate %.1f us, image init %.1f us, SetConfig + Start %.1f us\n",
                set_up_s * 1e3, static_cast<unsigned long long>(launches), static_cast<unsigned long long>(batches), total * per_launch,
                metadata_s * per_launch, launch_call_s * per_launch, synchronize_s * per_launch, stop_s * per_launch,
                decode_s * per_launch, evaluate_s * per_launch, image_init_s * per_launch, start_s * per_launch);
  return text;
}

RunRecord Collector::take_run() {
  std::lock_guard lock(impl_->mutex);
  RunRecord run;
  run.tool_version = tool_version();
  run.source = "cupti";
  run.created_at = utc_timestamp();
  run.command_line = impl_->options.command_line;
  run.device = impl_->last_device;
  run.launches = std::move(impl_->completed);
  impl_->completed.clear();
  return run;
}

detail::LaunchSink& Collector::impl_sink() { return impl_->sink; }

}  // namespace limiter
