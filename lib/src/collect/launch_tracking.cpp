// Launch metadata from the driver's launch callbacks: names, configuration, resources, stream
// and context, graph nodes; which launches are selected; each selected launch queued for the
// range that CUPTI gives it. The ENTER callback takes the collector's lock and EXIT gives it
// back, so a launch and its range are never split by another thread's.
#include <cxxabi.h>
#include <sys/resource.h>
#include <time.h>

#include "collect/collector_impl.hpp"
#include "collect/driver_api.hpp"

namespace limiter {

using detail::Clock;
using detail::driver_api;
using detail::seconds_since;

namespace detail {

thread_local bool holds_launch_lock = false;
extern thread_local bool inside_flush;
extern thread_local bool inside_graph_replay;
thread_local Clock::time_point launch_call_start;  // when our ENTER callback handed back to the driver
// The launching thread's CPU time and voluntary switches then: is CUPTI's range work busy, or waiting?
thread_local double launch_call_cpu_start = 0;
thread_local long launch_call_switches_start = 0;

double thread_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

long thread_voluntary_switches() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return usage.ru_nvcsw;
}

// Our ENTER work is done: the driver's launch (with CUPTI's range work) starts, timed to EXIT.
void hand_over_launch() {
  launch_call_cpu_start = thread_cpu_seconds();
  launch_call_switches_start = thread_voluntary_switches();
  launch_call_start = Clock::now();
}

std::string demangle(const char* mangled) {
  if (!mangled) return "(unknown kernel)";
  int status = 0;
  char* readable = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string name = (status == 0 && readable) ? readable : mangled;
  std::free(readable);
  return name;
}

}  // namespace detail

detail::KernelAttributes Collector::Impl::attributes_of(CUfunction function, CUdevice device) {
  const auto& cu = driver_api();
  detail::KernelAttributes result;
  auto get = [&](CUfunction_attribute attribute, int& value) {
    // Runtime launches pass a context-less CUkernel: cuFuncGetAttribute refuses it (400).
    if (cu.func_get_attribute(&value, attribute, function) != CUDA_SUCCESS)
      cu.kernel_get_attribute(&value, attribute, reinterpret_cast<CUkernel>(function), device);
  };
  get(CU_FUNC_ATTRIBUTE_NUM_REGS, result.registers);
  get(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, result.static_shared);
  get(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, result.local);
  return result;
}

detail::KernelInfo Collector::Impl::kernel_info_of(CUfunction function, CUcontext context, const char* mangled_name) {
  const char* mangled = mangled_name ? mangled_name : "";
  {
    std::lock_guard lock(kernel_info_mutex);
    auto it = kernel_info.find({function, context});
    if (it != kernel_info.end() && it->second.mangled_name == mangled) return it->second;
  }
  detail::KernelInfo info;
  info.mangled_name = mangled;
  info.name = detail::demangle(mangled_name);
  const auto& cu = driver_api();
  CUdevice device = 0;
  cu.ctx_get_device(&device);
  info.resources = attributes_of(function, device);
  // Lazy loading puts a kernel's module load (milliseconds, with DRAM writes) inside its first
  // launch: inside its user range, a GELU's first range read 74 us instead of 4 and its DRAM
  // throughput 92 % (H100, PyTorch). Loaded here, before any range is pushed.
  CUfunction in_context = function;
  int ignored = 0;
  if (cu.func_get_attribute(&ignored, CU_FUNC_ATTRIBUTE_NUM_REGS, function) != CUDA_SUCCESS &&
      cu.kernel_get_function(&in_context, reinterpret_cast<CUkernel>(function)) != CUDA_SUCCESS)
    in_context = nullptr;  // a runtime CUkernel (context-less) not resolved: left to the launch
  CUfunctionLoadingState state = CU_FUNCTION_LOADING_STATE_LOADED;
  if (in_context && cu.func_is_loaded && cu.func_load && cu.func_is_loaded(&state, in_context) == CUDA_SUCCESS &&
      state != CU_FUNCTION_LOADING_STATE_LOADED)
    cu.func_load(in_context);
  std::lock_guard lock(kernel_info_mutex);
  kernel_info[{function, context}] = info;
  return info;
}

