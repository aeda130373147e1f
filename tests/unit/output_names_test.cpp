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
