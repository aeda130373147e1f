// limiter: what limits each CUDA kernel, and how much of it is local memory.
// Thin main: pick the subcommand, run it, turn exceptions into exit codes here only.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "limiter/error.hpp"
#include "limiter/record.hpp"

namespace {

struct Command {
  const char* name;
  const char* summary;
  int (*run)(const limiter::cli::Args&);
};

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"kernels", "run the shipped kernel suite on this GPU: verdicts, timings, checks (the main job)",
       limiter::cli::run_kernels},
      {"calibrate", "measure this GPU's achieved peaks (DRAM, L2, FP32, latency) into a JSON file",
       limiter::cli::run_calibrate},
      {"occupancy", "theoretical occupancy, its limiting resource, waves and tail (offline)",
       limiter::cli::run_occupancy},
      {"import", "turn an Nsight Compute CSV or a plain kernel,metric,value CSV into a run",
       limiter::cli::run_import},
      {"report", "the limiter of every kernel of a run: text, md, csv, json or html", limiter::cli::run_report},
      {"export", "a run and its analysis as an SQLite database (Python, pandas, DuckDB)", limiter::cli::run_export},
      {"compare", "before/after: time, verdict and LMEM changes per kernel; --fail-if-slower for CI",
       limiter::cli::run_compare},
      {"run", "profile every kernel of a CUDA application: limiter run [options] -- app args",
       limiter::cli::run_run},
      {"analyze", "re-evaluate raw counter images (limiter run --save-raw) without a GPU", limiter::cli::run_analyze},
      {"metrics", "metric plans, their metrics and pass counts (offline, CUPTI host API)", limiter::cli::run_metrics},
  };
  return table;
}

void print_usage(std::ostream& out) {
  out << "limiter " << limiter::tool_version()
      << " — is each CUDA kernel bandwidth-, instruction- or latency-limited, and how much of\n"
         "its L2 traffic and instructions is local memory?\n\n"
         "usage: limiter <command> [options]   (limiter <command> --help for details)\n\ncommands:\n";
  for (const auto& command : commands()) {
    out << "  " << command.name << std::string(12 - std::string(command.name).size(), ' ')
        << command.summary << "\n";
  }
}

}  // namespace

int main(int argc, char** argv) try {
  using namespace limiter::cli;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    print_usage(std::cout);
    return args.empty() ? kExitBadInput : kExitOk;
  }
  if (args[0] == "--version") {
    std::cout << "limiter " << limiter::tool_version() << "\n";
    return kExitOk;
  }
  for (const auto& command : commands()) {
    if (args[0] == command.name) return command.run(Args(args.begin() + 1, args.end()));
  }
  std::cerr << "limiter: unknown command '" << args[0] << "'\n\n";
  print_usage(std::cerr);
  return kExitBadInput;
} catch (const limiter::InputError& e) {
  std::cerr << "limiter: error: " << e.what() << "\n";
  return limiter::cli::kExitBadInput;
} catch (const limiter::SystemError& e) {
  std::cerr << "limiter: error: " << e.what() << "\n";
  return limiter::cli::kExitSystem;
} catch (const std::exception& e) {
  std::cerr << "limiter: internal error: " << e.what() << "\n";
  return limiter::cli::kExitFailure;
}
