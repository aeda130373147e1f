// CollectorOptions: checked once, carried into an injected process through the environment, all
// from limiter run's table of flags (run_flags.hpp). Host-only (no CUDA): `limiter run`, the
// injection library and the unit tests share it.
#include "limiter/collector_options.hpp"

#include <stdexcept>
#include <vector>

#include "limiter/error.hpp"
#include "limiter/metric_plans.hpp"
#include "limiter/nvtx_ranges.hpp"
#include "limiter/run_flags.hpp"

namespace limiter {
namespace {

// What each single-answer mode records: the reason an option of other modes is refused beside it.
struct ModeRule {
  ModeSet mode;
  const char* flag;
  const char* why;
};
const ModeRule kModes[] = {
    {kEveryLaunch, "--every-launch", "--every-launch records exact counters alone"},
    {kTraceMode, "--trace",
     "--trace records the activity timeline alone, without counters or launch filters (filter the report "
     "instead: limiter report -k)"},
    {kStallsMode, "--stalls",
     "--stalls samples warp stall reasons alone, without counters or launch filters (run limiter twice and "
     "compare, or filter the report: limiter report -k)"},
    {kSamplingMode, "--sampling",
     "--sampling samples the whole GPU without replay or launch filters (filter the report instead: limiter "
     "report -k)"},
};

// Two options that contradict each other, in any mode.
struct Conflict {
  const char* first;
  const char* second;
  const char* why;
};
constexpr const char* kUndecidedOrBudgets =
    "--exact-undecided profiles the kernels the samples left undecided after sampling, a budget each kernel's "
    "first launches before it";
constexpr const char* kNvtxFilters = "the NVTX filters read each launch's NVTX ranges";
const Conflict kConflicts[] = {
    {"plan", "metrics", "--metrics replaces the plan"},
    {"exact-undecided", "per-kernel-count", kUndecidedOrBudgets},
    {"exact-undecided", "per-kernel-skip", kUndecidedOrBudgets},
    {"cache-control", "replay",
     "CUPTI replays the passes itself, with no moment in between to empty L2 (use the default --replay auto with "
     "a one-pass plan)"},
    {"no-nvtx", "nvtx-include", kNvtxFilters},
    {"no-nvtx", "nvtx-exclude", kNvtxFilters},
    {"no-nvtx", "budget-by-range", "--budget-by-range counts per NVTX range"},
};

// An option that needs one of others, in MODES.
struct Need {
  const char* option;
  ModeSet modes;
  std::vector<const char*> any_of;
  const char* why;
};
const Need kNeeds[] = {
    {"sampling-phase", kAllModes, {"exact-undecided"}, "it is the sampling phase before the exact one"},
    {"budget-by-range",
     kAllModes & ~kDefaultRun,
     {"per-kernel-count", "per-kernel-skip"},
     "it splits each kernel's budget by NVTX range (only the default run has a budget of its own)"},
    {"cache-control",
     kSamplingMode,
     {"per-kernel-count", "exact-undecided"},
     "it flushes L2 before each exactly profiled launch, and --sampling alone profiles none exactly"},
};

const ModeRule& mode_rule(ModeSet mode) {
  for (const auto& rule : kModes)
    if (rule.mode == mode) return rule;
  throw std::logic_error("no single-answer mode " + std::to_string(mode));
}

// An option as the user wrote it: a choice with its value (--replay kernel).
std::string shown(const RunFlag& flag, const CollectorOptions& o) {
  return flag.type == ValueType::choice ? display_name(flag) + " " + flag.codec.get(o) : display_name(flag);
}

std::string one_of(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) out += (i ? " or " : "") + names[i];
  return out;
}

// FLAG is in effect in a mode that does not allow it.
std::string mode_refusal(const RunFlag& flag, const CollectorOptions& o, ModeSet mode) {
  if (mode == kDefaultRun) {
    std::vector<std::string> modes;
    for (const auto& rule : kModes)
      if (flag.modes & rule.mode) modes.push_back(rule.flag);
    return shown(flag, o) + " goes with " + one_of(modes) + ", not with the default run: " + flag.why;
  }
  const ModeRule& rule = mode_rule(mode);
  return std::string(rule.flag) + " cannot be combined with " + shown(flag, o) + ": " +
         (flag.why.empty() ? rule.why : flag.why);
}

void check_modes(const CollectorOptions& o) {
  // One single-answer mode at most; none is the default phase list.
  std::vector<std::string> chosen;
  for (const auto& rule : kModes)
    for (const auto& flag : run_flags())
      if (flag.chooses == rule.mode && in_effect(flag, o)) chosen.push_back(display_name(flag));
  if (chosen.size() > 1)
    throw InputError(chosen[0] + " and " + chosen[1] +
                     " each choose one mode; choose one, or none for the default run "
                     "(PC sampling for a window, then counters for each kernel's first launches, then the timeline)");
  const ModeSet mode = mode_of(o);
  for (const auto& flag : run_flags())
    if (!(flag.modes & mode) && in_effect(flag, o)) throw InputError(mode_refusal(flag, o, mode));
}

void check_needs_and_conflicts(const CollectorOptions& o) {
  const ModeSet mode = mode_of(o);
  for (const auto& need : kNeeds) {
    const RunFlag& flag = run_flag(need.option);
    if (!(need.modes & mode) || !in_effect(flag, o)) continue;
    std::vector<std::string> names;
    bool met = false;
    for (const char* other : need.any_of) {
      names.push_back(display_name(run_flag(other)));
      met = met || in_effect(run_flag(other), o);
    }
    if (met) continue;
    const bool one_mode = need.modes == mode && mode != kDefaultRun;  // the need is that mode's
    const std::string with = one_mode ? std::string(" with ") + mode_rule(mode).flag : "";
    throw InputError(shown(flag, o) + " needs " + one_of(names) + with + ": " + need.why);
  }
  for (const auto& conflict : kConflicts) {
    const RunFlag& first = run_flag(conflict.first);
    const RunFlag& second = run_flag(conflict.second);
    if (in_effect(first, o) && in_effect(second, o))
      throw InputError(shown(first, o) + " cannot be combined with " + shown(second, o) + ": " + conflict.why);
  }
}

}  // namespace

void validate_collector_options(const CollectorOptions& o) {
  // Each value as its flag or variable would carry it: what the injected process reads back.
  for (const auto& flag : run_flags()) {
    CollectorOptions scratch = o;
    set_run_flag(flag, scratch, flag.codec.get(o), display_name(flag));
  }
  check_modes(o);
  check_needs_and_conflicts(o);
  if (o.metrics.empty()) (void)metric_plan(o.plan);                           // an unknown plan lists the plans
  [[maybe_unused]] const NvtxFilter checked(o.nvtx_include, o.nvtx_exclude);  // a bad expression names itself
}

std::vector<std::string> collector_options_environment(const CollectorOptions& o) {
  // Every variable, defaults too: then none the user happened to export gets in the way.
  std::vector<std::string> out;
  for (const auto& flag : run_flags()) out.push_back(environment_name(flag) + "=" + flag.codec.get(o));
  return out;
}

CollectorOptions collector_options_from_environment(const EnvironmentLookup& lookup) {
  // The values alone: limiter run checked how they go together before the app started.
  CollectorOptions o;
  for (const auto& flag : run_flags()) set_from_environment(flag, o, lookup);
  return o;
}

}  // namespace limiter
