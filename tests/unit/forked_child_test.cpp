// A process forked from a profiled one profiles nothing (collect/forked_child.hpp): the flag
// is set from fork's return on, in the child only; a fork that runs no handlers is told by pid.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include "collect/forked_child.hpp"

namespace limiter::detail {
namespace {

// The child's answers as its exit code: bit 0 the flag, bit 1 the pid check.
int child_status(pid_t (*fork_call)()) {
  const pid_t child = fork_call();
  if (child == 0) _exit((in_forked_child() ? 1 : 0) | (in_forked_child_by_pid() ? 2 : 0));
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(ForkedChild, TheChildKnowsFromForksReturnTheParentNever) {
  watch_for_fork();
  EXPECT_EQ(child_status(fork), 3);
  EXPECT_FALSE(in_forked_child());
  EXPECT_FALSE(in_forked_child_by_pid());
}

TEST(ForkedChild, AForkThatRunsNoHandlersIsToldByPid) {
  watch_for_fork();
  EXPECT_EQ(child_status(_Fork), 2);  // no pthread_atfork handler ran: only the pid says it
  EXPECT_FALSE(in_forked_child_by_pid());
}

}  // namespace
}  // namespace limiter::detail
