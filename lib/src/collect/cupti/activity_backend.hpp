#pragma once
// The seam between the Activity API's users (ActivitySession, ActivityTimestamps) and CUPTI:
// every Activity, callback-name and driver call they make (as RangeBackend is for the exact
// mode). cupti_activity_backend.cpp makes the real calls; unit tests give a fake
// (tests/unit/fake_activity_backend.hpp) that delivers buffers of CUPTI's own record structs,
// drops records, flushes on demand and refuses an enable, so the timeline needs no GPU.
#include <cuda.h>
#include <cupti_activity.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "limiter/record.hpp"

namespace limiter::detail {

// Who gets the completed activity buffers: one client per process (CUPTI's buffer callbacks are
// process-wide). Called on CUPTI's thread, or within flush_all.
class ActivityBufferClient {
 public:
  virtual ~ActivityBufferClient() = default;
  // BUFFER (std::aligned_alloc'd) holds VALID bytes of records and is the client's from here:
  // it frees it with std::free. Its records are read with ActivityBackend::next_record, and
  // those CUPTI dropped from its stream with ActivityBackend::dropped_records.
  virtual void buffer_completed(CUcontext context, std::uint32_t stream, std::uint8_t* buffer, std::size_t valid) = 0;
};

// Failures throw CuptiError (cupti_check.hpp) naming the call, unless the call says otherwise.
class ActivityBackend {
 public:
  virtual ~ActivityBackend() = default;

  // Completed buffers to CLIENT from now on, in buffers of BUFFER_BYTES; false (nothing changed)
  // while another client has them.
  virtual bool attach(ActivityBufferClient& client, std::size_t buffer_bytes) = 0;
  // Buffers completed from now on are freed, not handed to CLIENT (if it is the one attached).
  virtual void detach(ActivityBufferClient& client) noexcept = 0;

  virtual void enable(CUpti_ActivityKind kind) = 0;
  virtual void disable(CUpti_ActivityKind kind) noexcept = 0;
  // Records of one driver or runtime call only (CUPTI's per-call choice); false where refused.
  virtual bool enable_driver_call(std::uint32_t cbid, bool on) noexcept = 0;
  virtual bool enable_runtime_call(std::uint32_t cbid, bool on) noexcept = 0;
  // The completed buffers to the client; FORCED (at the end only, as CUPTI advises) also those
  // with records still being written.
  virtual void flush_all(bool forced) noexcept = 0;
  // The records CUPTI dropped on CONTEXT's STREAM (buffer_completed's).
  virtual std::uint64_t dropped_records(CUcontext context, std::uint32_t stream) noexcept = 0;
  // The record after RECORD in a completed buffer (RECORD null: the first); false at its end.
  virtual bool next_record(std::uint8_t* buffer, std::size_t valid, CUpti_Activity*& record) noexcept = 0;
  // The GPU clock of the records; 0 when it cannot be read.
  virtual std::uint64_t timestamp() noexcept = 0;

  // The driver's and the runtime's API function names by callback id (empty where unknown).
  virtual const std::vector<std::string>& driver_call_names() = 0;
  virtual const std::vector<std::string>& runtime_call_names() = 0;
  // CONTEXT's device described (the driver asked); nullopt where it cannot tell. Throws on failure.
  virtual std::optional<DeviceDescription> describe(CUcontext context) = 0;

  // CBID's name in the runtime's table (RUNTIME) or the driver's; empty where unknown.
  std::string api_name(bool runtime, std::uint32_t cbid) {
    const auto& names = runtime ? runtime_call_names() : driver_call_names();
    return cbid < names.size() ? names[cbid] : std::string();
  }
};

// The real one: CUPTI and the driver. One for the process, as CUPTI's state is; never destroyed.
ActivityBackend& cupti_activity_backend();

}  // namespace limiter::detail
