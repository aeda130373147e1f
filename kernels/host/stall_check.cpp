#include "limiter/kernels/stall_check.hpp"

#include <algorithm>
#include <ostream>

#include "limiter/format.hpp"
#include "table.hpp"

namespace limiter::kernels {

std::optional<DominantStall> dominant_stall(const KernelStalls& kernel) {
  std::optional<DominantStall> best;
  for (const auto& [reason, samples] : kernel.reasons) {
    if (reason == "selected" || samples == 0) continue;
    if (!best || samples > best->samples) best = DominantStall{reason, samples, 0};
  }
  if (best && kernel.samples > 0)
    best->share = static_cast<double>(best->samples) / static_cast<double>(kernel.samples);
  return best;
}

StallCheck check_stall(const CatalogEntry& entry, const StallInfo* stalls) {
  StallCheck check;
  if (entry.intended_stalls.empty()) {
    check.text = detail::kNone;
    return check;
  }
  if (!stalls) {
    check.outcome = StallOutcome::no_data;
    check.text = kNoStallData;
    return check;
  }
  const KernelStalls* kernel = find_kernel_stalls(*stalls, entry.name);
  if (kernel) check.dominant = dominant_stall(*kernel);
  if (!check.dominant) {
    check.outcome = StallOutcome::no_samples;
    check.text = "no stall samples of this kernel";
    return check;
  }
  const auto& intended = entry.intended_stalls;
  const bool matches = std::find(intended.begin(), intended.end(), check.dominant->reason) != intended.end();
  check.outcome = matches ? StallOutcome::matches : StallOutcome::differs;
  check.text = matches ? "yes" : "NO (" + intended_stall_text(entry) + ")";
  return check;
}

void add_experiment_stalls(StallInfo& suite, const StallInfo& experiment, const std::string& name) {
  if (experiment.sample_period_cycles) suite.sample_period_cycles = experiment.sample_period_cycles;
  suite.collection = experiment.collection;
  suite.samples += experiment.samples;
  suite.dropped_samples += experiment.dropped_samples;
  suite.hardware_buffer_full += experiment.hardware_buffer_full;
  if (experiment.kernels.empty()) return;
  KernelStalls merged;
  merged.name = name;
  for (const auto& kernel : experiment.kernels) {
    if (kernel.samples > merged.samples) {  // the main kernel's module and symbol
      merged.mangled_name = kernel.mangled_name;
      merged.cubin_crc = kernel.cubin_crc;
    }
    merged.samples += kernel.samples;
    for (const auto& [reason, samples] : kernel.reasons) merged.reasons[reason] += samples;
    merged.hot_pcs.insert(merged.hot_pcs.end(), kernel.hot_pcs.begin(), kernel.hot_pcs.end());
  }
  std::stable_sort(merged.hot_pcs.begin(), merged.hot_pcs.end(),
                   [](const HotPc& a, const HotPc& b) { return a.samples > b.samples; });
  if (merged.hot_pcs.size() > 20) merged.hot_pcs.resize(20);
  suite.kernels.push_back(std::move(merged));
  std::stable_sort(suite.kernels.begin(), suite.kernels.end(),
                   [](const KernelStalls& a, const KernelStalls& b) { return a.samples > b.samples; });
}

std::size_t write_stall_checks(const std::vector<Measurement>& measurements, const StallInfo* stalls,
                               std::ostream& out) {
  std::vector<const CatalogEntry*> checked;
  for (const auto& m : measurements) {
    const CatalogEntry* entry = find_entry(m.name);
    if (entry && !entry->intended_stalls.empty() && m.skipped_reason.empty()) checked.push_back(entry);
  }
  if (checked.empty()) return 0;
  if (!stalls) {
    out << "\nwarp stalls: " << checked.size() << (checked.size() == 1 ? " kernel has" : " kernels have")
        << " an intended dominant stall; " << kNoStallData << "\n";
    return 0;
  }
  out << "\nwarp stalls: the dominant reason PC sampling found against the intended one\n";
  detail::Table table({"kernel", "intended stall", "dominant stall", "of samples", "samples", "= intended"});
  std::size_t differ = 0;
  for (const auto* entry : checked) {
    const StallCheck check = check_stall(*entry, stalls);
    if (check.outcome == StallOutcome::differs) ++differ;
    const KernelStalls* kernel = find_kernel_stalls(*stalls, entry->name);
    table.add({entry->name, intended_stall_text(*entry), check.dominant ? check.dominant->reason : detail::kNone,
               check.dominant ? format_percent(check.dominant->share) : detail::kNone,
               kernel ? std::to_string(kernel->samples) : "0", check.text});
  }
  table.write(out);
  return differ;
}

}  // namespace limiter::kernels
