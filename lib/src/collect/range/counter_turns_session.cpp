// The exact session's side of its turns on the GPU's counters (counter_turns.hpp): a process
// takes the device's turn before its profiler starts, ends it when no context of it profiles on
// the device, and hands the counters over after a fair turn when another process waits.
#include "collect/range/range_session.hpp"

namespace limiter::detail {

// Before a profiler starts: this process's turn on the device. False after waiting
// lock_timeout in vain (the launches are counted as missed); later launches then only try.
bool RangeSession::take_turn(ContextProfiler& p, std::size_t launches) {
  const std::optional<double> waited = turns_.take(p.device_uuid);
  if (!waited) {
    miss(MissReason::lock_timeout, launches);
    return false;
  }
  times.turn_wait_s += *waited;
  return true;
}

// After a profiler stopped: the turn ends once no context of the process runs on the device.
void RangeSession::end_turn(ContextProfiler& p) {
  for (const auto& [context, other] : contexts)
    if (other->device_uuid == p.device_uuid && !other->paused && !other->retired) return;
  turns_.release(p.device_uuid);
}

// After a fair turn, a process hands the counters to one that waits: at a launch, at a sync
// point, or from the turn keeper when the app is busy elsewhere.
void RangeSession::yield_if_others_wait(ContextProfiler& p) {
  if (p.paused || p.retired) return;
  if (!turns_.should_yield(p.device_uuid, p.fresh)) return;
  LIMITER_TRACE("another process waits for the counters: yielding");
  ++times.turns_yielded;
  const auto started = Clock::now();
  batches_.pause(p);
  times.yield_s += seconds_since(started);
}

// The turn keeper's tick: a turn the app does not end itself. Its own pauses run with the
// context pushed.
void RangeSession::keep_turns_fair() {
  std::unique_lock lock(mutex, std::try_to_lock);
  if (!lock.owns_lock() || turns_.stopping()) return;
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

}  // namespace limiter::detail
