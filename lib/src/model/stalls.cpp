// Stall reasons by name (stalls.hpp): ncu's titles for CUPTI's PC sampling reasons.
#include "limiter/stalls.hpp"

#include <array>
#include <utility>

namespace limiter {
namespace {

// The reasons of smsp__pcsamp_warps_issue_stalled_* (Volta..Hopper) with the titles of ncu's
// Warp State section. CUPTI spells one "no_instructions"; ncu's metrics "no_instruction".
// Hopper adds "warpgroup_arrive", a warp waiting on its warpgroup's MMA (wgmma), which ncu's
// Warp State section calls GMMA.
constexpr std::array<std::pair<std::string_view, std::string_view>, 20> kTitles = {{
    {"barrier", "Stall Barrier"},
    {"branch_resolving", "Stall Branch Resolving"},
    {"dispatch_stall", "Stall Dispatch"},
    {"drain", "Stall Drain"},
    {"imc_miss", "Stall IMC Miss"},
    {"lg_throttle", "Stall LG Throttle"},
    {"long_scoreboard", "Stall Long Scoreboard"},
    {"math_pipe_throttle", "Stall Math Pipe Throttle"},
    {"membar", "Stall Membar"},
    {"mio_throttle", "Stall MIO Throttle"},
    {"misc", "Stall Misc"},
    {"no_instruction", "Stall No Instruction"},
    {"no_instructions", "Stall No Instruction"},
    {"not_selected", "Stall Not Selected"},
    {"selected", "Selected"},
    {"short_scoreboard", "Stall Short Scoreboard"},
    {"sleeping", "Stall Sleeping"},
    {"tex_throttle", "Stall Tex Throttle"},
    {"wait", "Stall Wait"},
    {"warpgroup_arrive", "Stall GMMA"},
}};

// What CUPTI's PC Sampling API reports on Volta to Hopper (cuptiPCSamplingGetStallReasons on a
// GH100 lists these, each also as "_not_issued"; earlier chips a subset), without the prefix.
constexpr std::array<std::string_view, 19> kCuptiReasons = {
    "barrier",          "branch_resolving",   "dispatch_stall",   "drain",        "imc_miss",     "lg_throttle",
    "long_scoreboard",  "math_pipe_throttle", "membar",           "mio_throttle", "misc",         "no_instructions",
    "not_selected",     "selected",           "short_scoreboard", "sleeping",     "tex_throttle", "wait",
    "warpgroup_arrive",
};

}  // namespace

std::string stall_reason_title(std::string_view reason) {
  for (const auto& [key, title] : kTitles)
    if (key == reason) return std::string(title);
  return std::string(reason);
}

std::vector<std::string_view> cupti_stall_reasons() { return {kCuptiReasons.begin(), kCuptiReasons.end()}; }

const KernelStalls* find_kernel_stalls(const StallInfo& info, std::string_view name) {
  for (const auto& kernel : info.kernels)
    if (kernel.name == name) return &kernel;
  return nullptr;
}

}  // namespace limiter
