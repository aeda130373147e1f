#pragma once
// The cross-process lock on one GPU's performance counters. Two processes cannot both collect
// counters on a device (the second gets CUPTI_ERROR_HARDWARE_BUSY), so profiled processes take
// turns, as Nsight Compute serialises them with its own lock file.
//
// Two lock files per device, under LIMITER_LOCK_DIR (default /tmp):
//   limiter-counters-<device>.lock      held (write lock) by the process whose profiler runs
//   limiter-counters-<device>.waiting   held (read lock) by every process waiting for its turn
// The holder sees waiters through the second file and yields at its next batch boundary.
// POSIX record locks (fcntl F_SETLK), not flock(2): they belong to the process, so a child it
// forks (a DataLoader worker) does not inherit them and cannot keep the GPU's counters locked
// after its parent is gone; the kernel drops them when a process dies, however it dies.
// Pure POSIX: no CUDA, so the protocol is tested with forked processes on any machine.
#include <chrono>
#include <string>

namespace limiter::detail {

class CounterLock {
 public:
  // DEVICE names the GPU (its UUID): processes on different GPUs never wait for each other.
  // A lock file that cannot be created (no permission) leaves the lock disabled: acquire()
  // then always succeeds and disabled_reason() says why.
  CounterLock(const std::string& directory, const std::string& device);
  ~CounterLock();
  CounterLock(const CounterLock&) = delete;
  CounterLock& operator=(const CounterLock&) = delete;

  // Waits up to TIMEOUT for the turn; false when another process held it all that time.
  bool acquire(std::chrono::milliseconds timeout);
  void release();
  bool held() const { return held_; }
  // True when another process waits for its turn (a cheap non-blocking probe).
  bool others_waiting() const;
  // How long this process has held its turn.
  std::chrono::steady_clock::duration held_for() const;
  // Total time spent waiting for turns (what serialisation cost this process).
  std::chrono::steady_clock::duration waited() const { return waited_; }
  const std::string& disabled_reason() const { return disabled_reason_; }
  const std::string& path() const { return lock_path_; }

 private:
  std::string lock_path_, waiting_path_, disabled_reason_;
  int lock_fd_ = -1, waiting_fd_ = -1;
  bool held_ = false;
  std::chrono::steady_clock::time_point held_since_{}, released_at_{};
  std::chrono::steady_clock::duration waited_{};
};

}  // namespace limiter::detail
