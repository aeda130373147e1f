#pragma once
// CUPTI Activity records as timeline events (limiter/timeline.hpp): a pure function of the
// record structures, so unit tests feed hand-made ones (kineto's MockCuptiActivities way) and
// no GPU is needed to check names, kinds, pageable copies and correlation ids.
#include <cupti.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "limiter/timeline.hpp"

namespace limiter::detail {

// The name of an API callback id, of the runtime's or the driver's (cuptiGetCallbackName in the
// session; a table in tests).
using ApiNamer = std::function<std::string(bool runtime, std::uint32_t cbid)>;

// RECORD as an event: kernels (CONCURRENT_KERNEL, KERNEL), memcpy, memset, synchronization and
// driver API calls; nothing for other kinds or for a record without timestamps.
std::optional<TimelineEvent> timeline_event_of(const CUpti_Activity& record, const ApiNamer& api_name);

// Whether the driver function NAME gets API records: what the program verdict reads (launches,
// copies, memsets, synchronisations, waits and queries), not every driver call.
bool traced_driver_call(std::string_view name);

}  // namespace limiter::detail
