#pragma once
// An ActivityBackend without a GPU (collect/cupti/activity_backend.hpp), for the activity session's unit
// tests. It plays CUPTI's Activity API as the session uses it: records (CUPTI's own structs, from
// cupti_activity.h) are written only for the kinds and calls enabled, wait in the current buffer
// until a flush (or complete()) hands it to the attached client, and a stream can be made to drop
// records. An enable can be refused. The clock is a counter: every timestamp() is one later.
#include <cupti.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "collect/cupti/activity_backend.hpp"
#include "collect/cupti/cupti_check.hpp"

namespace limiter::test {

class FakeActivityBackend final : public detail::ActivityBackend {
 public:
  // Callback ids: driver 3, 5, 7 and runtime 2 are calls the timeline traces, the others not.
  std::vector<std::string> driver_names = {"",
                                           "cuInit",
                                           "cuMemAlloc_v2",
                                           "cuLaunchKernel",
                                           "cuCtxGetDevice",
                                           "cuMemcpyHtoD_v2",
                                           "cuModuleLoad",
                                           "cuCtxSynchronize"};
  std::vector<std::string> runtime_names = {"", "cudaMalloc", "cudaLaunchKernel", "cudaGetDevice"};
  std::optional<CUpti_ActivityKind> refuse;  // enable() of this kind fails as CUPTI's would
  bool refuse_per_call = false;              // CUPTI refuses the per-call choice of driver calls

  // What the session did, for the tests to see (read under lock() where its flusher may run).
  std::set<CUpti_ActivityKind> enabled;
  std::set<std::uint32_t> driver_calls, runtime_calls;
  int attaches = 0, flushes = 0, forced_flushes = 0, buffers = 0;
  detail::ActivityBufferClient* client = nullptr;

  std::unique_lock<std::mutex> lock() { return std::unique_lock(mutex_); }

