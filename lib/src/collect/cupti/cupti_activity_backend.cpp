// The real ActivityBackend (activity_backend.hpp): CUPTI's Activity API, its callback names and
// the driver. CUPTI's buffer callbacks carry no user pointer, so the attached client is a
// process-wide one, as CUPTI's own registration is.
#include <cupti.h>

#include <atomic>
#include <cstdlib>
#include <mutex>

#include "collect/cupti/activity_backend.hpp"
#include "collect/cupti/api_names.hpp"
#include "collect/cupti/cupti_check.hpp"
#include "collect/cupti/device_description.hpp"
#include "collect/cupti/driver_api.hpp"

namespace limiter::detail {

namespace {

ActivityBufferClient* attached = nullptr;
std::mutex attached_mutex;
std::atomic<std::size_t> buffer_bytes{0};

void CUPTIAPI on_buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  const std::size_t bytes = buffer_bytes.load();
  *buffer = bytes ? static_cast<std::uint8_t*>(std::aligned_alloc(8, bytes)) : nullptr;
  *size = *buffer ? bytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI on_buffer_completed(CUcontext context, std::uint32_t stream, std::uint8_t* buffer, std::size_t,
                                  std::size_t valid) {
  {
    std::lock_guard lock(attached_mutex);
    if (attached) {
      attached->buffer_completed(context, stream, buffer, valid);  // it owns the buffer now
      return;
    }
  }
  std::free(buffer);
}

class CuptiActivityBackend final : public ActivityBackend {
 public:
  bool attach(ActivityBufferClient& client, std::size_t bytes) override {
    {
      std::lock_guard lock(attached_mutex);
      if (attached) return false;
      attached = &client;
      buffer_bytes = bytes;
    }
    try {
      LIMITER_CUPTI_CHECK(cuptiActivityRegisterCallbacks(on_buffer_requested, on_buffer_completed));
    } catch (...) {
      detach(client);
      throw;
    }
    return true;
  }
  void detach(ActivityBufferClient& client) noexcept override {
    std::lock_guard lock(attached_mutex);
    if (attached == &client) attached = nullptr;
  }
  void enable(CUpti_ActivityKind kind) override { LIMITER_CUPTI_CHECK(cuptiActivityEnable(kind)); }
  void disable(CUpti_ActivityKind kind) noexcept override { cuptiActivityDisable(kind); }
  bool enable_driver_call(std::uint32_t cbid, bool on) noexcept override {
    return cuptiActivityEnableDriverApi(static_cast<CUpti_CallbackId>(cbid), on ? 1 : 0) == CUPTI_SUCCESS;
  }
  bool enable_runtime_call(std::uint32_t cbid, bool on) noexcept override {
    return cuptiActivityEnableRuntimeApi(static_cast<CUpti_CallbackId>(cbid), on ? 1 : 0) == CUPTI_SUCCESS;
  }
  void flush_all(bool forced) noexcept override {
    cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
  }
  std::uint64_t dropped_records(CUcontext context, std::uint32_t stream) noexcept override {
    std::size_t dropped = 0;
    return cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS ? dropped : 0;
  }
  bool next_record(std::uint8_t* buffer, std::size_t valid, CUpti_Activity*& record) noexcept override {
    return cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS;
  }
  std::uint64_t timestamp() noexcept override {
    std::uint64_t t = 0;
    return cuptiGetTimestamp(&t) == CUPTI_SUCCESS ? t : 0;
  }
  const std::vector<std::string>& driver_call_names() override { return driver_api_names(); }
  const std::vector<std::string>& runtime_call_names() override { return runtime_api_names(); }
  std::optional<DeviceDescription> describe(CUcontext context) override {
    const DriverApi& cu = driver_api();
    CUdevice device = 0;
    if (context) cu.ctx_push_current(context);
    const CUresult got = cu.ctx_get_device(&device);
    if (context) cu.ctx_pop_current(&context);
    if (got != CUDA_SUCCESS) return std::nullopt;
    return describe_device(device);
  }
};

}  // namespace

ActivityBackend& cupti_activity_backend() {
  static auto* backend = new CuptiActivityBackend();  // never destroyed: CUPTI may call back at exit
  return *backend;
}

}  // namespace limiter::detail
