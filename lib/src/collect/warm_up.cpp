// The default run's hand-over from the PC-sampling window to the counters phase, without the
// Range Profiler's first Start on the app's path. A process's first Start costs 0.3-0.8 s, later
// ones ~45 ms (bench/results/2026-11-26-starts.md); at the hand-over the app's next launch would
// wait for it. Instead the preparer (device_preparer.hpp) prepares the device and starts and
// stops the profiler once (start_ahead) while the app's launches run on unprofiled: each
// kernel's budget takes its first launches after that. The launches let through are in the
// record (missed, with the reason), so a kernel launched only then is not lost silently.
#include "collect/demangle.hpp"
#include "collect/range_session.hpp"

namespace limiter::detail {
namespace {

// Past this the app's launches stop passing: set_up waits for the preparation as it did before
// (bounded by kPrepareTimeout), so a preparer that hangs costs at most this much of the budgets.
constexpr auto kWarmUpBound = std::chrono::seconds(5);

}  // namespace

void RangeSession::begin_warm_up() {
  const CUcontext context = backend.current_context();
  if (!context) return;  // the next launch's set_up prepares on the app's thread, as before
  warm_up_began_ = Clock::now().time_since_epoch().count();
  warming_up_ = true;
  bool started = false;
  try {
    started = preparer.start(backend.device_of(context), context);
  } catch (const std::exception& e) {
    LIMITER_TRACE("counters phase: no start ahead (%s)", e.what());
  }
  if (!started) warming_up_ = false;
}

bool RangeSession::warm_up_overdue() const {
  const Clock::rep began = warm_up_began_.load(std::memory_order_relaxed);
  return Clock::now().time_since_epoch().count() - began >
         std::chrono::duration_cast<Clock::duration>(kWarmUpBound).count();
}

void RangeSession::end_warm_up() noexcept {
  if (!warming_up_.load()) return;
  std::lock_guard lock(mutex);
  warm_up_s_ = std::chrono::duration<double>(Clock::now().time_since_epoch() -
                                             Clock::duration(warm_up_began_.load())).count();
  warming_up_ = false;
}

void RangeSession::note_warm_up_launch(const char* kernel) {
  warm_up_launches_.fetch_add(1, std::memory_order_relaxed);
  try {
    std::lock_guard lock(warm_up_mutex_);
    ++warm_up_only_[kernel ? kernel : "(a graph launch)"];
    any_warm_up_only_ = true;
  } catch (const std::exception&) {  // out of memory: counted above all the same
  }
}

// A kernel launched again after the warm-up gets its budget then: it is no loss.
void RangeSession::note_launch_after_warm_up(const char* kernel) {
  if (!any_warm_up_only_.load(std::memory_order_relaxed) || !kernel) return;
  std::lock_guard lock(warm_up_mutex_);
  warm_up_only_.erase(kernel);
  any_warm_up_only_ = !warm_up_only_.empty();
}

void RangeSession::miss_warm_up_only_kernels() {
  warming_up_ = false;
  std::lock_guard lock(warm_up_mutex_);
  std::uint64_t launches = 0;
  std::string names;
  for (const auto& [kernel, count] : warm_up_only_) {
    launches += count;
    if (names.size() < 200) names += (names.empty() ? "" : ", ") + demangle(kernel.c_str());
  }
  if (launches == 0) return;
  miss(MissReason::warming_up, launches,
       std::to_string(warm_up_only_.size()) + " kernels launched only then: " + names);
  warm_up_only_.clear();
}

}  // namespace limiter::detail
