#pragma once
// A RangeSession on the fake Range Profiler (fake_range_backend.hpp), driven as the driver's
// callbacks drive it: the RangeSession tests' common harness.
#include <generated_nvtx_meta.h>
#include <stdlib.h>

#include <filesystem>
#include <functional>

#include "collect/collector_internal.hpp"
#include "collect/nvtx/nvtx_tracker.hpp"
#include "collect/range/range_session.hpp"
#include "fake_range_backend.hpp"

namespace limiter::test {

using detail::LaunchCall;
using detail::RangeSession;

inline const CUcontext kContext = reinterpret_cast<CUcontext>(0x10);

inline std::string temp_dir() {
  char pattern[] = "/tmp/limiter-range-session-XXXXXX";
  return mkdtemp(pattern);
}

struct Harness {
  explicit Harness(CollectorOptions options, bool ends_when_budgets_spent = false) {
    options.lock_dir = lock_dir;
    const std::vector<std::string> metrics = {"gpu__time_duration.sum", "fake__range_index"};
    sink.on_launch = [this](const KernelLaunch& launch) { streamed.push_back(launch); };
    session = std::make_unique<RangeSession>(options, metrics, backend, nvtx, &sink, ends_when_budgets_spent);
  }
  ~Harness() {
    session.reset();
    std::filesystem::remove_all(lock_dir);
  }

  // One launch as the driver makes it: ENTER, the kernel, EXIT.
  void launch(const char* kernel, Dim3 grid = {1, 1, 1}, bool failed = false, CUstream stream = nullptr) {
    LaunchCall call;
    call.context = kContext;
    call.stream = stream;
    call.function = reinterpret_cast<CUfunction>(std::hash<std::string>{}(kernel) | 1);
    call.symbol_name = kernel;
    call.grid = grid;
    call.block = {128, 1, 1};
    session->on_launch(call);
    if (!failed) backend.run_kernel(kContext);
    call.failed = failed;
    session->on_launch_exit(call);
  }

  // The app's NVTX push and pop on this thread, as CUPTI's NVTX callbacks hand them on. The
  // tracker's push/pop stacks are the thread's: a test pops what it pushed.
  void nvtx_push(const char* name) {
    nvtxRangePushA_params params{name};
    CUpti_NvtxData data{};
    data.functionParams = &params;
    nvtx.on_call(CUPTI_CBID_NVTX_nvtxRangePushA, data);
  }
  void nvtx_pop() { nvtx.on_call(CUPTI_CBID_NVTX_nvtxRangePop, CUpti_NvtxData{}); }

  std::vector<std::string> names(const std::vector<KernelLaunch>& launches) const {
    std::vector<std::string> out;
    for (const auto& launch : launches) out.push_back(launch.name);
    return out;
  }

  std::string lock_dir = temp_dir();
  FakeRangeBackend backend;
  detail::NvtxTracker nvtx;
  detail::LaunchSink sink;
  std::vector<KernelLaunch> streamed;
  std::unique_ptr<RangeSession> session;
};

// The record so far: the pending batch decoded first, as limiter run's exit does.
inline RunRecord finish(Harness& h) {
  h.session->flush();
  return h.session->finish();
}

inline CollectorOptions exact() {
  CollectorOptions options;
  options.always_active = true;
  return options;
}

}  // namespace limiter::test
