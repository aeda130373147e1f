// Turns on the GPU's counters, the exact session's part (collect/range/counter_turns.hpp): a turn
// taken and released, a wait that times out leaves later takes only trying, a start ahead never
// waits, and the turn keeper ticks from the first turn on. Another process is a forked child.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>

#include "collect/range/counter_turns.hpp"
#include "wait_until.hpp"

namespace limiter {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

struct TurnsTest : ::testing::Test {
  void SetUp() override {
    dir = fs::temp_directory_path() / ("limiter_turns_test_" + std::to_string(getpid()));
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  // Another process holds the device's turn until it reads a byte from `release_child`.
  pid_t hold_in_child(const std::string& device) {
    EXPECT_EQ(pipe(ready), 0);
    EXPECT_EQ(pipe(release_child), 0);
    const pid_t pid = fork();
    if (pid == 0) {
      detail::CounterTurns turns(dir.string(), 0ms, {});
      char byte = 1;
      if (!turns.take(device) || write(ready[1], &byte, 1) != 1 || read(release_child[0], &byte, 1) != 1) _exit(1);
      _exit(0);
    }
    char byte = 0;
    EXPECT_EQ(read(ready[0], &byte, 1), 1);
    return pid;
  }
  int let_go(pid_t pid) {
    char byte = 1;
    EXPECT_EQ(write(release_child[1], &byte, 1), 1);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  fs::path dir;
  int ready[2] = {-1, -1}, release_child[2] = {-1, -1};
};

TEST_F(TurnsTest, ATurnIsTakenOnceAndReleased) {
  std::atomic<int> ticks{0};
  detail::CounterTurns turns(dir.string(), 1000ms, [&] { ++ticks; });
  EXPECT_FALSE(turns.keeper_running());
  ASSERT_TRUE(turns.take("GPU-a").has_value());
  EXPECT_TRUE(turns.lock("GPU-a").held());
  EXPECT_EQ(*turns.take("GPU-a"), 0.0);  // held already: no wait
  EXPECT_TRUE(turns.keeper_running());   // from the first turn on
  EXPECT_TRUE(test::wait_until([&] { return ticks.load() > 0; }));
  turns.release("GPU-a");
  EXPECT_FALSE(turns.lock("GPU-a").held());
  EXPECT_FALSE(turns.should_yield("GPU-a", /*fresh=*/true));  // nobody waits
  turns.stop();
  EXPECT_FALSE(turns.keeper_running());
  EXPECT_TRUE(turns.stopping());
}

TEST_F(TurnsTest, AWaitThatTimesOutMakesLaterTakesOnlyTry) {
  const pid_t holder = hold_in_child("GPU-b");
  detail::CounterTurns turns(dir.string(), 50ms, {});
  EXPECT_FALSE(turns.take("GPU-b").has_value());  // waited 50 ms in vain
  EXPECT_FALSE(turns.try_take("GPU-b"));          // a start ahead never waits
  EXPECT_TRUE(turns.take("GPU-c").has_value());   // another device: its own turn
  EXPECT_EQ(let_go(holder), 0);
  ASSERT_TRUE(turns.take("GPU-b").has_value());  // free now: taken at once
  EXPECT_TRUE(turns.lock("GPU-b").held());
}

TEST_F(TurnsTest, AProfilerStartedAheadHandsOverAtOnceToAWaitingProcess) {
  detail::CounterTurns turns(dir.string(), 1000ms, {});
  ASSERT_TRUE(turns.try_take("GPU-d"));
  const pid_t waiter = fork();
  if (waiter == 0) _exit(detail::CounterTurns(dir.string(), 5000ms, {}).take("GPU-d") ? 0 : 1);
  EXPECT_TRUE(test::wait_until([&] { return turns.should_yield("GPU-d", /*fresh=*/true); }));
  turns.release("GPU-d");
  int status = 0;
  waitpid(waiter, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

}  // namespace
}  // namespace limiter
