#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "inject/output_names.hpp"
#include "limiter/error.hpp"

namespace limiter::detail {
namespace {

TEST(OutputNames, PidHostEnvAndPercent) {
  setenv("LIMITER_TEST_RANK", "3", 1);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  EXPECT_EQ(expand_output_name("run_%p.json"), "run_" + std::to_string(getpid()) + ".json");
  EXPECT_EQ(expand_output_name("%h-%q{LIMITER_TEST_RANK}-100%%"), std::string(host) + "-3-100%");
  EXPECT_EQ(expand_output_name("plain.json"), "plain.json");
}

TEST(OutputNames, BadPatternsNameTheProblem) {
  unsetenv("LIMITER_TEST_UNSET");
  EXPECT_THROW(expand_output_name("%q{LIMITER_TEST_UNSET}"), InputError);
  EXPECT_THROW(expand_output_name("%q{OPEN"), InputError);
  EXPECT_THROW(expand_output_name("%z"), InputError);
}

TEST(OutputNames, APerProcessNameKeepsTheExtension) {
  EXPECT_EQ(per_process_name("/out/run.json", 42), "/out/run_42.json");
  EXPECT_EQ(per_process_name("run.json.gz", 42), "run_42.json.gz");
  EXPECT_EQ(per_process_name("dir.v2/record", 7), "dir.v2/record_7");
}

// A spawned worker or a program a child execs, given the same -o as the app: the first process
// keeps the name, the others write beside it under their pid.
TEST(OutputNames, TheFirstClaimKeepsTheNameTheOthersAddTheirPid) {
  char folder[] = "/tmp/limiter-claims-XXXXXX";
  ASSERT_NE(mkdtemp(folder), nullptr);
  EXPECT_EQ(claim_output_name(folder, "/out/run.json"), "/out/run.json");
  EXPECT_EQ(claim_output_name(folder, "/out/run.json"), "/out/run_" + std::to_string(getpid()) + ".json");
  EXPECT_EQ(claim_output_name(folder, "/out/other.json"), "/out/other.json");
  EXPECT_EQ(claim_output_name("", "/out/run.json"), "/out/run.json");  // no limiter run session
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace limiter::detail

#include "inject/launch_progress.hpp"

namespace limiter::detail {
namespace {

TEST(LaunchProgress, LineSaysLaunchesElapsedAndTheKernel) {
  EXPECT_EQ(LaunchProgress::line(12345, 3.25, "reduce_kernel"),
            "limiter: 12,345 launches profiled, 3.2 s, last: reduce_kernel");
  EXPECT_EQ(LaunchProgress::line(1, 0.0, "k"), "limiter: 1 launch profiled, 0.0 s, last: k");
}

TEST(LaunchProgress, SilentWhenDisabled) {
  LaunchProgress progress(-1, false);  // an invalid descriptor: nothing may be written
  progress.launch("k");
  progress.finish();
  SUCCEED();
}

}  // namespace
}  // namespace limiter::detail
