// The orchestrator's CUPTI subscriber: each callback decoded once into plain values
// (launch_call.hpp) and handed to the sessions. Launches, sync points and regions go to the
// current phase (launches and regions to the background sessions too); graphs, modules and
// context teardown to every session (a later phase needs the graphs
// made before it). A callback never throws into the driver.
#include <cupti.h>

#include <atomic>
#include <optional>
#include <vector>

#include "collect/cupti/cupti_check.hpp"
#include "collect/forked_child.hpp"
#include "collect/launch_callbacks.hpp"
#include "collect/nvtx/nvtx_dispatch.hpp"
#include "collect/orchestrator.hpp"
#include "collect/own_calls.hpp"
#include "collect/sync_points.hpp"
#include "collect/trace.hpp"

namespace limiter {

namespace {

using detail::GraphEvent;
using detail::LaunchCall;

enum class CallKind : std::uint8_t {
  other,
  launch,
  wait,
  query,
  profiler_start,
  profiler_stop,
  graph_destroy,
  graph_exec_destroy  // kept_graphs.cpp
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
        case detail::SyncPoint::wait:
          out[id] = CallKind::wait;
          break;
        case detail::SyncPoint::query:
          out[id] = CallKind::query;
          break;
        case detail::SyncPoint::none:
          break;
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

bool succeeded(const CUpti_CallbackData& call) {
  return !call.functionReturnValue || *static_cast<const CUresult*>(call.functionReturnValue) == CUDA_SUCCESS;
}

// The one place that reads CUPTI's launch parameter structures.
LaunchCall decode_launch(CUpti_CallbackId cbid, const CUpti_CallbackData& data) {
  LaunchCall call;
  call.context = data.context;
  call.symbol_name = data.symbolName;
  call.correlation_id = data.correlationId;
  if (data.callbackSite == CUPTI_API_EXIT) call.failed = !succeeded(data);
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
      // cuLaunchCooperativeKernel_params starts with the same fields as cuLaunchKernel_params.
      const auto& p = *static_cast<const cuLaunchKernel_params*>(data.functionParams);
      call.stream = p.hStream;
      call.function = p.f;
      call.grid = {p.gridDimX, p.gridDimY, p.gridDimZ};
      call.block = {p.blockDimX, p.blockDimY, p.blockDimZ};
      call.dynamic_shared_bytes = p.sharedMemBytes;
      call.per_thread_stream = cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz ||
                               cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz;
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      const auto& p = *static_cast<const cuLaunchKernelEx_params*>(data.functionParams);
      call.stream = p.config->hStream;
      call.function = p.f;
      call.grid = {p.config->gridDimX, p.config->gridDimY, p.config->gridDimZ};
      call.block = {p.config->blockDimX, p.config->blockDimY, p.config->blockDimZ};
      call.dynamic_shared_bytes = p.config->sharedMemBytes;
      call.per_thread_stream = cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz;
      break;
    }
    default: {  // cuGraphLaunch, cuGraphLaunch_ptsz
      const auto& p = *static_cast<const cuGraphLaunch_params*>(data.functionParams);
      call.stream = p.hStream;
      call.graph = p.hGraph;
      call.per_thread_stream = cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz;
      break;
    }
  }
  return call;
}

void on_driver_call(Collector::Impl& impl, CUpti_CallbackId cbid, const CUpti_CallbackData& data) {
  const bool enter = data.callbackSite == CUPTI_API_ENTER;
  switch (kind_of(cbid)) {
    case CallKind::launch: {
      const LaunchCall call = decode_launch(cbid, data);
      if (enter) {
        impl.switch_phase_if_over();
        if (detail::tracing()) {  // LIMITER_DEBUG: the process's first launches, with their phase
          static std::atomic<std::uint64_t> traced{0};
          if (traced.fetch_add(1) < 64) LIMITER_TRACE("launch ENTER in phase %zu", impl.phases.index());
        }
        impl.phases.note_launch();
        impl.phases.on_launch(call);
        return;
      }
      impl.phases.on_launch_exit(call);  // the session that took its ENTER ends it
      return;
    }
    case CallKind::graph_destroy: {
      GraphEvent event;
      event.kind = GraphEvent::Kind::graph_destroy_call;
      event.enter = enter;
      // The driver reads the graph to destroy from here after ENTER (kept_graphs.cpp swaps it).
      if (data.functionParams)
        event.destroy_target = &static_cast<cuGraphDestroy_params*>(const_cast<void*>(data.functionParams))->hGraph;
      impl.phases.on_graph_event(event);
      return;
    }
    case CallKind::graph_exec_destroy: {
      if (enter) return;
      GraphEvent event;
      event.kind = GraphEvent::Kind::exec_destroyed;
      impl.phases.on_graph_event(event);
      return;
    }
    case CallKind::wait:
    case CallKind::query: {
      if (enter) return;
      const bool query = kind_of(cbid) == CallKind::query;
      if (query && (!data.functionReturnValue || !succeeded(data))) return;
      impl.phases.on_sync(query ? detail::SyncKind::query : detail::SyncKind::wait);
      return;
    }
    case CallKind::profiler_start:   // --capture-range cudaProfilerApi: a region opens after Start
    case CallKind::profiler_stop: {  // and closes before Stop returns, its launches decoded
      if (!impl.options.profiler_api_regions || enter) return;
      if (kind_of(cbid) == CallKind::profiler_start)
        impl.phases.begin_region();
      else
        impl.phases.end_region();
      return;
    }
    case CallKind::other:
      return;
  }
}

void on_resource(Collector::Impl& impl, CUpti_CallbackId cbid, const CUpti_ResourceData& resource) {
  if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {  // as launches go: a later phase prepares nothing yet
    impl.phases.on_context_created(resource.context);
    return;
  }
  if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
    impl.phases.on_context_destroy(resource.context);
    return;
  }
  if (cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
    const auto& module = *static_cast<const CUpti_ModuleResourceData*>(resource.resourceDescriptor);
    const detail::ModuleLoad loaded{resource.context, module.moduleId, module.pCubin, module.cubinSize};
    impl.phases.on_module_loaded(loaded);
    return;
  }
  const auto& graph = *static_cast<const CUpti_GraphData*>(resource.resourceDescriptor);
  GraphEvent event;
  event.graph = graph.graph;
  event.exec = graph.graphExec;
  if (cbid == CUPTI_CBID_RESOURCE_GRAPH_DESTROY_STARTING) {
    event.kind = GraphEvent::Kind::graph_destroying;
  } else if (cbid == CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED) {
    event.kind = GraphEvent::Kind::exec_created;
    std::uint32_t id = 0;
    if (cuptiGetGraphExecId(graph.graphExec, &id) == CUPTI_SUCCESS) event.graph_exec_id = id;
  } else if (cbid == CUPTI_CBID_RESOURCE_GRAPHEXEC_DESTROY_STARTING) {
    event.kind = GraphEvent::Kind::exec_destroying;
  } else {
    return;
  }
  impl.phases.on_graph_event(event);
}

