// The verdict (docs/design.md §7): the busiest unit against Nsight Compute's thresholds, with
// occupancy, waves and tail as the named causes of a latency verdict (§6).
#include <algorithm>
#include <cmath>

#include "analysis/analysis_steps.hpp"
#include "analysis/counter_names.hpp"
#include "limiter/analysis.hpp"
#include "limiter/architecture.hpp"
#include "limiter/error.hpp"
#include "limiter/format.hpp"

namespace limiter {

std::string to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::bandwidth:
      return "bandwidth";
    case Verdict::instruction:
      return "instruction";
    case Verdict::latency:
      return "latency";
  }
  return "latency";
}

std::string to_string(LatencyCause cause) {
  switch (cause) {
    case LatencyCause::small_grid:
      return "small_grid";
    case LatencyCause::low_occupancy:
      return "low_occupancy";
    case LatencyCause::tail_effect:
      return "tail_effect";
  }
  return "small_grid";
}

Verdict ncu_sol_verdict(double sm_pct, double memory_pct, double /*waves_per_sm*/) {
  // SpeedOfLight.py: >= 80 on either side, "High Throughput"; both < 60, "Latency Issue"
  // (or "Small Grid" if waves < 1 — still latency); otherwise the side that leads by >= 10,
  // and "Balanced Throughput" (reported here as the larger side) when neither leads.
  if (sm_pct < 60.0 && memory_pct < 60.0) return Verdict::latency;
  return memory_pct >= sm_pct ? Verdict::bandwidth : Verdict::instruction;
}

