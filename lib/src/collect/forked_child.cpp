#include "collect/forked_child.hpp"

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <csignal>

namespace limiter::detail {
namespace {

volatile sig_atomic_t forked = 0;
std::atomic<pid_t> owner{0};  // the process that profiles

void on_fork_in_child() { forked = 1; }

}  // namespace

void watch_for_fork() noexcept {
  pid_t expected = 0;
  if (!owner.compare_exchange_strong(expected, getpid())) return;
  pthread_atfork(nullptr, nullptr, on_fork_in_child);
}

bool in_forked_child() noexcept { return forked != 0; }

bool in_forked_child_by_pid() noexcept {
  if (forked) return true;
  const pid_t profiling = owner.load(std::memory_order_relaxed);
  return profiling != 0 && profiling != getpid();
}

}  // namespace limiter::detail