void Collector::Impl::on_launch_enter(CUpti_CallbackId cbid, const CUpti_CallbackData& data) {
  // Our own launches of a graph's nodes (graph_replay.cpp): the lock is ours already.
  if (detail::inside_graph_replay) return;
  LIMITER_TRACE("launch enter cbid %u %s", static_cast<unsigned>(cbid), data.symbolName ? data.symbolName : "?");
  // Outside a profiled region the context's profiler is paused (disabled): nothing to follow.
  if (!active()) return;
  const auto entered = Clock::now();
  const auto& cu = driver_api();
  CUstream stream = nullptr;
  detail::GraphExec* graph = nullptr;
  std::vector<detail::PendingLaunch> launches;
  auto single = [&](CUfunction function, Dim3 grid, Dim3 block, unsigned dynamic_shared) {
    detail::PendingLaunch pending;
    auto info = kernel_info_of(function, data.context, data.symbolName);
    pending.launch.mangled_name = std::move(info.mangled_name);
    pending.launch.name = std::move(info.name);
    pending.launch.grid = grid;
    pending.launch.block = block;
    pending.launch.dynamic_shared_bytes = dynamic_shared;
    const auto& resources = info.resources;
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
      auto it = graph_execs.find(p.hGraph);
      if (it != graph_execs.end()) {
        graph = &it->second;
        for (const auto& node : graph->nodes)
          if (node.kernel) launches.push_back({*node.kernel, false});
      }
      break;
    }
  }
  // Launches into a capturing stream are not executions; touching them breaks the capture.
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  if (cu.stream_is_capturing(stream, &capture) == CUDA_SUCCESS && capture != CU_STREAM_CAPTURE_STATUS_NONE) return;

  // The NVTX ranges around the launch, on its own thread, before the lock.
  std::optional<NvtxRanges> ranges;
  if (options.nvtx && nvtx.seen()) {
    ranges = nvtx.current();
    const auto paths = nvtx_paths(*ranges);
    for (auto& pending : launches) pending.launch.nvtx = paths;
  }

  LIMITER_TRACE("metadata done, %zu kernels", launches.size());
  mutex.lock();
  detail::holds_launch_lock = true;
  detail::launch_call_start = Clock::now();  // replaced below once our work is done
  std::size_t selected = 0;
  const auto existing = contexts.find(data.context);
  const bool running = existing != contexts.end() && !existing->second->paused && !existing->second->retired;
  for (auto& pending : launches) {
    // The configuration string only for per-kernel budgets: this runs for every launch.
    std::string configuration;
    if (selector.per_configuration())
      configuration = detail::LaunchSelector::configuration_text(pending.launch.grid, pending.launch.block);
    pending.keep = selector.select(pending.launch.name, configuration, running, ranges ? &*ranges : nullptr);
    selected += pending.keep ? 1 : 0;
  }
  launches_seen += launches.size();
  // No profiler running in the context and nothing selected (skipped by -s, not matching -k):
  // the launch runs unranged, at full speed. In user-range mode an unselected launch is not
  // ranged either, though CUPTI still adds ~9 us to it (H100, PyTorch); in auto-range mode
  // (kernel replay) every launch is a range once a profiler runs. A long run of unselected
  // launches pauses the profiler: always in auto range; in user range only under per-kernel
  // budgets, where the kernels seen are done with (elsewhere a resume, ~270 ms, would follow).
  const bool may_pause =
      running && selector.filters() && (!existing->second->user_range || selector.only_new_kernels_selectable());
  if (selected > 0) {
    unselected_in_a_row = 0;
  } else if (may_pause && ++unselected_in_a_row >= detail::kPauseAfterUnselected) {
    LIMITER_TRACE("%llu unselected launches in a row: pausing", static_cast<unsigned long long>(unselected_in_a_row));
    ++times.filter_pauses;
    unselected_in_a_row = 0;
    if (sampling_after_budgets && !sampling_first) {
      hand_over_to_sampling(/*sampling_follows=*/true);  // --sampling: the sampler from the next launch on
      return;  // EXIT releases the lock
    }
    pause(*existing->second);
    return;  // EXIT releases the lock
  }
  if (!running && selected == 0) return;  // EXIT releases the lock
  const bool first = existing == contexts.end();
  ContextProfiler* profiler = context_profiler(data.context, selected);
  const double set_up = first ? seconds_since(entered) : 0.0;
  times.set_up_s += set_up;
  if (!profiler || profiler->retired) return;  // EXIT releases the lock
  unsigned long long stream_id = 0, context_id = 0;
  cu.stream_get_id(stream, &stream_id);
  cu.ctx_get_id(data.context, &context_id);
  times.metadata_s += seconds_since(entered) - set_up;
  yield_if_others_wait(*profiler);  // after a fair turn, another process's
  if (profiler->paused && !resume(*profiler, selected)) return;  // a new region, or a new turn
  if (selected == 0 && profiler->user_range) ++times.unranged_launches;
  else ++times.launches;
  for (auto& pending : launches) {
    pending.launch.stream_id = stream_id;
    pending.launch.context_id = context_id;
    pending.launch.device = static_cast<int>(profiler->device);
  }
  if (graph && profiler->user_replay) {
    // Graph kernels get no auto range under user replay: profiled node by node, or as one
    // range; a graph launch with nothing selected runs at full speed, but not inside an
    // auto-range session: under --per-kernel-count 3 graph launches with nothing selected ran
    // in one, and its Stop then failed with CUPTI_ERROR_UNKNOWN (H100, 2026-11-24). So the
    // context goes to user-range mode at its first graph launch, selected or not.
    const bool per_thread = cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz;
    if (selected > 0) profile_graph_launch(*profiler, *graph, stream, per_thread, launches);
    else enter_user_range_mode(*profiler);
    detail::hand_over_launch();
    return;  // EXIT finishes the launch and releases the lock
  }
  if (profiler->user_replay && !profiler->pending.empty()) {
    // A full batch, or one whose first launch completed long ago: decoded before this launch.
    const bool full = profiler->pending.size() + launches.size() > profiler->ranges_per_image;
    if (full || Clock::now() - profiler->oldest_pending >= detail::kMaxBatchAge) flush_batch(*profiler);
  }
  if (profiler->user_range) {
    // User-range mode (from the context's first graph launch on): a selected
    // launch in its own range, closed at EXIT; an unselected one runs unranged.
    if (selected > 0) {
      const bool per_thread = cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz ||
                              cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz ||
                              cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz;
      open_launch_range(*profiler, stream, per_thread, std::move(launches.front()));
    }
    detail::hand_over_launch();
    return;  // EXIT closes the range and releases the lock
  }
  if (profiler->pending.empty()) profiler->oldest_pending = Clock::now();
  for (auto& pending : launches) profiler->pending.push_back(std::move(pending));
  detail::hand_over_launch();
}

void Collector::Impl::on_launch_exit(const CUpti_CallbackData& data) {
  if (!detail::holds_launch_lock || detail::inside_graph_replay) return;
  times.launch_call_s += seconds_since(detail::launch_call_start);
  if (detail::launch_call_cpu_start > 0) {  // set only where the launch was handed to a profiler
    times.launch_call_cpu_s += detail::thread_cpu_seconds() - detail::launch_call_cpu_start;
    times.launch_call_switches +=
        static_cast<std::uint64_t>(detail::thread_voluntary_switches() - detail::launch_call_switches_start);
    detail::launch_call_cpu_start = 0;
  }
  finish_launch(data);  // a graph's nodes enabled again, a user range closed
  auto it = contexts.find(data.context);
  if (it != contexts.end() && !it->second->retired && !it->second->paused) {
    if (!it->second->user_replay) decode(*it->second);
    // Once --count launches are profiled, stop the profiler: the rest of the app runs at speed.
    if (selector.exhausted() && (it->second->user_replay || it->second->pending.empty())) finish(*it->second);
  }
  report_status(false);
  detail::holds_launch_lock = false;
  mutex.unlock();
}

}  // namespace limiter