namespace {

namespace c = detail::counters;

void add_occupancy(const KernelLaunch& k, const DeviceDescription& device, KernelAnalysis& out) {
  if (auto achieved = k.counter(c::achieved_occupancy_pct)) out.occupancy.achieved = *achieved / 100.0;
  const auto threads = k.block.count();
  if (device.arch.empty() || !k.registers_per_thread || threads == 0) return;
  OccupancyInput input;
  input.arch = device.arch;
  input.threads_per_block = static_cast<int>(threads);
  input.registers_per_thread = *k.registers_per_thread;
  input.shared_bytes_per_block = k.total_shared_bytes();
  try {
    out.occupancy.theoretical = compute_occupancy(input);
  } catch (const InputError&) {
    return;  // an architecture this build has no table for: no occupancy, no waves
  }
  if (device.sm_count > 0 && out.occupancy.theoretical->blocks_per_sm > 0)
    out.occupancy.waves = compute_waves(k.grid.count(), device.sm_count, out.occupancy.theoretical->blocks_per_sm);
}

std::optional<double> waves_of(const KernelLaunch& k, const KernelAnalysis& out) {
  if (out.occupancy.waves) return out.occupancy.waves->waves;
  return k.counter(c::ncu_waves_per_sm);
}

// Sub-units the record lacks can only raise their side: say which, and whether they could
// change the verdict, and name the plan that collects them.
void note_missing_units(KernelAnalysis& out, const Thresholds& t, const std::string& source) {
  const auto& missing = out.utilization.missing_units;
  if (missing.empty()) return;
  std::string names;
  for (const auto& label : missing) names += (names.empty() ? "" : ", ") + label;
  const double top = std::max(out.utilization.compute().value_or(0.0), out.utilization.memory().value_or(0.0));
  const bool settled = top >= t.high_utilization;
  out.coverage_note = (settled ? "not collected, unlikely to matter: " : "not collected, could change the verdict: ") +
                      names +
                      (source == "ncu-csv" ? " (ncu's --section SpeedOfLight collects them)"
                                           : " (`limiter run --plan sol` collects them)");
  out.evidence.push_back(
      {"coverage", static_cast<double>(missing.size()),
       "not in this record: " + names +
           (settled ? " (the verdict stands unless one of them is busier than the " + out.limiting_unit + ")"
                    : " (any of them could be the busier unit)") +
           "; `limiter run --plan sol`, or ncu with --section SpeedOfLight, collects them"});
}

// The verdict, and in words why (when EXPLAIN).
void decide(const KernelLaunch& k, const Thresholds& t, const std::string& source, bool explain, KernelAnalysis& out) {
  const auto compute = out.utilization.compute();
  const auto memory = out.utilization.memory();
  if (!compute && !memory) {
    if (explain)
      out.verdict_reason =
          "the counters allow no utilisation (need cycles or a duration with the instruction, "
          "L2 or DRAM counters), so no verdict";
    return;
  }
  const double compute_value = compute.value_or(0.0), memory_value = memory.value_or(0.0);
  const bool memory_leads = memory_value >= compute_value;
  const double top = std::max(compute_value, memory_value);
  if (const auto* busiest = out.utilization.busiest(!memory_leads)) {
    out.limiting_unit = busiest->label;
    out.limiting_group = busiest->group;
  }
  const std::string top_text = explain ? out.limiting_unit + " " + format_percent(top) : std::string();
  if (explain) note_missing_units(out, t, source);

  if (top >= t.high_utilization) {
    out.verdict = memory_leads ? Verdict::bandwidth : Verdict::instruction;
    if (explain) out.verdict_reason = top_text + " of peak, at or above " + format_percent(t.high_utilization, 0);
    return;
  }
  if (compute_value < t.latency && memory_value < t.latency) {
    out.verdict = Verdict::latency;
    if (explain)
      out.verdict_reason = "busiest unit " + top_text + " of peak; compute " + format_percent(compute_value) +
                           " and memory " + format_percent(memory_value) + " are both below " +
                           format_percent(t.latency, 0);
    const auto waves = waves_of(k, out);
    if (waves && *waves < t.small_grid_waves) {
      out.latency_causes.push_back(LatencyCause::small_grid);
      if (explain) out.verdict_reason += "; the grid fills only " + format_fixed(*waves, 2) + " of one wave";
    }
    if (out.occupancy.theoretical && out.occupancy.theoretical->blocks_per_sm > 0 &&
        out.occupancy.theoretical->occupancy < t.low_occupancy) {
      out.latency_causes.push_back(LatencyCause::low_occupancy);
      if (explain)
        out.verdict_reason += "; theoretical occupancy " + format_percent(out.occupancy.theoretical->occupancy) +
                              " (limited by " + to_string(out.occupancy.theoretical->limited_by) + ")";
    }
    if (out.occupancy.waves && out.occupancy.waves->full_waves >= 1 &&
        out.occupancy.waves->tail_idle_fraction >= t.tail_idle) {
      out.latency_causes.push_back(LatencyCause::tail_effect);
      if (explain)
        out.verdict_reason +=
            "; the last wave leaves " + format_percent(out.occupancy.waves->tail_idle_fraction) + " of SM time idle";
    }
    return;
  }
  const double gap = std::fabs(compute_value - memory_value);
  out.verdict = memory_leads ? Verdict::bandwidth : Verdict::instruction;
  out.balanced = gap < t.balance_gap;
  if (!explain) return;
  if (!out.balanced) {
    out.verdict_reason = top_text + " of peak (between " + format_percent(t.latency, 0) + " and " +
                         format_percent(t.high_utilization, 0) + "), leading the other side by " +
                         format_fixed(gap * 100.0, 1) + " points";
  } else {
    out.verdict_reason = "balanced: compute " + format_percent(compute_value) + " and memory " +
                         format_percent(memory_value) + " are within " + format_fixed(t.balance_gap * 100.0, 0) +
                         " points; " + top_text + " is the larger";
  }
}

// Counters of the memory side (DRAM, L2, L1): the others are the SMs' (issue, pipes).
bool memory_side(const std::string& metric) {
  return metric.starts_with("dram__") || metric.starts_with("lts__") || metric.starts_with("l1tex__") ||
         metric.starts_with("fbpa__");
}

// The verdicts a sampled launch gets with its fitted counters moved by two standard errors and
// the systematic share, the compute side and the memory side each up or down (the four corners
// bound each side's busiest unit, so every verdict the errors allow is among them).
std::vector<Verdict> verdicts_within_errors(const KernelLaunch& launch, const RunRecord& run, const PeakSet& peaks,
                                            const Thresholds& t) {
  std::vector<Verdict> out;
  if (!launch.sampled || launch.sampled->standard_errors.empty()) return out;
  for (const double compute : {-1.0, 1.0}) {
    for (const double memory : {-1.0, 1.0}) {
      KernelLaunch shifted = launch;
      for (const auto& [metric, error] : launch.sampled->standard_errors) {
        auto it = shifted.counters.find(metric);
        if (it == shifted.counters.end() || !std::isfinite(it->second)) continue;
        const double shift = 2 * error + t.sampling_systematic_error * std::fabs(it->second);
        it->second = std::max(it->second + (memory_side(metric) ? memory : compute) * shift, 0.0);
        if (metric.find(".pct_of_peak") != std::string::npos) it->second = std::min(it->second, 100.0);
      }
      KernelAnalysis corner;
      corner.utilization = detail::compute_utilization(shifted, run.device, run.counter_model, peaks, nullptr);
      decide(shifted, t, run.source, false, corner);
      if (corner.verdict && std::find(out.begin(), out.end(), *corner.verdict) == out.end())
        out.push_back(*corner.verdict);
    }
  }
  return out;
}

// `--sampling --per-kernel-count K`: the kernel's first launches were profiled exactly before
// sampling began. They give the LMEM shares sampling cannot measure, and the verdict where the
// samples could not decide; where both decide and differ, the evidence says so (the kernel
// changed after its first launches, or the samples mislead).
void use_exact_launches(const KernelLaunch& launch, const RunRecord& run, const PeakSet& peaks,
                        const AnalysisOptions& options, KernelAnalysis& out) {
  if (!launch.sampled || launch.sampled->exact_launches == 0) return;
  const SampleSupport& s = *launch.sampled;
  KernelLaunch exact = launch;
  exact.sampled.reset();
  exact.counters.clear();
  for (const auto& [metric, value] : s.exact_counters) exact.counters[metric] = value;
  KernelAnalysis e;
  e.utilization =
      detail::compute_utilization(exact, run.device, run.counter_model, peaks, options.explain ? &e.evidence : nullptr);
  e.lmem = detail::compute_lmem(exact, run.device, run.counter_model);
  e.occupancy = out.occupancy;
  decide(exact, options.thresholds, run.source, options.explain, e);
  const bool after = run.sampling && run.sampling->exact_after_sampling;
  const std::string launches = std::to_string(s.exact_launches) + " exactly profiled launch" +
                               (s.exact_launches == 1 ? "" : "es") +
                               (after ? " after the sampling phase" : " before sampling began");
  if (!out.lmem.l2_share && !out.lmem.instruction_share) out.lmem = e.lmem;  // sampling measures none
  if (!e.verdict) return;
  if (out.too_few_samples) {
    const std::string undecided = out.verdict_reason;
    out.utilization = e.utilization;
    out.verdict = e.verdict;
    out.balanced = e.balanced;
    out.limiting_unit = e.limiting_unit;
    out.limiting_group = e.limiting_group;
    out.latency_causes = e.latency_causes;
    out.coverage_note = e.coverage_note;
    out.too_few_samples = false;
    out.verdict_reason = e.verdict_reason + " [from its " + launches + "; " + undecided + "]";
    out.evidence.insert(out.evidence.end(), e.evidence.begin(), e.evidence.end());
    out.evidence.push_back({"exact", static_cast<double>(s.exact_launches),
                            "verdict from the " + launches + ": the samples could not decide"});
  } else if (out.verdict) {
    const bool same = *e.verdict == *out.verdict;
    out.evidence.push_back({"exact", static_cast<double>(s.exact_launches),
                            "the " + launches + " say " + to_string(*e.verdict) +
                                (e.limiting_unit.empty() ? "" : " (" + e.limiting_unit + ")") +
                                (same ? ", as the samples do"
                                      : ", the samples " + to_string(*out.verdict) +
                                            ": the kernel changed between them, or the samples mislead")});
  }
}

void judge_lmem(const Thresholds& t, KernelAnalysis& out) {
  auto& lmem = out.lmem;
  const auto l2 = lmem.l2_share.value_or(0.0);
  const auto inst = lmem.instruction_share.value_or(0.0);
  if (!out.verdict || *out.verdict == Verdict::latency) {
    lmem.significant = l2 >= t.lmem_significant || inst >= t.lmem_significant;
  } else if (*out.verdict == Verdict::bandwidth) {
    lmem.significant = l2 >= t.lmem_significant;
  } else {
    lmem.significant = inst >= t.lmem_significant;
  }
  if (auto memory = out.utilization.memory(); memory && (out.limiting_group == "l2" || out.limiting_group == "l1"))
    lmem.dominant = *memory * l2 >= t.latency;
}

}  // namespace

