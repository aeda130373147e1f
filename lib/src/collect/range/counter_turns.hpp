#pragma once
// Turns on the GPU's counters between processes, a part of the exact session (range_session.hpp):
// one CounterLock per device (counter_lock.hpp), taken before a profiler starts and released once
// no context of the process profiles on the device; after a fair turn, handed to a process that
// waits; and the turn keeper, a thread that hands the counters over when the app is busy
// elsewhere (its tick is the session's: it knows the contexts).
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "collect/counter_lock.hpp"

namespace limiter::detail {

// The shortest turn on the GPU's counters before a process yields to a waiting one: each turn
// costs a Stop, a Disable, an Enable and a Start (limiter run --timing shows how much).
constexpr auto kMinTurn = std::chrono::milliseconds(1000);

class CounterTurns {
 public:
  // LOCK_DIR: the lock files' folder (CollectorOptions::lock_dir). TIMEOUT: the longest wait for
  // a turn. KEEPER_TICK: what the turn keeper does every 50 ms, from the first turn on.
  CounterTurns(std::string lock_dir, std::chrono::milliseconds timeout, std::function<void()> keeper_tick);
  ~CounterTurns();  // the turn keeper stopped and joined
  CounterTurns(const CounterTurns&) = delete;
  CounterTurns& operator=(const CounterTurns&) = delete;

  // The device's lock (made at its first use; a disabled one says why on stderr, once).
  CounterLock& lock(const std::string& device_uuid);
  // This process's turn on the device: the seconds waited for it (0 when held already); nothing
  // after waiting the timeout in vain, and from then on later calls only try, until one succeeds.
  std::optional<double> take(const std::string& device_uuid);
  // The turn where it is free at once; never waits (a start ahead).
  bool try_take(const std::string& device_uuid);
  void release(const std::string& device_uuid) { lock(device_uuid).release(); }
  // A fair turn is over and another process waits: time to hand over. FRESH: a profiler started
  // ahead and not used yet hands over at once (its process may never profile).
  bool should_yield(const std::string& device_uuid, bool fresh);
  // The turn keeper hands nothing over from now on (the process ends); stop() also joins it.
  void stop_handing_over() { stopping_ = true; }
  bool stopping() const { return stopping_.load(); }
  void stop();
  bool keeper_running() const { return keeper_.joinable(); }

 private:
  void start_keeper(const CounterLock& lock);  // once the process holds a turn

  std::string lock_dir_;
  std::chrono::milliseconds timeout_;
  std::function<void()> keeper_tick_;
  std::map<std::string, std::unique_ptr<CounterLock>> locks_;  // by device UUID
  bool starved_ = false;  // a turn did not come in the timeout: later takes only try
  std::thread keeper_;
  std::atomic<bool> stopping_{false};
};

}  // namespace limiter::detail
