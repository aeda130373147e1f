// The CUPTI subscriber's callbacks: launches (ENTER/EXIT), the places the app waits for the GPU
// (sync_points.hpp), graph construction, context teardown. A callback never throws into the
// driver: an error is reported, counted as a missed launch, and the app runs on.
#include <cupti.h>

#include <vector>

#include "collect/collector_impl.hpp"
#include "collect/cupti_check.hpp"
#include "collect/sync_points.hpp"

namespace limiter {

namespace detail {
extern thread_local bool holds_launch_lock;
extern thread_local bool inside_flush;
}  // namespace detail

namespace {

// A successful query decodes the batch only once its first launch is this old: a polling loop
// (PyTorch's NCCL watchdog queries events all the time) would otherwise cost a Stop and a
// Start per poll.
constexpr auto kQueryFlushAge = std::chrono::milliseconds(100);

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

enum class CallKind : std::uint8_t { other, launch, graph_work, wait, query, profiler_start, profiler_stop };

// The kind of every driver callback id, from its name, once.
const std::vector<CallKind>& call_kinds() {
  static const std::vector<CallKind> kinds = [] {
    std::vector<CallKind> out(CUPTI_DRIVER_TRACE_CBID_SIZE, CallKind::other);
    for (std::size_t id = 0; id < out.size(); ++id) {
      const char* name = nullptr;
      if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, static_cast<std::uint32_t>(id), &name) != CUPTI_SUCCESS ||
          !name)
        continue;
      switch (detail::sync_point_of(name)) {
        case detail::SyncPoint::wait: out[id] = CallKind::wait; break;
        case detail::SyncPoint::query: out[id] = CallKind::query; break;
        case detail::SyncPoint::none: break;
      }
    }
    for (CUpti_CallbackId id : kLaunchCallbacks) out[id] = CallKind::launch;
    for (CUpti_CallbackId id : kGraphCallbacks) out[id] = CallKind::graph_work;
    out[CUPTI_DRIVER_TRACE_CBID_cuProfilerStart] = CallKind::profiler_start;
    out[CUPTI_DRIVER_TRACE_CBID_cuProfilerStop] = CallKind::profiler_stop;
    return out;
  }();
  return kinds;
}

CallKind kind_of(CUpti_CallbackId cbid) {
  const auto& kinds = call_kinds();
  return cbid < kinds.size() ? kinds[cbid] : CallKind::other;
}

void on_driver_call(Collector::Impl& impl, CUpti_CallbackId cbid, const CUpti_CallbackData& call) {
  switch (kind_of(cbid)) {
    case CallKind::launch:
      if (call.callbackSite == CUPTI_API_ENTER) impl.on_launch_enter(cbid, call);
      else impl.on_launch_exit(call);
      return;
    case CallKind::graph_work:
      if (call.callbackSite == CUPTI_API_ENTER) impl.on_graph_work(call.context);
      return;
    case CallKind::wait:
    case CallKind::query: {
      // The app waited anyway: decode the batch, so a kill after this point loses none of it.
      // Our own cuCtxSynchronize (in flush_batch) comes back here: ignore it, or the lock deadlocks.
      if (call.callbackSite != CUPTI_API_EXIT || detail::holds_launch_lock || detail::inside_flush) return;
      const bool query = kind_of(cbid) == CallKind::query;
      if (query && (!call.functionReturnValue || *static_cast<const CUresult*>(call.functionReturnValue) != CUDA_SUCCESS))
        return;
      impl.flush_all(query ? std::chrono::duration_cast<detail::Clock::duration>(kQueryFlushAge)
                           : detail::Clock::duration::zero());
      return;
    }
    case CallKind::profiler_start:  // --capture-range cudaProfilerApi: a region opens after Start
    case CallKind::profiler_stop: {  // and closes before Stop returns, its launches decoded
      if (!impl.options.profiler_api_regions || call.callbackSite != CUPTI_API_EXIT || detail::holds_launch_lock) return;
      std::lock_guard lock(impl.mutex);
      if (kind_of(cbid) == CallKind::profiler_start) impl.begin_region();
      else impl.end_region();
      return;
    }
    case CallKind::other: return;
  }
}

void CUPTIAPI on_callback(void* user, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  auto* impl = static_cast<Collector::Impl*>(user);
  try {
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
      on_driver_call(*impl, cbid, *static_cast<const CUpti_CallbackData*>(data));
    } else if (domain == CUPTI_CB_DOMAIN_NVTX) {
      impl->nvtx.on_call(cbid, *static_cast<const CUpti_NvtxData*>(data));
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
    const bool in_launch = detail::holds_launch_lock;
    if (!in_launch) return;
    impl->miss(detail::MissReason::error, 1, e.what());
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API &&
        static_cast<const CUpti_CallbackData*>(data)->callbackSite == CUPTI_API_EXIT) {
      detail::holds_launch_lock = false;
      impl->mutex.unlock();
    }
  }
}

}  // namespace

void subscribe_callbacks(Collector::Impl& impl) {
  LIMITER_CUPTI_CHECK(cuptiSubscribe(&impl.subscriber, on_callback, &impl));
  const auto& kinds = call_kinds();
  for (std::size_t id = 0; id < kinds.size(); ++id) {
    if (kinds[id] == CallKind::other) continue;
    if ((kinds[id] == CallKind::profiler_start || kinds[id] == CallKind::profiler_stop) && !impl.options.profiler_api_regions)
      continue;
    LIMITER_CUPTI_CHECK(
        cuptiEnableCallback(1, impl.subscriber, CUPTI_CB_DOMAIN_DRIVER_API, static_cast<CUpti_CallbackId>(id)));
  }
  LIMITER_CUPTI_CHECK(cuptiEnableCallback(1, impl.subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                                          CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING));
  LIMITER_CUPTI_CHECK(cuptiEnableCallback(1, impl.subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                                          CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED));
  // NVTX calls reach CUPTI only when the app's NVTX loaded it (NVTX_INJECTION64_PATH).
  if (impl.options.nvtx) LIMITER_CUPTI_CHECK(cuptiEnableDomain(1, impl.subscriber, CUPTI_CB_DOMAIN_NVTX));
}

}  // namespace limiter
