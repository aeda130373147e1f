#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>

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

}  // namespace
}  // namespace limiter::detail

#include "inject/launch_progress.hpp"

namespace limiter::detail {
namespace {

TEST(LaunchProgress, LineSaysLaunchesElapsedAndTheKernel) {
  EXPECT_EQ(LaunchProgress::line(12345, 3.25, "reduce_kernel"), "limiter: 12,345 launches profiled, 3.2 s, last: reduce_kernel");
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
