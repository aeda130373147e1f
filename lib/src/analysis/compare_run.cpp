// A run as a comparison keeps it (ComparedRun): each launch in a compact form, and the record's
// fields a comparison reports beside the launches: its command, its program verdict, its PC
// samples. A record whose timeline holds more launches than its counters (a default run, or
// `limiter run --trace` with no counters) gives its launches from the timeline, as `limiter
// report` ranks kernels by their time there, each with its kernel's verdict from the counters.
#include <algorithm>
#include <string>
#include <unordered_map>

#include "analysis/compare_context.hpp"
#include "analysis/counter_names.hpp"
#include "limiter/compare.hpp"
#include "limiter/program_verdict.hpp"

namespace limiter {

std::string_view NameTable::intern(std::string_view text) {
  auto found = names_.find(text);
  if (found == names_.end()) found = names_.emplace(text).first;
  return *found;
}

void ComparedRun::add(const KernelAnalysis& k) {
  ComparedLaunch launch;
  launch.sequence = k.sequence;
  launch.name = names->intern(k.name);
  launch.grid = k.grid;
  launch.block = k.block;
  launch.duration_ns = k.duration_ns;
  launch.verdict = k.verdict;
  launch.balanced = k.balanced;
  launch.limiting_unit = names->intern(k.limiting_unit);
  if (k.sampled) {
    launch.aggregated_launches = k.sampled->launches;
    launch.exact_launches = k.sampled->exact_launches;
  }
  launch.utilization = {k.utilization.issue, k.utilization.l2, k.utilization.dram, k.utilization.compute(),
                        k.utilization.memory()};
  launch.lmem = {k.lmem.l2_share, k.lmem.instruction_share};
  launches.push_back(launch);
}

const ComparedLaunch& ComparedRun::add_unanalysed(const KernelLaunch& k) {
  ComparedLaunch launch;
  launch.sequence = k.sequence;
  launch.name = names->intern(k.name);
  launch.grid = k.grid;
  launch.block = k.block;
  launch.duration_ns = k.counter(detail::counters::duration_ns);  // as analyze_run reads it
  if (k.sampled) {
    launch.aggregated_launches = k.sampled->launches;
    launch.exact_launches = k.sampled->exact_launches;
  }
  launches.push_back(launch);
  return launches.back();
}

ComparedRun compared_run(const RunAnalysis& analysis) {
  ComparedRun run;
  run.device = analysis.device;
  run.source = analysis.source;
  run.thresholds = analysis.thresholds;
  run.launches_seen = analysis.launches_seen;
  run.kernels_seen = analysis.kernels_seen;
  run.cache_control = analysis.cache_control;
  for (const auto& m : analysis.missed) run.missed_launches += m.launches;
  run.launches.reserve(analysis.kernels.size());
  for (const auto& k : analysis.kernels) run.add(k);
  return run;
}

namespace {

// Per kernel and configuration (and per name, for events of records without configurations): the
// first launch with counters, whose verdict and utilisations a timeline's launches take.
class CounterLaunches {
 public:
  explicit CounterLaunches(const std::vector<ComparedLaunch>& launches) {
    for (const auto& launch : launches) {
      by_configuration_.try_emplace(key(launch.name, launch.grid, launch.block), &launch);
      by_name_.try_emplace(std::string(launch.name), &launch);
    }
  }
  const ComparedLaunch* find(const TimelineEvent& event) const {
    if (event.grid && event.block) {
      const auto found = by_configuration_.find(key(event.name, *event.grid, *event.block));
      return found == by_configuration_.end() ? nullptr : found->second;
    }
    const auto found = by_name_.find(event.name);
    return found == by_name_.end() ? nullptr : found->second;
  }

 private:
  static std::string key(std::string_view name, const Dim3& grid, const Dim3& block) {
    return std::string(name) + "|" + std::to_string(grid.x) + "," + std::to_string(grid.y) + "," +
           std::to_string(grid.z) + "|" + std::to_string(block.x) + "," + std::to_string(block.y) + "," +
           std::to_string(block.z);
  }
  std::unordered_map<std::string, const ComparedLaunch*> by_configuration_, by_name_;
};

std::size_t timeline_kernels(const RunRecord& record) {
  if (!record.timeline) return 0;
  return static_cast<std::size_t>(std::count_if(record.timeline->events.begin(), record.timeline->events.end(),
                                                [](const TimelineEvent& e) { return e.kind == ActivityKind::kernel; }));
}

}  // namespace

void add_record_fields(ComparedRun& run, const RunRecord& record) {
  run.command_line = record.command_line;
  run.stalls = record.stalls;
  if (record.timeline) run.program = judge_run_program(record);
  const bool timed = std::any_of(run.launches.begin(), run.launches.end(),
                                 [](const ComparedLaunch& launch) { return launch.duration_ns.has_value(); });
  // A default run profiles a kernel's first launches and times every launch on its timeline, at
  // the app's own pace: the timeline is what the program spends, the counters give the verdicts.
  const std::size_t on_timeline = timeline_kernels(record);
  if (on_timeline == 0 || (timed && on_timeline <= run.launches.size())) return;
  const CounterLaunches counters(run.launches);
  std::vector<ComparedLaunch> launches;
  launches.reserve(on_timeline);
  for (const auto& event : record.timeline->events) {
    if (event.kind != ActivityKind::kernel) continue;
    ComparedLaunch launch;
    if (const ComparedLaunch* profiled = counters.find(event)) launch = *profiled;  // verdict, utilisations
    launch.sequence = launches.size();  // its place among the timeline's kernels
    launch.name = run.names->intern(event.name);
    launch.grid = event.grid.value_or(Dim3{0, 0, 0});
    launch.block = event.block.value_or(Dim3{0, 0, 0});
    launch.duration_ns = std::optional<double>(static_cast<double>(event.duration_ns()));
    launch.aggregated_launches = launch.exact_launches = 0;
    launches.push_back(launch);
  }
  run.launches = std::move(launches);
  run.kernels_seen.clear();
  run.from_timeline = true;
  LaunchSelection every;
  every.profiled = run.launches.size();
  every.description = "timed every launch on its timeline (" + detail::count_text(run.launches.size()) + ")";
  run.selection = every;
}

}  // namespace limiter
