// The CUPTI subscriber's callbacks: launches (ENTER/EXIT), the places the app waits for the GPU
// (sync_points.hpp), graph and executable-graph creation and destruction, context teardown. A
// callback never throws into the driver: an error is reported, counted as a missed launch, and
// the app runs on.
#include <cupti.h>

#include <vector>

#include "collect/collector_impl.hpp"
#include "collect/cupti_check.hpp"
#include "collect/forked_child.hpp"
#include "collect/launch_callbacks.hpp"
#include "collect/sampling_mode.hpp"
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

enum class CallKind : std::uint8_t {
  other, launch, wait, query, profiler_start, profiler_stop,
  graph_destroy, graph_exec_destroy  // kept_graphs.cpp
};

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
    for (CUpti_CallbackId id : detail::kLaunchCallbacks) out[id] = CallKind::launch;
    out[CUPTI_DRIVER_TRACE_CBID_cuGraphDestroy] = CallKind::graph_destroy;
    out[CUPTI_DRIVER_TRACE_CBID_cuGraphExecDestroy] = CallKind::graph_exec_destroy;
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
      // Budgets spent under --sampling, or its sampling phase first: the sampler's launches (an
      // EXIT may still end ours).
      if (call.callbackSite == CUPTI_API_ENTER && impl.handed_to_sampling && impl.sampling_phase_over())
        impl.take_over_from_sampling();  // this launch is the exact phase's first
      if (call.callbackSite == CUPTI_API_ENTER && impl.handed_to_sampling) impl.sampling_after_budgets->on_launch(call);
      else if (call.callbackSite == CUPTI_API_ENTER) impl.on_launch_enter(cbid, call);
      else impl.on_launch_exit(call);
      return;
    case CallKind::graph_destroy:
      impl.on_graph_destroy(call);
      return;
    case CallKind::graph_exec_destroy:
      if (call.callbackSite == CUPTI_API_EXIT) impl.on_graph_exec_destroyed();
      return;
    case CallKind::wait:
    case CallKind::query: {
      // The app waited anyway: decode the batch, so a kill after this point loses none of it.
      // Our own cuCtxSynchronize (in flush_batch) comes back here: ignore it, or the lock deadlocks.
      if (call.callbackSite != CUPTI_API_EXIT || detail::holds_launch_lock || detail::inside_flush ||
          impl.handed_to_sampling)
        return;
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
  if (detail::in_forked_child()) return;  // the parent profiles; a forked child runs unprofiled
  auto* impl = static_cast<Collector::Impl*>(user);
  try {
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
      on_driver_call(*impl, cbid, *static_cast<const CUpti_CallbackData*>(data));
    } else if (domain == CUPTI_CB_DOMAIN_NVTX) {
      impl->nvtx.on_call(cbid, *static_cast<const CUpti_NvtxData*>(data));
    } else if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
      const auto& resource = *static_cast<const CUpti_ResourceData*>(data);
      if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
        if (impl->handed_to_sampling) impl->sampling_after_budgets->on_context_destroy(resource.context);
        std::lock_guard lock(impl->mutex);
        auto it = impl->contexts.find(resource.context);
        if (it != impl->contexts.end()) impl->finish(*it->second);
      } else if (cbid == CUPTI_CBID_RESOURCE_GRAPH_DESTROY_STARTING) {
        impl->on_graph_destroy_starting(static_cast<const CUpti_GraphData*>(resource.resourceDescriptor)->graph);
      } else {
        const auto& graph = *static_cast<const CUpti_GraphData*>(resource.resourceDescriptor);
        std::lock_guard lock(impl->mutex);
        if (cbid == CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED) {
          impl->record_graph(graph);
        } else if (cbid == CUPTI_CBID_RESOURCE_GRAPHEXEC_DESTROY_STARTING) {
          impl->release_kept_graph_of(graph.graphExec);
          impl->forget_graph_exec(graph.graphExec);
        }
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
    // The app's graphs are kept alive only where graph launches are profiled node by node.
    const bool nodes_by_handle = impl.options.replay != "kernel" && impl.options.graph_profiling == "node";
    if ((kinds[id] == CallKind::graph_destroy || kinds[id] == CallKind::graph_exec_destroy) && !nodes_by_handle)
      continue;
    LIMITER_CUPTI_CHECK(
        cuptiEnableCallback(1, impl.subscriber, CUPTI_CB_DOMAIN_DRIVER_API, static_cast<CUpti_CallbackId>(id)));
  }
  LIMITER_CUPTI_CHECK(cuptiEnableCallback(1, impl.subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                                          CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING));
  for (CUpti_CallbackId id : {CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED, CUPTI_CBID_RESOURCE_GRAPHEXEC_DESTROY_STARTING,
                              CUPTI_CBID_RESOURCE_GRAPH_DESTROY_STARTING})
    LIMITER_CUPTI_CHECK(cuptiEnableCallback(1, impl.subscriber, CUPTI_CB_DOMAIN_RESOURCE, id));
  // NVTX calls reach CUPTI only when the app's NVTX loaded it (NVTX_INJECTION64_PATH).
  if (impl.options.nvtx) LIMITER_CUPTI_CHECK(cuptiEnableDomain(1, impl.subscriber, CUPTI_CB_DOMAIN_NVTX));
}

}  // namespace limiter
