// PM sampling's verdicts (docs/design.md §7): whether a run's samples saw the SMs' work, and
// whether a sampled aggregate's verdict stands on its samples.
#include <algorithm>

#include "analysis/analysis_steps.hpp"
#include "analysis/counter_names.hpp"
#include "limiter/format.hpp"

namespace limiter::detail {
namespace {

namespace c = counters;

// Whether the run's samples saw the SMs' work. On an H100 (CUPTI 13.0) PM samples taken after the
// range profiler ran in the process count no SM-side work for a while, then some: a run of 1,640
// steps of mlp_training.py fitted 75 % of the instructions its exact launches account for, one of
// 205 steps 1-4 %, one none (2026-11-25). Where exact launches joined the aggregates
// (`--sampling --per-kernel-count K`), the fitted instructions of all sampled launches are held
// against the exact launches' mean per launch times the sampled launches; outside
// [kMinSampledShare, 1 / kMinSampledShare] the samples do not measure the SM side. Empty: fine.
constexpr double kMinSampledShare = 0.8;

}  // namespace

std::string sm_side_problem(const RunRecord& run, std::uint64_t min_samples) {
  if (!run.sampling) return {};
  const std::string cause =
      run.sampling->exact_after_sampling
          ? std::string()
          : " (on an H100 PM samples miss SM-side work after the range profiler ran in the process, "
            "as it does with --per-kernel-count)";
  if (!run.sampling->sm_side_counted)
    return "no sample of the run counted an instruction while kernels ran: the SM-side counters did not count" + cause;
  double fitted = 0, expected = 0;
  bool uncounted = false;  // exact launches without instructions
  for (const auto& k : run.launches) {
    if (!k.sampled || k.sampled->exact_launches == 0) continue;
    // Sampling first: a kernel the samples barely saw (the reason it was profiled exactly) has
    // no fit to hold against its exact launches.
    if (k.sampled->samples < min_samples) continue;
    const auto exact = k.sampled->exact_counters.find(c::inst_issued);
    if (exact == k.sampled->exact_counters.end()) uncounted = true;
    const auto sampled = k.counters.find(c::inst_issued);
    if (exact == k.sampled->exact_counters.end() || sampled == k.counters.end()) continue;
    fitted += sampled->second;
    expected += exact->second * static_cast<double>(k.sampled->launches);
  }
  // After an exact phase the SM side must be shown to count: with --metrics lacking the
  // instructions, 0-2.4 % of the samples counted any, 21 % with --sampling alone (H100, 2026-11-25).
  if (expected <= 0)
    return uncounted ? "the exactly profiled launches did not count instructions, so the samples' SM side cannot be "
                       "checked against them" +
                           cause
                     : std::string();
  const double share = fitted / expected;
  if (share >= kMinSampledShare && share <= 1.0 / kMinSampledShare) return {};
  return "the samples account for " + format_percent(share) +
         " of the instructions the exactly profiled launches give the sampled ones: they do not measure the SM side" +
         cause;
}

// PM-sampling mode: the counters are GPU-wide samples split among the kernels that ran in them.
// A verdict needs enough samples and little concurrency, and either holds across two standard
// errors of the least-squares fit (ALTERNATIVES: the verdicts it gives there) or, in records
// without them, rests on samples mostly this kernel's.
void judge_sample_support(const Thresholds& t, const std::vector<Verdict>& alternatives,
                          const std::string& sm_side_problem, bool exact_after_sampling, KernelAnalysis& out) {
  if (!out.sampled) return;
  const SampleSupport& s = *out.sampled;
  std::string support = std::to_string(s.samples) + " samples over " + std::to_string(s.launches) + " launches, " +
                        format_percent(s.purity) + " of their busy time this kernel's, " +
                        format_percent(s.overlap_share) + " of its time beside another kernel";
  if (s.separability) support += ", least-squares separability " + format_percent(*s.separability);
  out.evidence.push_back({"sampling", static_cast<double>(s.samples), "PM-sampling aggregate: " + support});
  std::string lacking;
  const bool fitted = !s.standard_errors.empty();
  const bool holds = !out.verdict || std::all_of(alternatives.begin(), alternatives.end(),
                                                 [&](Verdict v) { return v == *out.verdict; });
  // A fitted rate above what the unit can do (beyond the systematic share) is a fit that did not
  // separate this kernel from its neighbours, whatever its standard errors say: on an H100 a
  // GEMM at separability 0.6 % was fitted at 135 % of the L1 data pipe (2026-11-25).
  const SubUnitUse* impossible = nullptr;
  if (fitted)
    for (const auto& unit : out.utilization.units)
      if (unit.value > 1.0 + t.sampling_systematic_error && (!impossible || unit.value > impossible->value))
        impossible = &unit;
  if (!sm_side_problem.empty()) {
    lacking = sm_side_problem;
  } else if (s.samples < t.min_samples)
    lacking = "fewer than " + std::to_string(t.min_samples) + " samples";
  else if (impossible) {
    lacking = "the least-squares fit puts the " + impossible->label + " at " + format_percent(impossible->value) +
              " of its peak, more than the hardware can do: the fit did not separate it from the kernels beside it";
  } else if (fitted && !holds) {
    std::string verdicts;
    for (const Verdict v : alternatives) verdicts += (verdicts.empty() ? "" : " or ") + to_string(v);
    lacking = "within the least-squares fit's uncertainty (two standard errors and " +
              format_percent(t.sampling_systematic_error, 0) + ") it could be " + verdicts;
  } else if (!fitted && s.purity < t.min_purity && !(s.separability && *s.separability >= t.min_separability))
    lacking = "its samples are mostly other kernels' work (purity below " + format_percent(t.min_purity, 0) +
              ") and the least-squares fit cannot tell it from its neighbours (separability below " +
              format_percent(t.min_separability, 0) + ")";
  else if (s.overlap_share > t.max_overlap)
    lacking = "it ran beside other kernels more than " + format_percent(t.max_overlap, 0) + " of its time";
  if (lacking.empty()) {
    out.verdict_reason += " [sampled: " + support + "]";
    return;
  }
  out.too_few_samples = true;
  out.verdict.reset();
  out.balanced = false;
  out.latency_causes.clear();
  out.verdict_reason =
      "no verdict from sampling: " + lacking + " (" + support + "); " +
      (exact_after_sampling
           ? "it did not run again after the sampling phase, where --exact-undecided profiles such a "
             "kernel exactly: a smaller --sampling-phase"
           : "`--sampling --per-kernel-count 1` profiles its first launch exactly for one, as the exact "
             "mode (limiter run without --sampling) does");
}

}  // namespace limiter::detail
