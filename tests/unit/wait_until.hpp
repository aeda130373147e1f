#pragma once
// Waits for what another thread of the code under test does (a sampler's decode thread, a
// session's start-up thread): true once CONDITION holds, false after five seconds.
#include <chrono>
#include <thread>

namespace limiter::test {

template <typename Condition>
bool wait_until(Condition condition) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace limiter::test
