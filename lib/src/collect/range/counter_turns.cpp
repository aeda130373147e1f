// Turns on the GPU's counters between processes (counter_lock.hpp): a process takes the
// device's lock before its profiler starts, ends its turn when no context of it profiles on the
// device, and hands the counters over after a fair turn when another process waits.
#include <thread>

#include "collect/range/range_session.hpp"

namespace limiter::detail {

CounterLock& RangeSession::counter_lock(const ContextProfiler& p) { return counter_lock(p.device_uuid); }

CounterLock& RangeSession::counter_lock(const std::string& device_uuid) {
  auto& slot = counter_locks[device_uuid];
  if (!slot) {
    slot = std::make_unique<CounterLock>(options.lock_dir, device_uuid);
    if (!slot->disabled_reason().empty())
      std::fprintf(stderr, "limiter: warning: %s; processes on this GPU are not serialised\n",
                   slot->disabled_reason().c_str());
  }
  return *slot;
}

// Before a profiler starts: this process's turn on the device. False after waiting
// lock_timeout in vain (the launches are counted as missed); later launches then only try.
bool RangeSession::take_turn(ContextProfiler& p, std::size_t launches) {
  auto& lock = counter_lock(p);
  if (lock.held()) return true;
  const auto wait_started = Clock::now();
  if (!lock.acquire(lock_starved ? std::chrono::milliseconds(0) : lock_timeout)) {
    lock_starved = true;
    miss(MissReason::lock_timeout, launches);
    return false;
  }
  lock_starved = false;
  times.turn_wait_s += seconds_since(wait_started);
  start_turn_keeper(lock);
  return true;
}

void RangeSession::start_turn_keeper(const CounterLock& lock) {
  if (!turn_keeper.joinable() && lock.disabled_reason().empty()) turn_keeper = std::thread([this] { keep_turns_fair(); });
}

// After a profiler stopped: the turn ends once no context of the process runs on the device.
void RangeSession::end_turn(ContextProfiler& p) {
  for (const auto& [context, other] : contexts)
    if (other->device_uuid == p.device_uuid && !other->paused && !other->retired) return;
  counter_lock(p).release();
}

// After a fair turn, a process hands the counters to one that waits: at a launch, at a sync
// point, or from the turn keeper when the app is busy elsewhere.
void RangeSession::yield_if_others_wait(ContextProfiler& p) {
  if (p.paused || p.retired) return;
  auto& lock = counter_lock(p);
  // A profiler started ahead and not used yet hands over at once: its process may never profile.
  if ((lock.held_for() < kMinTurn && !p.fresh) || !lock.others_waiting()) return;
  LIMITER_TRACE("another process waits for the counters: yielding");
  ++times.turns_yielded;
  const auto started = Clock::now();
  pause(p);
  times.yield_s += seconds_since(started);
}

// A thread that ends a turn the app does not end itself: a process that holds the counters
// and then waits on the CPU (for another profiled process, say) would otherwise keep the
// others waiting until their lock timeout. Its own pauses run with the context pushed.
void RangeSession::keep_turns_fair() {
  while (!stopping.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::unique_lock lock(mutex, std::try_to_lock);
    if (!lock.owns_lock() || stopping.load()) continue;
    for (auto& [context, profiler] : contexts) {
      if (profiler->paused || profiler->retired) continue;
      backend.push_context(profiler->context);  // this thread has no context current
      try {
        yield_if_others_wait(*profiler);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "limiter: profiling error while handing the counters over: %s\n", e.what());
      }
      backend.pop_context();
    }
  }
}

}  // namespace limiter::detail