// The range calls to the sessions that record them (stamped here, once): the current phase and
// the background, as launches go. One function for both ways NVTX reaches the collector: CUPTI's
// NVTX callback and limiter's own NVTX injection (on_injected_nvtx).
void on_nvtx(Collector::Impl& impl, CUpti_CallbackId cbid, const CUpti_NvtxData& data) {
  std::optional<detail::NvtxEvent> event = impl.nvtx.on_call(cbid, data);
  if (!event || !impl.nvtx_to_sessions) return;
  detail::NvtxTracker::stamp(*event);
  impl.phases.on_nvtx(*event);
}

// An NVTX call from limiter's own injection (nvtx_dispatch.hpp filtered forked children and our
// own calls, as on_callback does); never throws into the app.
void on_injected_nvtx(void* user, CUpti_CallbackId cbid, const CUpti_NvtxData& data) noexcept {
  try {
    on_nvtx(*static_cast<Collector::Impl*>(user), cbid, data);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "limiter: profiling error: %s\n", e.what());
  }
}

void CUPTIAPI on_callback(void* user, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (detail::in_forked_child()) return;   // the parent profiles; a forked child runs unprofiled
  if (detail::inside_own_calls()) return;  // our L2 flush's kernel and wait (l2_flush.hpp), not the app's
  auto& impl = *static_cast<Collector::Impl*>(user);
  try {
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API)
      on_driver_call(impl, cbid, *static_cast<const CUpti_CallbackData*>(data));
    else if (domain == CUPTI_CB_DOMAIN_NVTX)
      on_nvtx(impl, cbid, *static_cast<const CUpti_NvtxData*>(data));
    else if (domain == CUPTI_CB_DOMAIN_RESOURCE)
      on_resource(impl, cbid, *static_cast<const CUpti_ResourceData*>(data));
  } catch (const std::exception& e) {
    // A session's launch work catches its own errors; this is anything else: said, and the app runs on.
    std::fprintf(stderr, "limiter: profiling error: %s\n", e.what());
  }
}

}  // namespace

