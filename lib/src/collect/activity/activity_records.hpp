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
#include <unordered_map>

#include "limiter/timeline.hpp"

namespace limiter::detail {

// The name of an API callback id, of the runtime's or the driver's (cuptiGetCallbackName in the
// session; a table in tests).
using ApiNamer = std::function<std::string(bool runtime, std::uint32_t cbid)>;

// Kernel names demangled once each: a PyTorch step launches the same few dozen kernels over and
// over, and demangling a templated name costs far more than hashing it. Not thread-safe (the
// session decodes its buffers on one thread at a time).
class KernelNames {
 public:
  const std::string& operator()(const char* mangled);
  std::size_t size() const { return names_.size(); }

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, std::string, Hash, std::equal_to<>> names_;  // mangled -> demangled
};

// RECORD as an event: kernels (CONCURRENT_KERNEL, KERNEL), memcpy, memset, synchronization and
// driver API calls; nothing for other kinds or for a record without timestamps. Kernel names go
// through KERNEL_NAMES where given (demangled on each record without).
std::optional<TimelineEvent> timeline_event_of(const CUpti_Activity& record, const ApiNamer& api_name,
                                               KernelNames* kernel_names = nullptr);

// Whether the driver function NAME gets API records: what the program verdict reads (launches,
// copies, memsets, synchronisations, waits and queries), not every driver call.
bool traced_driver_call(std::string_view name);

}  // namespace limiter::detail
