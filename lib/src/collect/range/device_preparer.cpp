// A device's set-up for the exact session, prepared off the app's thread (device_preparer.hpp).
#include "collect/range/device_preparer.hpp"

#include "collect/clock.hpp"
#include "collect/trace.hpp"
#include "limiter/error.hpp"

namespace limiter::detail {

PreparedDevice prepare_device(RangeBackend& backend, CUdevice device, CUcontext context,
                              const std::vector<std::string>& metrics) {
  PreparedDevice out;
  auto step = Clock::now();
  if (context) backend.push_context(context);
  try {
    backend.check_supported(device);  // cuptiProfilerInitialize too, the first time
    out.supported_s = seconds_since(step);
    step = Clock::now();
    out.description = backend.describe(device);
    out.describe_s = seconds_since(step);
  } catch (...) {
    out.device_error = std::current_exception();
  }
  if (context) backend.pop_context();
  if (out.device_error) return out;
  // No counter-availability image: RangeSession::set_up says why.
  step = Clock::now();
  try {
    out.host = backend.counter_host(out.description.chip, {});
    out.config = out.host->config_image(metrics);
    out.passes = out.host->pass_count(out.config);
  } catch (...) {
    out.config_error = std::current_exception();
  }
  out.config_s = seconds_since(step);
  return out;
}

DevicePreparer::~DevicePreparer() { close_and_join(); }

void DevicePreparer::close_and_join() noexcept {
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    for (auto& [device, slot] : slots_)
      if (slot.thread.joinable()) threads.push_back(std::move(slot.thread));
  }
  for (auto& thread : threads) thread.join();  // outside the lock: a preparer takes it to finish
}

void DevicePreparer::start(CUdevice device, CUcontext context) noexcept {
  std::lock_guard lock(mutex_);
  if (closed_ || slots_.count(device)) return;
  Slot& slot = slots_[device];
  slot.context = context;
  ++running_;
  try {
    slot.thread = std::thread([this, device, context] { run(device, context); });
  } catch (const std::exception& e) {  // no thread: set_up prepares on the app's thread, as before
    --running_;
    slots_.erase(device);
    LIMITER_TRACE("device %d: no preparer thread (%s)", static_cast<int>(device), e.what());
  }
}

void DevicePreparer::run(CUdevice device, CUcontext context) noexcept {
  LIMITER_TRACE(
      "device %d: preparing off the app's thread (profiler initialise, support check, description, "
      "config image)",
      static_cast<int>(device));
  std::optional<PreparedDevice> prepared;
  try {
    prepared = prepare_device(backend_, device, context, metrics_);
    if (prepared->device_error || prepared->config_error) {
      try {
        std::rethrow_exception(prepared->device_error ? prepared->device_error : prepared->config_error);
      } catch (const std::exception& e) {
        LIMITER_TRACE("device %d: preparation failed (done again at the first profiled launch): %s",
                      static_cast<int>(device), e.what());
      } catch (...) {
      }
    } else {
      LIMITER_TRACE(
          "device %d: prepared in %.1f ms: support check %.1f ms, description %.1f ms, config image %.1f ms "
          "(%zu passes)",
          static_cast<int>(device), (prepared->supported_s + prepared->describe_s + prepared->config_s) * 1e3,
          prepared->supported_s * 1e3, prepared->describe_s * 1e3, prepared->config_s * 1e3, prepared->passes);
    }
  } catch (const std::exception& e) {  // out of memory: nothing prepared, set_up does it
    prepared.reset();
    LIMITER_TRACE("device %d: preparation lost: %s", static_cast<int>(device), e.what());
  }
  const bool succeeded = prepared && !prepared->device_error && !prepared->config_error;
  bool closed = false;
  {
    std::lock_guard lock(mutex_);
    Slot& slot = slots_.at(device);
    slot.result = std::move(prepared);
    slot.done = true;
    closed = closed_;
  }
  done_.notify_all();
  if (succeeded && !closed && on_prepared) on_prepared(device, context);  // counted as running: wait_idle waits
  --running_;
}

std::optional<PreparedDevice> DevicePreparer::take(CUdevice device, double& waited) {
  waited = 0;
  std::unique_lock lock(mutex_);
  const auto it = slots_.find(device);
  if (it == slots_.end() || it->second.taken) return std::nullopt;
  Slot& slot = it->second;
  slot.taken = true;  // handed over once, or given up
  const auto started = Clock::now();
  if (!slot.done) LIMITER_TRACE("device %d: waiting for its preparation", static_cast<int>(device));
  const bool done = done_.wait_for(lock, kPrepareTimeout, [&slot] { return slot.done; });
  waited = seconds_since(started);
  if (!done) {
    throw SystemError("the device's profiling set-up (support check, description, config image) did not finish in " +
                      std::to_string(kPrepareTimeout.count()) + " s");
  }
  // Its thread is joined at the end (the destructor): it may still run on_prepared, or be the
  // caller.
  return std::move(slot.result);
}

void DevicePreparer::close() noexcept {
  std::lock_guard lock(mutex_);
  closed_ = true;
}

void DevicePreparer::wait_for_context(CUcontext context, std::chrono::milliseconds wait) noexcept {
  std::unique_lock lock(mutex_);
  done_.wait_for(lock, wait, [this, context] {
    for (const auto& [device, slot] : slots_)
      if (slot.context == context && !slot.done) return false;
    return true;
  });
}

bool DevicePreparer::wait_idle(std::chrono::milliseconds wait) const noexcept {
  const auto deadline = Clock::now() + wait;
  while (running_.load() > 0) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace limiter::detail