void Collector::Impl::subscribe() {
  const CUptiResult status = cuptiSubscribe(&subscriber, on_callback, this);
  if (status == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
    throw SystemError(
        "another CUPTI tool (Nsight Systems, Nsight Compute, a profiler in the app) is attached to this "
        "process; run without it");
  }
  if (status != CUPTI_SUCCESS) detail::throw_cupti_error(status, "cuptiSubscribe");
  const detail::SessionCallbacks wanted = phases.callbacks();
  const auto& kinds = call_kinds();
  for (std::size_t id = 0; id < kinds.size(); ++id) {
    const CallKind kind = kinds[id];
    const bool enable =
        kind == CallKind::launch || ((kind == CallKind::wait || kind == CallKind::query) && wanted.sync_points) ||
        ((kind == CallKind::profiler_start || kind == CallKind::profiler_stop) && options.profiler_api_regions) ||
        ((kind == CallKind::graph_destroy || kind == CallKind::graph_exec_destroy) && wanted.graph_destroy);
    if (enable)
      LIMITER_CUPTI_CHECK(
          cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, static_cast<CUpti_CallbackId>(id)));
  }
  LIMITER_CUPTI_CHECK(
      cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING));
  if (wanted.graphs) {
    for (CUpti_CallbackId id : {CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED, CUPTI_CBID_RESOURCE_GRAPHEXEC_DESTROY_STARTING,
                                CUPTI_CBID_RESOURCE_GRAPH_DESTROY_STARTING})
      LIMITER_CUPTI_CHECK(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, id));
  }
  if (wanted.contexts)
    LIMITER_CUPTI_CHECK(
        cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED));
  if (wanted.modules)
    LIMITER_CUPTI_CHECK(
        cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED));
  // The app's NVTX calls go to the one tool NVTX_INJECTION64_PATH named when its NVTX started:
  // limiter's own injection under `limiter run` (the receiver below), libcupti for an app that
  // set it so with the in-process API (CUPTI's NVTX domain). Both are on: only one ever delivers.
  nvtx_to_sessions = options.nvtx && wanted.nvtx;
  if (options.nvtx) {
    LIMITER_CUPTI_CHECK(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_NVTX));
    detail::register_nvtx_receiver(on_injected_nvtx, this);
  }
}

void Collector::Impl::unsubscribe() {
  // Before the sessions go: waits for an injected NVTX call still inside them.
  detail::unregister_nvtx_receiver(this);
  if (!subscriber) return;
  cuptiUnsubscribe(subscriber);
  subscriber = nullptr;
}

}  // namespace limiter
