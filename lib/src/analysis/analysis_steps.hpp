#pragma once
// The steps of analyze_run, one file each: utilisations, LMEM shares, advice, stall advice, PM
// samples' support.
#include <cstdint>
#include <string>
#include <vector>

#include "limiter/analysis.hpp"

namespace limiter::detail {

// Fills utilisations and appends the evidence of how each was computed (none, and no wording
// of sub-unit sources, when EVIDENCE is null: AnalysisOptions::explain off).
Utilization compute_utilization(const KernelLaunch& launch, const DeviceDescription& device, CounterModel model,
                                const PeakSet& peaks, std::vector<Evidence>* evidence);

LmemAnalysis compute_lmem(const KernelLaunch& launch, const DeviceDescription& device, CounterModel model);

// The seeds' advice for the kernel's verdict, LMEM shares, latency causes and stall reasons.
std::vector<std::string> advise(const KernelAnalysis& kernel, const Thresholds& thresholds);

// The advice keyed to the kernel's dominant stall reasons (none without stalls); advise() puts
// it first for a latency-limited kernel, else last.
std::vector<std::string> stall_advice(const KernelAnalysis& kernel);

// PM sampling: why the run's samples do not measure the SMs' work; empty where they do (or the
// run was not sampled). Decided once per run (sample_support.cpp).
std::string sm_side_problem(const RunRecord& run, std::uint64_t min_samples);

// PM sampling: takes the verdict back where the aggregate's samples cannot carry it, and says
// why; ALTERNATIVES are the verdicts its fit allows within its errors.
void judge_sample_support(const Thresholds& t, const std::vector<Verdict>& alternatives,
                          const std::string& sm_side_problem, bool exact_after_sampling, KernelAnalysis& out);

// The peaks to use for a run: counters in the record win over the GPU spec table.
PeakSet choose_peaks(const RunRecord& run, PeakKind kind);

}  // namespace limiter::detail
