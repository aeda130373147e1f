#pragma once
// One function per subcommand; each parses its own options (Boost.Program_options) and
// returns the process exit code. main.cpp dispatches and turns exceptions into exit codes.
#include <string>
#include <vector>

namespace limiter::cli {

using Args = std::vector<std::string>;  // the arguments after the subcommand name

int run_occupancy(const Args& args);
int run_import(const Args& args);
int run_report(const Args& args);
int run_export(const Args& args);
int run_compare(const Args& args);
int run_metrics(const Args& args);
int run_run(const Args& args);
int run_analyze(const Args& args);
int run_kernels(const Args& args);
int run_calibrate(const Args& args);

// Exit codes shared by all subcommands.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;   // an unexpected error
inline constexpr int kExitBadInput = 2;  // bad usage, file or value (InputError)
inline constexpr int kExitSystem = 3;    // the machine or a library failed (SystemError)
inline constexpr int kExitSlower = 4;    // limiter compare: slower than --fail-if-slower allows
inline constexpr int kExitMissed = 5;    // limiter run --fail-on-missed: launches were not profiled

}  // namespace limiter::cli