  // A record as CUPTI writes it: into the current buffer, where its kind (or its call) is enabled.
  template <class Record>
  void record(const Record& r) {
    std::lock_guard guard(mutex_);
    if (!recorded(reinterpret_cast<const CUpti_Activity&>(r))) return;
    const std::size_t at = pending_.size();
    pending_.resize(at + padded(sizeof(Record)));
    std::memcpy(pending_.data() + at, &r, sizeof(Record));
  }
  // The next buffer of STREAM says RECORDS were dropped (no buffer space), as CUPTI counts them.
  void drop(std::uint32_t stream, std::uint64_t records) {
    std::lock_guard guard(mutex_);
    dropped_[stream] += records;
  }
  // The current buffer completed, as on CUPTI's thread: to the client, or freed with none.
  void complete(std::uint32_t stream = 0) {
    detail::ActivityBufferClient* to = nullptr;
    std::uint8_t* buffer = nullptr;
    std::size_t valid = 0;
    {
      std::lock_guard guard(mutex_);
      if (pending_.empty() && dropped_.count(stream) == 0) return;
      valid = pending_.size();
      buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, padded(valid + 1)));
      if (valid) std::memcpy(buffer, pending_.data(), valid);
      pending_.clear();
      to = client;
      ++buffers;
    }
    if (to)
      to->buffer_completed(nullptr, stream, buffer, valid);  // as CUPTI, outside its own locks
    else
      std::free(buffer);
  }

  bool attach(detail::ActivityBufferClient& c, std::size_t) override {
    std::lock_guard guard(mutex_);
    if (client) return false;
    client = &c;
    ++attaches;
    return true;
  }
  void detach(detail::ActivityBufferClient& c) noexcept override {
    std::lock_guard guard(mutex_);
    if (client == &c) client = nullptr;
  }
  void enable(CUpti_ActivityKind kind) override {
    std::lock_guard guard(mutex_);
    if (refuse == kind)
      throw detail::CuptiError("cuptiActivityEnable: CUPTI_ERROR_NOT_SUPPORTED", CUPTI_ERROR_NOT_SUPPORTED);
    enabled.insert(kind);
  }
  void disable(CUpti_ActivityKind kind) noexcept override {
    std::lock_guard guard(mutex_);
    enabled.erase(kind);
  }
  bool enable_driver_call(std::uint32_t cbid, bool on) noexcept override {
    std::lock_guard guard(mutex_);
    if (refuse_per_call) return false;
    on ? void(driver_calls.insert(cbid)) : void(driver_calls.erase(cbid));
    return true;
  }
  bool enable_runtime_call(std::uint32_t cbid, bool on) noexcept override {
    std::lock_guard guard(mutex_);
    on ? void(runtime_calls.insert(cbid)) : void(runtime_calls.erase(cbid));
    return true;
  }
  void flush_all(bool forced) noexcept override {
    {
      std::lock_guard guard(mutex_);
      ++flushes;
      forced_flushes += forced;
    }
    complete();
  }
  std::uint64_t dropped_records(CUcontext, std::uint32_t stream) noexcept override {
    std::lock_guard guard(mutex_);
    const auto it = dropped_.find(stream);
    if (it == dropped_.end()) return 0;
    const std::uint64_t records = it->second;
    dropped_.erase(it);  // CUPTI counts from its last answer
    return records;
  }
  bool next_record(std::uint8_t* buffer, std::size_t valid, CUpti_Activity*& record) noexcept override {
    std::uint8_t* next = record ? reinterpret_cast<std::uint8_t*>(record) + padded(size_of(record->kind)) : buffer;
    if (next >= buffer + valid) return false;
    record = reinterpret_cast<CUpti_Activity*>(next);
    return true;
  }
  std::uint64_t timestamp() noexcept override {
    std::lock_guard guard(mutex_);
    return ++clock_;
  }
  const std::vector<std::string>& driver_call_names() override { return driver_names; }
  const std::vector<std::string>& runtime_call_names() override { return runtime_names; }
  std::optional<DeviceDescription> describe(CUcontext) override {
    DeviceDescription device;
    device.name = "Fake H100";
    device.chip = "GH100";
    return device;
  }

 private:
  static std::size_t padded(std::size_t bytes) { return (bytes + 7) / 8 * 8; }
  static std::size_t size_of(CUpti_ActivityKind kind) {
    switch (kind) {
      case CUPTI_ACTIVITY_KIND_KERNEL:
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        return sizeof(CUpti_ActivityKernel10);
      case CUPTI_ACTIVITY_KIND_MEMCPY:
        return sizeof(CUpti_ActivityMemcpy6);
      case CUPTI_ACTIVITY_KIND_MEMSET:
        return sizeof(CUpti_ActivityMemset4);
      case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
        return sizeof(CUpti_ActivitySynchronization2);
      default:
        return sizeof(CUpti_ActivityAPI);  // RUNTIME, DRIVER
    }
  }
  bool recorded(const CUpti_Activity& r) const {
    if (r.kind == CUPTI_ACTIVITY_KIND_DRIVER)
      return enabled.count(r.kind) || driver_calls.count(reinterpret_cast<const CUpti_ActivityAPI&>(r).cbid);
    if (r.kind == CUPTI_ACTIVITY_KIND_RUNTIME)
      return runtime_calls.count(reinterpret_cast<const CUpti_ActivityAPI&>(r).cbid) > 0;
    return enabled.count(r.kind) > 0;
  }

  std::mutex mutex_;
  std::vector<std::uint8_t> pending_;  // the current buffer's records, each 8-byte aligned
  std::map<std::uint32_t, std::uint64_t> dropped_;
  std::uint64_t clock_ = 1000;
};

// CUPTI's records, as the GPU and the driver leave them.
inline CUpti_ActivityKernel10 kernel_record(const char* name, std::uint64_t start, std::uint64_t end,
                                            std::uint32_t correlation) {
  CUpti_ActivityKernel10 k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.name = name;
  k.start = start;
  k.end = end;
  k.correlationId = correlation;
  k.gridX = k.gridY = k.gridZ = 1;
  k.blockX = 128;
  k.blockY = k.blockZ = 1;
  return k;
}

inline CUpti_ActivityMemcpy6 copy_record(std::uint64_t start, std::uint64_t end, std::uint64_t bytes) {
  CUpti_ActivityMemcpy6 m{};
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
  m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.start = start;
  m.end = end;
  m.bytes = bytes;
  return m;
}

inline CUpti_ActivityMemset4 memset_record(std::uint64_t start, std::uint64_t end, std::uint64_t bytes) {
  CUpti_ActivityMemset4 m{};
  m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  m.start = start;
  m.end = end;
  m.bytes = bytes;
  return m;
}

inline CUpti_ActivitySynchronization2 sync_record(std::uint64_t start, std::uint64_t end) {
  CUpti_ActivitySynchronization2 s{};
  s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
  s.streamId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
  s.start = start;
  s.end = end;
  return s;
}

inline CUpti_ActivityAPI api_record(bool runtime, std::uint32_t cbid, std::uint64_t start, std::uint64_t end,
                                    std::uint32_t correlation) {
  CUpti_ActivityAPI a{};
  a.kind = runtime ? CUPTI_ACTIVITY_KIND_RUNTIME : CUPTI_ACTIVITY_KIND_DRIVER;
  a.cbid = cbid;
  a.start = start;
  a.end = end;
  a.correlationId = correlation;
  return a;
}

}  // namespace limiter::test
