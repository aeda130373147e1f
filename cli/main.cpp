// limiter: what limits each CUDA kernel, and how much of it is local memory.
// Thin main: the offline subcommands (dispatch.cpp) and those that profile or need CUPTI.
#include <string>
#include <vector>

#include "dispatch.hpp"

int main(int argc, char** argv) {
  using namespace limiter::cli;
  std::vector<Command> commands = {
      {"kernels", "run the shipped kernel suite on this GPU: verdicts, timings, checks (the main job)", run_kernels},
      {"calibrate", "measure this GPU's achieved peaks (DRAM, L2, FP32, latency) into a JSON file", run_calibrate},
  };
  for (const auto& command : offline_commands()) commands.push_back(command);
  commands.push_back({"run", "profile every kernel of a CUDA application: limiter run [options] -- app args", run_run});
  commands.push_back({"analyze", "re-evaluate raw counter images (limiter run --save-raw) without a GPU", run_analyze});
  commands.push_back({"metrics", "metric plans, their metrics and pass counts (offline, CUPTI host API)", run_metrics});
  return run_command_line(std::vector<std::string>(argv + 1, argv + argc), commands);
}
