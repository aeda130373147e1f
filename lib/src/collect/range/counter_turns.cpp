// Turns on the GPU's counters between processes (counter_turns.hpp, counter_lock.hpp).
#include "collect/range/counter_turns.hpp"

#include <cstdio>

#include "collect/clock.hpp"

namespace limiter::detail {

CounterTurns::CounterTurns(std::string lock_dir, std::chrono::milliseconds timeout, std::function<void()> keeper_tick)
    : lock_dir_(std::move(lock_dir)), timeout_(timeout), keeper_tick_(std::move(keeper_tick)) {}

CounterTurns::~CounterTurns() { stop(); }

CounterLock& CounterTurns::lock(const std::string& device_uuid) {
  auto& slot = locks_[device_uuid];
  if (!slot) {
    slot = std::make_unique<CounterLock>(lock_dir_, device_uuid);
    if (!slot->disabled_reason().empty())
      std::fprintf(stderr, "limiter: warning: %s; processes on this GPU are not serialised\n",
                   slot->disabled_reason().c_str());
  }
  return *slot;
}

std::optional<double> CounterTurns::take(const std::string& device_uuid) {
  auto& turn = lock(device_uuid);
  if (turn.held()) return 0.0;
  const auto wait_started = Clock::now();
  if (!turn.acquire(starved_ ? std::chrono::milliseconds(0) : timeout_)) {
    starved_ = true;
    return std::nullopt;
  }
  starved_ = false;
  const double waited = seconds_since(wait_started);
  start_keeper(turn);
  return waited;
}

bool CounterTurns::try_take(const std::string& device_uuid) {
  auto& turn = lock(device_uuid);
  if (!turn.held() && !turn.acquire(std::chrono::milliseconds(0))) return false;
  start_keeper(turn);  // a turn held while the app waits elsewhere is handed over
  return true;
}

bool CounterTurns::should_yield(const std::string& device_uuid, bool fresh) {
  auto& turn = lock(device_uuid);
  return (turn.held_for() >= kMinTurn || fresh) && turn.others_waiting();
}

// A process that holds the counters and then waits on the CPU (for another profiled process,
// say) would otherwise keep the others waiting until their lock timeout.
void CounterTurns::start_keeper(const CounterLock& turn) {
  if (keeper_.joinable() || !turn.disabled_reason().empty() || !keeper_tick_) return;
  keeper_ = std::thread([this] {
    while (!stopping_.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (!stopping_.load()) keeper_tick_();
    }
  });
}

void CounterTurns::stop() {
  stopping_ = true;
  if (keeper_.joinable()) keeper_.join();
}

}  // namespace limiter::detail
