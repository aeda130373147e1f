// Nothing collected is lost silently: what the record says about launches it could not
// profile, status lines of a partial run, the places where an app waits for the GPU, and the
// cross-process lock on a GPU's counters (with real forked processes).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "collect/counter_lock.hpp"
#include "collect/sync_points.hpp"
#include "limiter/analysis.hpp"
#include "limiter/record_json.hpp"
#include "limiter/record_stream.hpp"
#include "limiter/reports.hpp"
#include "limiter/run_summary.hpp"

namespace limiter {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

RunRecord run_with_launches(std::size_t count) {
  RunRecord run;
  run.tool_version = "test";
  run.source = "cupti";
  run.device.name = "NVIDIA H200";
  run.device.arch = "sm_90";
  run.device.sm_count = 132;
  for (std::size_t i = 0; i < count; ++i) {
    KernelLaunch launch;
    launch.sequence = i;
    launch.name = "kernel_" + std::to_string(i % 3);
    launch.grid = {64, 1, 1};
    launch.block = {256, 1, 1};
    launch.counters["gpu__time_duration.sum"] = 1000.0 + static_cast<double>(i);
    run.launches.push_back(launch);
  }
  return run;
}

TEST(NothingLost, MissedLaunchesAndEndRoundTripThroughBothReaders) {
  RunRecord run = run_with_launches(3);
  run.missed = {{"the GPU's counters were held by another tool", 32, "stop the other tool"},
                {"the process ended before their batch was decoded", 5, "synchronise"}};
  run.ended = "signal SIGTERM";
  run.launches_seen = 40;
  run.kernels_seen = {{"kernel_0", {64, 1, 1}, {256, 1, 1}, 30}, {"kernel_1", {64, 1, 1}, {256, 1, 1}, 10}};
  EXPECT_EQ(run.missed_launches(), 37u);
  const fs::path path = fs::temp_directory_path() / "limiter_missed_roundtrip.json";
  write_run_file(run, path.string());
  EXPECT_EQ(read_run_file(path.string()), run);  // the streaming reader: the header comes first
  EXPECT_EQ(run_from_json(nlohmann::json::parse(to_json(run).dump())), run);
  std::istringstream text(to_json(run).dump(1));  // the SAX reader
  RunRecord streamed;
  read_run_stream(
      text, "<text>", [&](const RunRecord& header) { streamed = header; },
      [&](KernelLaunch&& launch) { streamed.launches.push_back(std::move(launch)); });
  EXPECT_EQ(streamed, run);
  fs::remove(path);
}

// What the injection library writes: the tally of missed launches as it changes, among the
// launches; then SIGKILL. The recovered record has every launch and the latest tally.
TEST(NothingLost, PartialRunStatusLinesAreKeptAndDoNotStopTheLaunches) {
  const RunRecord full = run_with_launches(4);
  RunRecord header = full;
  header.launches.clear();
  const fs::path dir = fs::temp_directory_path();
  const std::string partial = (dir / "limiter_status.partial").string();
  const std::string output = (dir / "limiter_status.json").string();
  {
    std::ofstream out(partial);
    out << partial_run_header(header) << "\n";
    out << launch_json(full.launches[0]).dump() << "\n";
    RunRecord status;
    status.missed = {{"busy", 1, "wait"}};
    out << partial_status_line(status) << "\n";
    out << launch_json(full.launches[1]).dump() << "\n";
    out << launch_json(full.launches[2]).dump() << "\n";
    status.missed = {{"busy", 7, "wait"}};
    status.launches_seen = 12;
    out << partial_status_line(status) << "\n";
    out << launch_json(full.launches[3]).dump() << "\n";
    RunRecord seen;  // per-kernel budgets: written once, at exit
    seen.kernels_seen = {{"kernel_0", {64, 1, 1}, {256, 1, 1}, 9}};
    out << partial_status_line(seen) << "\n";
    out << "{\"sequence\": 4, \"na";  // killed mid-write
  }
  RunRecord expected = full;
  expected.missed = {{"busy", 7, "wait"}};
  expected.launches_seen = 12;
  expected.kernels_seen = {{"kernel_0", {64, 1, 1}, {256, 1, 1}, 9}};
  EXPECT_EQ(read_partial_run(partial), expected);

  EXPECT_EQ(finish_partial_run(partial, output, "killed"), 4u);
  expected.ended = "killed";
  EXPECT_EQ(read_run_file(output), expected);
  // An ended line written by the process wins over the caller's guess.
  {
    RunRecord ended;
    ended.ended = "signal SIGSEGV";
    std::ofstream(partial, std::ios::app) << "\n" << partial_status_line(ended) << "\n";
  }
  finish_partial_run(partial, output, "killed");
  EXPECT_EQ(read_run_file(output).ended, "signal SIGSEGV");
  fs::remove(partial);
  fs::remove(output);
}

// A record that misses launches says so at the top of every report, with the fix.
TEST(NothingLost, ReportsSayWhatIsMissingAndHowTheProcessEnded) {
  RunRecord run = run_with_launches(3);
  run.missed = {
      {"the GPU's counters were held by another tool (CUPTI_ERROR_HARDWARE_BUSY)", 29, "stop the other tool"}};
  run.ended = "signal SIGSEGV";
  const RunSummary summary = summarize(analyze_run(run));
  std::ostringstream text, markdown, json;
  write_text_report(summary, text);
  write_markdown_report(summary, markdown);
  write_json_report(summary, json);
  EXPECT_NE(text.str().find("WARNING: not profiled: 29 launches — the GPU's counters were held by another tool "
                            "(CUPTI_ERROR_HARDWARE_BUSY) (fix: stop the other tool)"),
            std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("WARNING: the process ended by SIGSEGV"), std::string::npos) << text.str();
  EXPECT_NE(markdown.str().find("> **Warning:** not profiled: 29 launches"), std::string::npos);
  const auto report = nlohmann::json::parse(json.str());
  EXPECT_EQ(report.at("missed").at(0).at("launches"), 29);
  EXPECT_EQ(report.at("ended"), "signal SIGSEGV");
  // A complete run says nothing.
  std::ostringstream clean;
  write_text_report(summarize(analyze_run(run_with_launches(3))), clean);
  EXPECT_EQ(clean.str().find("WARNING"), std::string::npos);
}

TEST(NothingLost, EverySynchronisingDriverCallIsASyncPoint) {
  using detail::sync_point_of;
  using detail::SyncPoint;
  for (const char* name :
       {"cuCtxSynchronize", "cuCtxSynchronize_v2", "cuStreamSynchronize", "cuStreamSynchronize_ptsz",
        "cuEventSynchronize", "cuMemcpy", "cuMemcpy_ptds", "cuMemcpyDtoH_v2", "cuMemcpyDtoH_v2_ptds", "cuMemcpyHtoD_v2",
        "cuMemcpy2D_v2", "cuMemcpy3DPeer", "cuMemsetD8_v2", "cuMemsetD32_v2_ptds"})
    EXPECT_EQ(sync_point_of(name), SyncPoint::wait) << name;
  for (const char* name : {"cuStreamQuery", "cuStreamQuery_ptsz", "cuEventQuery"})
    EXPECT_EQ(sync_point_of(name), SyncPoint::query) << name;
  for (const char* name : {"cuMemcpyAsync", "cuMemcpyDtoHAsync_v2_ptsz", "cuMemsetD8Async", "cuMemcpyBatchAsync",
                           "cuLaunchKernel", "cuEventRecord", "cuStreamWaitEvent", "cuMemAlloc_v2"})
    EXPECT_EQ(sync_point_of(name), SyncPoint::none) << name;
}

// --- The cross-process lock, with forked processes ---------------------------------------

class CounterLockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("limiter_lock_test_" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  // Runs BODY in a child process; returns its exit code.
  template <typename Body>
  pid_t fork_child(Body body) {
    const pid_t pid = fork();
    if (pid == 0) _exit(body());
    return pid;
  }
  static int exit_code_of(pid_t pid) {
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  fs::path dir_;
};

TEST_F(CounterLockTest, ASecondProcessWaitsAndTheHolderSeesIt) {
  detail::CounterLock holder(dir_.string(), "GPU-test");
  ASSERT_TRUE(holder.acquire(0ms));
  EXPECT_TRUE(holder.disabled_reason().empty());
  EXPECT_FALSE(holder.others_waiting());
  // The child waits up to 2 s; the holder sees it waiting, then lets it in.
  const pid_t child = fork_child([&] {
    detail::CounterLock waiter(dir_.string(), "GPU-test");
    return waiter.acquire(2000ms) ? 0 : 1;
  });
  bool seen = false;
  for (int i = 0; i < 400 && !seen; ++i) {
    seen = holder.others_waiting();
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_TRUE(seen);
  holder.release();
  EXPECT_EQ(exit_code_of(child), 0);
}

TEST_F(CounterLockTest, AWaitThatTimesOutSaysSoAndOtherDevicesNeverWait) {
  detail::CounterLock holder(dir_.string(), "GPU-a");
  ASSERT_TRUE(holder.acquire(0ms));
  const pid_t same = fork_child([&] { return detail::CounterLock(dir_.string(), "GPU-a").acquire(50ms) ? 0 : 1; });
  const pid_t other = fork_child([&] { return detail::CounterLock(dir_.string(), "GPU-b").acquire(0ms) ? 0 : 1; });
  EXPECT_EQ(exit_code_of(same), 1);
  EXPECT_EQ(exit_code_of(other), 0);
}

TEST_F(CounterLockTest, AKilledHolderFreesTheCounters) {
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t holder = fork_child([&] {
    detail::CounterLock lock(dir_.string(), "GPU-k");
    if (!lock.acquire(0ms)) return 1;
    char byte = 1;
    if (write(ready[1], &byte, 1) != 1) return 1;
    pause();  // until SIGKILL
    return 0;
  });
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);
  detail::CounterLock waiter(dir_.string(), "GPU-k");
  EXPECT_FALSE(waiter.acquire(20ms));
  kill(holder, SIGKILL);
  waitpid(holder, nullptr, 0);
  EXPECT_TRUE(waiter.acquire(1000ms));
  close(ready[0]);
  close(ready[1]);
}

// A holder that forks (a DataLoader worker) and dies: the worker, still alive, must not keep
// the counters locked.
TEST_F(CounterLockTest, AForkedChildOfTheHolderDoesNotKeepTheLock) {
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t holder = fork_child([&] {
    detail::CounterLock lock(dir_.string(), "GPU-f");
    if (!lock.acquire(0ms)) return 1;
    if (fork() == 0) {  // the worker outlives its parent
      std::this_thread::sleep_for(2s);
      _exit(0);
    }
    char byte = 1;
    if (write(ready[1], &byte, 1) != 1) return 1;
    return 0;  // dies holding the lock
  });
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);
  waitpid(holder, nullptr, 0);
  detail::CounterLock waiter(dir_.string(), "GPU-f");
  EXPECT_TRUE(waiter.acquire(500ms));
  close(ready[0]);
  close(ready[1]);
}

TEST_F(CounterLockTest, AnUnwritableDirectoryDisablesTheLockAndSaysWhy) {
  detail::CounterLock lock("/nonexistent/limiter", "GPU-x");
  EXPECT_NE(lock.disabled_reason().find("LIMITER_LOCK_DIR"), std::string::npos);
  EXPECT_TRUE(lock.acquire(0ms));  // profiling goes on, unserialised
}

}  // namespace
}  // namespace limiter
