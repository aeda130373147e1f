#pragma once
// A gate that holds a stream's work back while a user range is opened around a launch
// (user_ranges.cpp). Under user ranges the range's time is the GPU's time from PushRange to
// PopRange: with the GPU idle, it includes the host's work between the two (the driver's launch
// path, a module loaded at a kernel's first launch), not only the kernel's. The gate is a
// cuStreamWaitValue32 on a host flag, enqueued before PushRange and opened after PopRange, so
// the range's start, the launch and the range's end reach the GPU together.
//
// LIMITER_RANGE_GATE=1 turns it on (measured on an H100, bench/results/2026-11-23-graphs.md).
// A watchdog opens a gate left closed for 200 ms, so a stream can never wait for good.
#include <cuda.h>

#include <atomic>
#include <cstdint>

namespace limiter::detail {

void open_stale_gates();  // the watchdog's round: gates closed for too long are opened

class RangeGate {
 public:
  RangeGate() = default;
  ~RangeGate();
  RangeGate(const RangeGate&) = delete;
  RangeGate& operator=(const RangeGate&) = delete;

  // Enqueues the wait on STREAM (its context current). False when there is no gate: turned
  // off, or the driver refused the host flag or the wait (then never tried again).
  bool close(CUstream stream, bool per_thread_stream);
  void open() noexcept;  // lets the stream go on; harmless when open
  bool is_closed() const { return closed_since_ns_.load() != 0; }

 private:
  friend void open_stale_gates();
  std::uint32_t* host_ = nullptr;  // pinned, mapped: the flag the GPU polls
  CUdeviceptr device_ = 0;
  std::atomic<std::uint32_t> value_{0};  // the flag's value that opens the latest close
  bool unavailable_ = false;
  std::atomic<std::int64_t> closed_since_ns_{0};  // steady clock; 0: open
};

bool range_gate_enabled();  // LIMITER_RANGE_GATE=1

}  // namespace limiter::detail
