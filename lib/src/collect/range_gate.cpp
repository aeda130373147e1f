#include "collect/range_gate.hpp"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>

#include "collect/collector_impl.hpp"
#include "collect/driver_api.hpp"

namespace limiter::detail {
namespace {

constexpr auto kLongestClosed = std::chrono::milliseconds(200);

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The gates that exist, for the watchdog; the thread starts with the first gate closed and
// lives as long as the process (detached: it only touches gates registered here).
std::mutex& registry_mutex() {
  static std::mutex mutex;
  return mutex;
}
std::set<RangeGate*>& registry() {
  static std::set<RangeGate*> gates;
  return gates;
}

void start_watchdog() {
  static std::once_flag started;
  std::call_once(started, [] {
    std::thread([] {
      for (;;) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        open_stale_gates();
      }
    }).detach();
  });
}

}  // namespace

void open_stale_gates() {
  std::lock_guard lock(registry_mutex());
  const std::int64_t limit = now_ns() - std::chrono::duration_cast<std::chrono::nanoseconds>(kLongestClosed).count();
  for (RangeGate* gate : registry()) {
    const std::int64_t since = gate->closed_since_ns_.load();
    if (since != 0 && since < limit) {
      LIMITER_TRACE("a range gate closed for over %lld ms: opened by the watchdog",
                    static_cast<long long>(kLongestClosed.count()));
      gate->open();
    }
  }
}

bool range_gate_enabled() {
  static const bool enabled = [] {
    const char* text = std::getenv("LIMITER_RANGE_GATE");
    return text && std::strcmp(text, "1") == 0;
  }();
  return enabled;
}

RangeGate::~RangeGate() {
  open();
  std::lock_guard lock(registry_mutex());
  registry().erase(this);
  // The pinned flag goes with its context (freeing it here could outlive the context).
}

bool RangeGate::close(CUstream stream, bool per_thread_stream) {
  if (!range_gate_enabled() || unavailable_) return false;
  const auto& cu = driver_api();
  if (!host_) {
    void* memory = nullptr;
    if (cu.mem_host_alloc(&memory, sizeof(std::uint32_t), CU_MEMHOSTALLOC_DEVICEMAP) != CUDA_SUCCESS ||
        cu.mem_host_get_device_pointer(&device_, memory, 0) != CUDA_SUCCESS) {
      LIMITER_TRACE("range gate: no mapped host flag; ranges are not gated");
      unavailable_ = true;
      return false;
    }
    host_ = static_cast<std::uint32_t*>(memory);
    std::atomic_ref<std::uint32_t>(*host_).store(0);
    std::lock_guard lock(registry_mutex());
    registry().insert(this);
  }
  start_watchdog();
  const std::uint32_t next = value_.load() + 1;
  const auto wait = per_thread_stream ? cu.stream_wait_value32_ptsz : cu.stream_wait_value32;
  const CUresult status = wait(stream, device_, next, CU_STREAM_WAIT_VALUE_GEQ);
  if (status != CUDA_SUCCESS) {
    LIMITER_TRACE("range gate: cuStreamWaitValue32 failed (%s); ranges are not gated", driver_error_name(status).c_str());
    unavailable_ = true;
    return false;
  }
  value_.store(next);
  closed_since_ns_.store(now_ns());
  return true;
}

void RangeGate::open() noexcept {
  if (!host_ || closed_since_ns_.load() == 0) return;
  std::atomic_ref<std::uint32_t>(*host_).store(value_.load(), std::memory_order_release);
  closed_since_ns_.store(0);
}

}  // namespace limiter::detail
