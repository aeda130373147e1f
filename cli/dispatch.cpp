// The one place that turns the subcommands' exceptions into exit codes.
#include "dispatch.hpp"

#include <exception>
#include <iostream>

#include "limiter/error.hpp"
#include "limiter/record.hpp"

namespace limiter::cli {
namespace {

void print_usage(std::ostream& out, const std::vector<Command>& commands) {
  out << "limiter " << tool_version()
      << " — is each CUDA kernel bandwidth-, instruction- or latency-limited, and how much of\n"
         "its L2 traffic and instructions is local memory?\n\n"
         "usage: limiter <command> [options]   (limiter <command> --help for details)\n\ncommands:\n";
  for (const auto& command : commands) {
    out << "  " << command.name << std::string(12 - std::string(command.name).size(), ' ') << command.summary << "\n";
  }
}

}  // namespace

std::vector<Command> offline_commands() {
  return {
      {"occupancy", "theoretical occupancy, its limiting resource, waves and tail (offline)", run_occupancy},
      {"import", "turn an Nsight Compute CSV or a plain kernel,metric,value CSV into a run", run_import},
      {"report", "the limiter of every kernel of a run: text, md, csv, json or html", run_report},
      {"export", "a run and its analysis as an SQLite database (Python, pandas, DuckDB)", run_export},
      {"compare", "before/after: time, verdict and LMEM changes per kernel; --fail-if-slower for CI", run_compare},
  };
}

int run_command_line(const std::vector<std::string>& args, const std::vector<Command>& commands) try {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    print_usage(std::cout, commands);
    return args.empty() ? kExitBadInput : kExitOk;
  }
  if (args[0] == "--version") {
    std::cout << "limiter " << tool_version() << "\n";
    return kExitOk;
  }
  for (const auto& command : commands) {
    if (args[0] == command.name) return command.run(Args(args.begin() + 1, args.end()));
  }
  std::cerr << "limiter: unknown command '" << args[0] << "'\n\n";
  print_usage(std::cerr, commands);
  return kExitBadInput;
} catch (const InputError& e) {
  std::cerr << "limiter: error: " << e.what() << "\n";
  return kExitBadInput;
} catch (const SystemError& e) {
  std::cerr << "limiter: error: " << e.what() << "\n";
  return kExitSystem;
} catch (const std::exception& e) {
  std::cerr << "limiter: internal error: " << e.what() << "\n";
  return kExitFailure;
}

}  // namespace limiter::cli
