#include "collect/sync_points.hpp"

namespace limiter::detail {

SyncPoint sync_point_of(std::string_view name) {
  for (std::string_view prefix : {"cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize"})
    if (name.starts_with(prefix)) return SyncPoint::wait;
  for (std::string_view prefix : {"cuStreamQuery", "cuEventQuery"})
    if (name.starts_with(prefix)) return SyncPoint::query;
  // Copies and memsets without "Async" return after the copy (cuMemcpy*, cuMemsetD*). The
  // batched forms (cuMemcpyBatchAsync, cuMemcpy3DBatchAsync) are asynchronous.
  if ((name.starts_with("cuMemcpy") || name.starts_with("cuMemset")) && name.find("Async") == std::string_view::npos)
    return SyncPoint::wait;
  return SyncPoint::none;
}

}  // namespace limiter::detail
