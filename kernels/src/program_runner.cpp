// The known-answer programs' parent side (suite.hpp): each program in a child process of its
// own, its record read back and judged.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "limiter/error.hpp"
#include "limiter/kernels/suite.hpp"
#include "limiter/record_json.hpp"

extern char** environ;

namespace limiter::kernels {
namespace {

// Runs ARGV and returns its exit status (or 128 + signal); the child's stdout goes to our
// stderr, so the report on stdout stays clean.
int run_child(const std::vector<std::string>& argv) {
  std::vector<char*> pointers;
  for (const auto& arg : argv) pointers.push_back(const_cast<char*>(arg.c_str()));
  pointers.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, pointers.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) throw SystemError("cannot start " + argv[0] + ": " + std::strerror(spawned));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw SystemError(std::string("waitpid: ") + std::strerror(errno));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

std::vector<ProgramResult> run_programs(const ProgramOptions& options) {
  const auto selected = select_programs(options.only);
  std::filesystem::create_directories(options.record_dir);
  std::vector<ProgramResult> results;
  for (const auto* entry : selected) {
    if (options.on_start) options.on_start(entry->name);
    const std::string record_path = (std::filesystem::path(options.record_dir) / (entry->name + ".json")).string();
    std::filesystem::remove(record_path);
    const int status = run_child({options.executable, "kernels", "--program-child", entry->name, "-o", record_path});
    if ((status != 0 && status != 1) || !std::filesystem::exists(record_path)) {
      ProgramResult failed;
      failed.name = entry->name;
      failed.intended = entry->intended;
      failed.detail = "the program's process ended with status " + std::to_string(status) +
                      " and no record (its messages are above)";
      results.push_back(std::move(failed));
      continue;
    }
    results.push_back(check_program(*entry, read_run_file(record_path), status == 0));
  }
  return results;
}

}  // namespace limiter::kernels
