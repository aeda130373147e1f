#pragma once
// The limiter command line as a function: the executable's main and the Python module
// (python/limiter/_core.cpp) run the same subcommands through it, so `limiter.load(...).report()`
// and `limiter report` are one code path.
#include <string>
#include <vector>

#include "commands.hpp"

namespace limiter::cli {

struct Command {
  const char* name;
  const char* summary;
  int (*run)(const Args&);
};

// The subcommands that read records and need neither a GPU nor CUPTI: occupancy, import,
// report, export, compare (library limiter_cli). The executable adds the others (main.cpp).
std::vector<Command> offline_commands();

// Runs `limiter ARGS...` (ARGS without the program name) with COMMANDS: picks the subcommand,
// runs it and turns its exceptions into exit codes with one line on standard error.
int run_command_line(const std::vector<std::string>& args, const std::vector<Command>& commands);

}  // namespace limiter::cli
