#pragma once
// A device's set-up for the exact session, prepared off the app's thread (the set-up
// at a process's first profiled launch cost 86-153 ms in PyTorch processes, H100, 2026-11-26).
//
// What is prepared, per device, on a thread of its own (prepare_device): the profiler
// initialised and the device's support checked (RangeBackend::check_supported), its
// description (describe: driver attributes and CUPTI's chip name), and the plan's counter host,
// config image and pass count (host-only nvperf work). It starts when a context is created
// (RangeSession::on_context_created) or a region begins on a thread with a current context;
// the context's first selected launch (RangeSession::set_up) takes the result, waiting for it
// if it is not ready. A preparation that failed is done again there, on the launch's thread
// where it always ran, so the error said (and the launches missed) are what they were.
//
// None of these calls touches the GPU's counters, so none needs the counter turn
// (counter_lock.hpp), which set_up still takes before the profiler's own calls: the calls
// seen to meet CUPTI_ERROR_HARDWARE_BUSY are the counter-availability query, SetConfig and
// Start, all still made on set_up's path, inside the turn.
//
// Concurrency: the preparer's calls run beside the app's CUDA calls. The driver's device
// attribute queries are thread-safe; cuptiProfilerInitialize runs once, behind a function-local
// static (a second caller waits for it); the counter host is a host object of its own, handed
// to one context only (the PM sampler's host side is built the same way, on a thread of its
// own: pm_sampling_session.cpp). The app's thread waits for a preparer only inside set_up, as
// it already waits inside a launch callback for the turn keeper's CUPTI calls (counter_turns.cpp);
// that wait is bounded all the same (kPrepareTimeout).
#include <cuda.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "collect/range/range_backend.hpp"

namespace limiter::detail {

// A device's preparation: what it found, or the error it stopped at. The device part first
// (support, description); the config part only after it succeeded.
struct PreparedDevice {
  std::exception_ptr device_error;  // check_supported or describe threw
  DeviceDescription description;
  std::exception_ptr config_error;  // the counter host, config image or pass count threw
  std::unique_ptr<CounterHost> host;
  std::vector<std::uint8_t> config;
  std::size_t passes = 0;
  double supported_s = 0, describe_s = 0, config_s = 0;  // where it ran
};

// The preparation itself, on the calling thread (set_up calls it where nothing was prepared).
// CONTEXT, unless null, is made current for the device part: cuptiProfilerDeviceSupported reads
// a device of 0 as "the current context's", and a thread of ours has none.
PreparedDevice prepare_device(RangeBackend& backend, CUdevice device, CUcontext context,
                              const std::vector<std::string>& metrics);

// How long set_up waits for a preparation before it gives the context up (an error it names).
inline constexpr std::chrono::seconds kPrepareTimeout{60};

class DevicePreparer {
 public:
  DevicePreparer(RangeBackend& backend, std::vector<std::string> metrics)
      : backend_(backend), metrics_(std::move(metrics)) {}
  ~DevicePreparer();  // joins the preparers still running
  DevicePreparer(const DevicePreparer&) = delete;
  DevicePreparer& operator=(const DevicePreparer&) = delete;

  // Starts preparing DEVICE on a thread of its own, CONTEXT (one of the device's) current there;
  // once per device, nothing after close().
  void start(CUdevice device, CUcontext context) noexcept;
  // DEVICE's preparation, waited for (WAITED: the seconds), and handed over once: nothing
  // where none was started or it was taken already. Throws SystemError after kPrepareTimeout.
  std::optional<PreparedDevice> take(CUdevice device, double& waited);
  // No preparation starts from now on (the session finished).
  void close() noexcept;
  // Closed, and every preparer thread joined (on_prepared included).
  void close_and_join() noexcept;
  // Called on the preparer's thread once a preparation succeeded and was published (set before
  // the first start): the session starts the context's profiler ahead (start_ahead). It may
  // call take() for that device from there.
  std::function<void(CUdevice, CUcontext)> on_prepared;
  // The app destroys CONTEXT: a preparation that made it current ends first (bounded by WAIT).
  void wait_for_context(CUcontext context, std::chrono::milliseconds wait) noexcept;
  // The process ends: waits at most WAIT for the preparers still running (they must not be
  // inside CUPTI while its libraries are torn down); true when none runs. No lock taken.
  bool wait_idle(std::chrono::milliseconds wait) const noexcept;

 private:
  struct Slot {
    CUcontext context = nullptr;
    std::thread thread;
    bool done = false, taken = false;
    std::optional<PreparedDevice> result;
  };
  void run(CUdevice device, CUcontext context) noexcept;

  RangeBackend& backend_;
  const std::vector<std::string> metrics_;
  std::mutex mutex_;
  std::condition_variable done_;
  std::map<CUdevice, Slot> slots_;
  bool closed_ = false;
  std::atomic<int> running_{0};
};

}  // namespace limiter::detail
