// GPU tests of "nothing lost" (label `gpu`): lost_launches_app ends at a known point — killed
// after a synchronisation, crashed, aborted, terminated, several processes on one GPU — under
// `limiter run`, and the record must hold every launch that completed, launch by launch, and
// say how the process ended. Skip without a GPU; scripts/device-test.sh runs them on one.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "limiter/record_json.hpp"

namespace {

namespace fs = std::filesystem;

std::string from_env(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value ? value : fallback;
}
const std::string kLimiter = from_env("LIMITER_CLI", LIMITER_CLI);
const std::string kApp = from_env("LIMITER_LOST_APP", LOST_LAUNCHES_APP);

bool have_gpu() { return std::system("nvidia-smi -L > /dev/null 2>&1") == 0; }

#define REQUIRE_GPU() \
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device visible (runs on the GPU machine: scripts/device-test.sh)"

struct Outcome {
  int exit_code = 0;
  std::vector<limiter::RunRecord> records;
  double seconds = 0;
};

// limiter run on the app, each process's record in a fresh folder.
Outcome run_app(const std::string& name, const std::string& app_args,
                const std::string& limiter_args = "--every-launch") {
  const fs::path dir = fs::temp_directory_path() / ("limiter_lost_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string command = kLimiter + " run -q " + limiter_args + " -o " + (dir / "rec_%p.json").string() + " -- " +
                              kApp + " " + app_args + " > " + (dir / "log.txt").string() + " 2>&1";
  const auto started = std::chrono::steady_clock::now();
  const int status = std::system(command.c_str());
  Outcome outcome;
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".json") outcome.records.push_back(limiter::read_run_file(entry.path().string()));
  std::printf("[ %s ] %s: exit %d, %zu records, %.2f s\n", name.c_str(), command.c_str(), outcome.exit_code,
              outcome.records.size(), outcome.seconds);
  return outcome;
}

// Every launch 0..N-1 of the app's kernel, once, with counters.
void expect_all_launches(const limiter::RunRecord& run, int n) {
  int kernels = 0;
  std::set<std::uint64_t> sequences;
  for (const auto& launch : run.launches) {
    if (launch.name.find("kill_point_kernel") == std::string::npos) continue;
    ++kernels;
    sequences.insert(launch.sequence);
    EXPECT_TRUE(launch.counter("gpu__time_duration.sum").has_value()) << launch.sequence;
  }
  EXPECT_EQ(kernels, n);
  EXPECT_EQ(sequences.size(), static_cast<std::size_t>(n));
  for (const auto& missed : run.missed) ADD_FAILURE() << "missed " << missed.launches << ": " << missed.reason;
}

constexpr int kLaunches = 202;  // more than a batch (128): one batch decoded, the second pending

struct KillCase {
  const char* mode;
  const char* ended;
  int exit_code;
};

class KilledApp : public ::testing::TestWithParam<KillCase> {};

TEST_P(KilledApp, RecordHoldsEveryCompletedLaunch) {
  REQUIRE_GPU();
  const KillCase& c = GetParam();
  const Outcome outcome = run_app(c.mode, std::string(c.mode) + " " + std::to_string(kLaunches));
  EXPECT_EQ(outcome.exit_code, c.exit_code);
  ASSERT_EQ(outcome.records.size(), 1u);
  expect_all_launches(outcome.records[0], kLaunches);
  EXPECT_EQ(outcome.records[0].ended, c.ended);
}

INSTANTIATE_TEST_SUITE_P(
    NothingLostGpu, KilledApp,
    ::testing::Values(KillCase{"sync-kill", "signal SIGKILL", 137}, KillCase{"memcpy-kill", "signal SIGKILL", 137},
                      KillCase{"event-kill", "signal SIGKILL", 137}, KillCase{"query-kill", "signal SIGKILL", 137},
                      KillCase{"segv", "signal SIGSEGV", 139}, KillCase{"abort", "signal SIGABRT", 134},
                      KillCase{"term", "signal SIGTERM", 143}, KillCase{"exit", "exit", 3}),
    [](const ::testing::TestParamInfo<KillCase>& test) {
      std::string name = test.param.mode;
      for (char& c : name) c = c == '-' ? '_' : c;
      return name;
    });

// No synchronisation at all: a completed launch waits at most a second in its batch.
TEST(NothingLostGpu, ABatchIsDecodedWithinASecondWithoutSynchronisation) {
  REQUIRE_GPU();
  const Outcome outcome = run_app("age", "age-kill 40");
  ASSERT_EQ(outcome.records.size(), 1u);
  int kernels = 0;
  for (const auto& launch : outcome.records[0].launches)
    kernels += launch.name.find("kill_point_kernel") != std::string::npos;
  EXPECT_GE(kernels, 40);
}

class ProcessesOnOneGpu : public ::testing::TestWithParam<int> {};

TEST_P(ProcessesOnOneGpu, TakeTurnsAndLoseNothing) {
  REQUIRE_GPU();
  const int processes = GetParam();
  const Outcome outcome = run_app("procs" + std::to_string(processes), "processes 300 " + std::to_string(processes),
                                  "--every-launch --fail-on-missed");
  EXPECT_EQ(outcome.exit_code, 0);
  ASSERT_EQ(outcome.records.size(), static_cast<std::size_t>(processes));
  for (const auto& record : outcome.records) {
    expect_all_launches(record, 300);
    EXPECT_EQ(record.ended, "exit");
  }
}

INSTANTIATE_TEST_SUITE_P(NothingLostGpu, ProcessesOnOneGpu, ::testing::Values(2, 4));

// The default run ends in each of its phases, by exit or by SIGTERM: the record keeps what the
// finished phases hold (the counters, the samples once their window is over, the timeline), says
// which phase the app ended in, and says the samples lost to a signal inside their window.
struct PhaseEnd {
  const char* name;
  const char* app_args;      // lost_launches_app MODE N MS
  const char* limiter_args;  // the window that puts the end in the phase
  const char* phase;         // the phase the app ended in
};

class DefaultRunEnds : public ::testing::TestWithParam<PhaseEnd> {};

TEST_P(DefaultRunEnds, InEachPhaseKeepingWhatFinishedPhasesHold) {
  REQUIRE_GPU();
  const PhaseEnd& c = GetParam();
  const bool by_signal = std::string(c.app_args).starts_with("phases-term");
  const Outcome outcome = run_app(std::string("default_") + c.name, c.app_args, c.limiter_args);
  EXPECT_EQ(outcome.exit_code, by_signal ? 143 : 0);
  ASSERT_EQ(outcome.records.size(), 1u);
  const limiter::RunRecord& run = outcome.records[0];
  EXPECT_EQ(run.ended, by_signal ? "signal SIGTERM" : "exit");
  ASSERT_EQ(run.phases.size(), 3u);
  const std::string phase = c.phase;
  std::size_t ended_in = 0;
  while (ended_in < 3 && run.phases[ended_in].name != phase) ++ended_in;
  ASSERT_LT(ended_in, 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(run.phases[i].name + " ended by " + run.phases[i].ended_by);
    if (i < ended_in) {
      EXPECT_GT(run.phases[i].end_ns, run.phases[i].start_ns);
    }
    if (i > ended_in) {
      EXPECT_EQ(run.phases[i].ended_by, "never began");
    }
  }
  int profiled = 0;
  for (const auto& launch : run.launches) profiled += launch.name.find("kill_point_kernel") != std::string::npos;
  if (phase != "samples") {
    EXPECT_GE(profiled, 1);  // the counters phase's budget, on disk launch by launch
  }
  // The samples: read as their window ends (on disk from then on; at exit, with the record, before).
  const bool samples_read = !(phase == "samples" && by_signal);
  EXPECT_EQ(run.stalls.has_value(), samples_read);
  if (samples_read && run.stalls) {
    EXPECT_GT(run.stalls->samples, 0u);  // each joined to its kernel
  }
  bool said_lost = false;
  for (const auto& missed : run.missed) said_lost |= missed.reason.find("PC-sampling window") != std::string::npos;
  EXPECT_EQ(said_lost, phase == "samples" && by_signal);
  if (phase == "timeline") {  // the timeline began with the timeline phase
    ASSERT_TRUE(run.timeline.has_value());
    int kernels = 0;
    for (const auto& event : run.timeline->events) kernels += event.kind == limiter::ActivityKind::kernel;
    EXPECT_GT(kernels, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(
    NothingLostGpu, DefaultRunEnds,
    // Ten one-block launches hold no sample at the window's own period (2^13 cycles on an H200):
    // CUPTI's 2^11 for the two that end inside it.
    ::testing::Values(PhaseEnd{"samples_exit", "phases-exit 10 0", "--stall-period 11", "samples"},
                      PhaseEnd{"samples_term", "phases-term 10 0", "--stall-period 11", "samples"},
                      PhaseEnd{"counters_exit", "phases-exit 10 300", "--stall-window 50", "counters"},
                      PhaseEnd{"counters_term", "phases-term 10 300", "--stall-window 50", "counters"},
                      PhaseEnd{"timeline_exit", "phases-exit 10 2500", "--stall-window 50", "timeline"},
                      PhaseEnd{"timeline_term", "phases-term 10 2500", "--stall-window 50", "timeline"}),
    [](const ::testing::TestParamInfo<PhaseEnd>& test) { return std::string(test.param.name); });

}  // namespace
