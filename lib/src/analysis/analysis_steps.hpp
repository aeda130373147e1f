#pragma once
// The steps of analyze_run, one file each: utilisations, LMEM shares, advice.
#include <string>
#include <vector>

#include "limiter/analysis.hpp"

namespace limiter::detail {

// Fills utilisations and appends the evidence of how each was computed (none, and no wording
// of sub-unit sources, when EVIDENCE is null: AnalysisOptions::explain off).
Utilization compute_utilization(const KernelLaunch& launch, const DeviceDescription& device,
                                CounterModel model, const PeakSet& peaks, std::vector<Evidence>* evidence);

LmemAnalysis compute_lmem(const KernelLaunch& launch, const DeviceDescription& device, CounterModel model);

// The seeds' advice for the kernel's verdict, LMEM shares and latency causes.
std::vector<std::string> advise(const KernelAnalysis& kernel, const Thresholds& thresholds);

// The peaks to use for a run: counters in the record win over the GPU spec table.
PeakSet choose_peaks(const RunRecord& run, PeakKind kind);

}  // namespace limiter::detail