LaunchAnalyzer::LaunchAnalyzer(const RunRecord& run, const AnalysisOptions& options)
    : run_(run),
      options_(options),
      sm_side_problem_(detail::sm_side_problem(run, options.thresholds.min_samples)),
      peaks_(detail::choose_peaks(run, options.peaks)),
      stalls_(run.stalls ? StallIndex(*run.stalls, options.stalls) : StallIndex()) {}

KernelAnalysis LaunchAnalyzer::analyze(const KernelLaunch& launch) const {
  const Thresholds& t = options_.thresholds;
  KernelAnalysis kernel;
  kernel.sequence = launch.sequence;
  kernel.name = launch.name;
  kernel.grid = launch.grid;
  kernel.block = launch.block;
  kernel.registers_per_thread = launch.registers_per_thread;
  kernel.duration_ns = launch.counter(c::duration_ns);
  kernel.nvtx = launch.nvtx;
  kernel.utilization = detail::compute_utilization(launch, run_.device, run_.counter_model, peaks_,
                                                   options_.explain ? &kernel.evidence : nullptr);
  kernel.lmem = detail::compute_lmem(launch, run_.device, run_.counter_model);
  add_occupancy(launch, run_.device, kernel);
  decide(launch, t, run_.source, options_.explain, kernel);
  kernel.sampled = launch.sampled;
  detail::judge_sample_support(t, verdicts_within_errors(launch, run_, peaks_, t), sm_side_problem_,
                               run_.sampling && run_.sampling->exact_after_sampling, kernel);
  use_exact_launches(launch, run_, peaks_, options_, kernel);
  judge_lmem(t, kernel);
  kernel.ncu_sm_throughput = launch.counter(c::ncu_sm_throughput_pct);
  kernel.ncu_memory_throughput = launch.counter(c::ncu_memory_throughput_pct);
  if (kernel.ncu_sm_throughput && kernel.ncu_memory_throughput) {
    kernel.ncu_verdict = ncu_sol_verdict(*kernel.ncu_sm_throughput, *kernel.ncu_memory_throughput,
                                         launch.counter(c::ncu_waves_per_sm).value_or(1.0));
  }
  kernel.stalls = stalls_.of(kernel.name);
  if (options_.explain) kernel.advice = detail::advise(kernel, t);
  return kernel;
}

RunAnalysis analyze_run(const RunRecord& run, const AnalysisOptions& options) {
  RunAnalysis result;
  result.device = run.device;
  result.missed = run.missed;
  result.ended = run.ended;
  result.phases = run.phases;
  result.cache_control = run.cache_control;
  result.launches_seen = run.launches_seen;
  result.kernels_seen = run.kernels_seen;
  result.host = run.host;
  result.rank = run.rank;
  result.source = run.source;
  result.counter_model = run.counter_model;
  result.peaks = options.peaks;
  result.thresholds = options.thresholds;
  const LaunchAnalyzer analyzer(run, options);
  result.peaks_origin = analyzer.peaks().origin;
  if (run.stalls) result.stall_sampling = stall_sampling_of(*run.stalls);
  result.kernels.reserve(run.launches.size());
  for (const auto& launch : run.launches) result.kernels.push_back(analyzer.analyze(launch));
  return result;
}

}  // namespace limiter
