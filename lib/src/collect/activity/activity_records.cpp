// CUPTI Activity records -> timeline events (activity_records.hpp). No CUPTI call here.
#include "collect/activity/activity_records.hpp"

#include "collect/demangle.hpp"
#include "collect/sync_points.hpp"

namespace limiter::detail {

namespace {

// timeline.hpp's five names; arrays count as the memory they sit in.
const char* copy_name(std::uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
      return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
      return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
      return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
      return "PtoP";
    default:
      return "DtoD";
  }
}

bool host_side(std::uint8_t memory_kind) {
  return memory_kind == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE || memory_kind == CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
}

const char* sync_name(CUpti_ActivitySynchronizationType type) {
  switch (type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:
      return "context";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
      return "stream";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
      return "event";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT:
      return "stream wait event";
    default:
      return "unknown";
  }
}

TimelineEvent gpu_event(ActivityKind kind, std::uint64_t start, std::uint64_t end, std::uint32_t device,
                        std::uint32_t context, std::uint32_t stream, std::uint32_t correlation) {
  TimelineEvent e;
  e.kind = kind;
  e.start_ns = start;
  e.end_ns = end;
  e.device = static_cast<int>(device);
  e.context_id = context;
  e.stream_id = stream;
  e.correlation_id = correlation;
  return e;
}

}  // namespace

const std::string& KernelNames::operator()(const char* mangled) {
  const std::string_view key = mangled ? mangled : "";
  if (auto it = names_.find(key); it != names_.end()) return it->second;
  return names_.emplace(std::string(key), demangle(mangled)).first->second;
}

std::optional<TimelineEvent> timeline_event_of(const CUpti_Activity& record, const ApiNamer& api_name,
                                               KernelNames* kernel_names) {
  switch (record.kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto& k = reinterpret_cast<const CUpti_ActivityKernel10&>(record);
      if (k.end <= k.start) return std::nullopt;  // a kernel that never ran
      TimelineEvent e =
          gpu_event(ActivityKind::kernel, k.start, k.end, k.deviceId, k.contextId, k.streamId, k.correlationId);
      e.name = kernel_names ? (*kernel_names)(k.name) : demangle(k.name);
      // Its configuration keys per-kernel figures as a launch's does (name, grid, block).
      e.grid = Dim3{static_cast<std::uint32_t>(k.gridX), static_cast<std::uint32_t>(k.gridY),
                    static_cast<std::uint32_t>(k.gridZ)};
      e.block = Dim3{static_cast<std::uint32_t>(k.blockX), static_cast<std::uint32_t>(k.blockY),
                     static_cast<std::uint32_t>(k.blockZ)};
      return e;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto& m = reinterpret_cast<const CUpti_ActivityMemcpy6&>(record);
      if (m.end < m.start) return std::nullopt;
      TimelineEvent e =
          gpu_event(ActivityKind::memcpy, m.start, m.end, m.deviceId, m.contextId, m.streamId, m.correlationId);
      e.name = copy_name(m.copyKind);
      e.bytes = m.bytes;
      // Pageable host memory makes the driver stage the copy (and the call block): the verdict's advice.
      if (host_side(m.srcKind) || host_side(m.dstKind))
        e.pageable =
            m.srcKind == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE || m.dstKind == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
      return e;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto& m = reinterpret_cast<const CUpti_ActivityMemset4&>(record);
      if (m.end < m.start) return std::nullopt;
      TimelineEvent e =
          gpu_event(ActivityKind::memset, m.start, m.end, m.deviceId, m.contextId, m.streamId, m.correlationId);
      e.name = "memset";
      e.bytes = m.bytes;
      return e;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      const auto& s = reinterpret_cast<const CUpti_ActivitySynchronization2&>(record);
      if (s.end < s.start) return std::nullopt;
      TimelineEvent e;
      e.kind = ActivityKind::synchronization;
      e.start_ns = s.start;
      e.end_ns = s.end;
      e.context_id = s.contextId;
      // A context synchronisation names no stream (CUPTI_SYNCHRONIZATION_INVALID_VALUE).
      if (s.streamId != CUPTI_SYNCHRONIZATION_INVALID_VALUE) e.stream_id = s.streamId;
      e.correlation_id = s.correlationId;
      e.name = sync_name(s.type);
      return e;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:  // an app's cudaLaunchKernel: the driver call inside has no record
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      const auto& a = reinterpret_cast<const CUpti_ActivityAPI&>(record);
      if (a.end < a.start) return std::nullopt;
      TimelineEvent e;
      e.kind = ActivityKind::api_call;
      e.start_ns = a.start;
      e.end_ns = a.end;
      e.correlation_id = a.correlationId;
      e.thread_id = a.threadId;
      const bool runtime = record.kind == CUPTI_ACTIVITY_KIND_RUNTIME;
      e.name = api_name ? api_name(runtime, a.cbid) : "";
      if (e.name.empty()) e.name = (runtime ? "runtime call " : "driver call ") + std::to_string(a.cbid);
      return e;
    }
    default:
      return std::nullopt;
  }
}

bool traced_driver_call(std::string_view name) {
  if (name.starts_with("cuLaunch") || name.starts_with("cuGraphLaunch") || name.starts_with("cuMemcpy") ||
      name.starts_with("cuMemset") || name.starts_with("cudaLaunch") || name.starts_with("cudaGraphLaunch") ||
      name.starts_with("cudaMemcpy") || name.starts_with("cudaMemset"))
    return true;
  if (sync_point_of(name) != SyncPoint::none) return true;
  return name.find("Synchronize") != std::string_view::npos || name.find("Query") != std::string_view::npos ||
         name.find("WaitEvent") != std::string_view::npos || name.find("WaitValue") != std::string_view::npos;
}

}  // namespace limiter::detail
