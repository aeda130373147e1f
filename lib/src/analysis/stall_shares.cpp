// A kernel's PC samples as shares per stall reason, its dominant reasons and hottest lines
// (stall_analysis.hpp).
#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <string_view>
#include <tuple>

#include "limiter/format.hpp"
#include "limiter/stall_analysis.hpp"

namespace limiter {
namespace {

// Counts of a hostile record may sum past 2^64: saturated, never wrapped.
std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return a > std::numeric_limits<std::uint64_t>::max() - b ? std::numeric_limits<std::uint64_t>::max() : a + b;
}

double ratio(std::uint64_t part, std::uint64_t whole) {
  return whole ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// The reason with most samples; ties to the first by name.
std::string top_reason(const StallCounts& reasons) {
  const auto top = std::max_element(reasons.begin(), reasons.end(),
                                    [](const auto& a, const auto& b) { return a.second < b.second; });
  return top == reasons.end() || top->second == 0 ? std::string() : top->first;
}

// The PCs of every entry, one per (module, offset), most samples first; ties by offset.
std::vector<HotLine> hot_lines_of(const std::vector<const KernelStalls*>& kernels, std::uint64_t samples,
                                  std::size_t limit) {
  std::vector<HotLine> lines;
  for (const KernelStalls* kernel : kernels) {
    for (const auto& pc : kernel->hot_pcs) {
      HotLine line;
      line.pc_offset = pc.pc_offset;
      line.samples = pc.samples;
      line.share = ratio(pc.samples, samples);
      line.reason = top_reason(pc.reasons);
      line.reasons = pc.reasons;
      line.sass = pc.sass;
      line.file = pc.file;
      line.line = pc.line;
      lines.push_back(std::move(line));
    }
  }
  std::stable_sort(lines.begin(), lines.end(), [](const HotLine& a, const HotLine& b) {
    return a.samples != b.samples ? a.samples > b.samples : a.pc_offset < b.pc_offset;
  });
  if (lines.size() > limit) lines.resize(limit);
  return lines;
}

}  // namespace

std::string HotLine::where() const {
  if (file && line) return *file + ":" + std::to_string(*line);
  char text[24];
  std::snprintf(text, sizeof text, "+0x%llx", static_cast<unsigned long long>(pc_offset));
  return file ? *file + " " + text : std::string(text);
}

KernelStallAnalysis analyze_kernel_stalls(const std::vector<const KernelStalls*>& kernels,
                                          const StallThresholds& thresholds) {
  KernelStallAnalysis out;
  StallCounts summed;
  for (const KernelStalls* kernel : kernels) {
    if (out.name.empty()) out.name = kernel->name;
    for (const auto& [reason, samples] : kernel->reasons) summed[reason] = saturating_add(summed[reason], samples);
  }
  for (const auto& [reason, samples] : summed) {
    out.samples = saturating_add(out.samples, samples);
    if (reason != kIssuedReason) out.stalled_samples = saturating_add(out.stalled_samples, samples);
  }
  for (const auto& [reason, samples] : summed) {
    if (samples == 0) continue;
    const bool stall = reason != kIssuedReason;
    out.reasons.push_back({reason, stall_reason_title(reason), samples, ratio(samples, out.samples),
                           stall ? ratio(samples, out.stalled_samples) : 0.0});
  }
  std::stable_sort(out.reasons.begin(), out.reasons.end(),
                   [](const StallShare& a, const StallShare& b) { return a.samples > b.samples; });
  for (const auto& reason : out.reasons) {
    if (out.dominant.size() >= thresholds.dominant_limit) break;
    if (reason.reason != kIssuedReason && reason.stall_share >= thresholds.dominant_share)
      out.dominant.push_back(reason);
  }
  out.hot_lines = hot_lines_of(kernels, out.samples, thresholds.hot_lines);
  return out;
}

KernelStallAnalysis analyze_kernel_stalls(const KernelStalls& kernel, const StallThresholds& thresholds) {
  return analyze_kernel_stalls(std::vector<const KernelStalls*>{&kernel}, thresholds);
}

KernelStalls sum_kernel_stalls(const std::vector<const KernelStalls*>& kernels) {
  KernelStalls sum;
  // A PC by offset, instruction and line: two ranks' builds of one name may differ.
  using PcKey = std::tuple<std::uint64_t, std::string, std::optional<std::string>, std::optional<std::uint32_t>>;
  std::map<PcKey, std::size_t> kept;  // index into sum.hot_pcs
  for (const KernelStalls* kernel : kernels) {
    if (sum.name.empty()) {
      sum.name = kernel->name;
      sum.mangled_name = kernel->mangled_name;
    }
    sum.samples = saturating_add(sum.samples, kernel->samples);
    for (const auto& [reason, samples] : kernel->reasons)
      sum.reasons[reason] = saturating_add(sum.reasons[reason], samples);
    for (const auto& pc : kernel->hot_pcs) {
      const auto [slot, added] = kept.emplace(PcKey{pc.pc_offset, pc.sass, pc.file, pc.line}, sum.hot_pcs.size());
      if (added) {
        sum.hot_pcs.push_back(pc);
        continue;
      }
      HotPc& same = sum.hot_pcs[slot->second];
      same.samples = saturating_add(same.samples, pc.samples);
      for (const auto& [reason, samples] : pc.reasons)
        same.reasons[reason] = saturating_add(same.reasons[reason], samples);
    }
  }
  return sum;
}

StallSampling stall_sampling_of(const StallInfo& info) {
  StallSampling sampling{info.sample_period_cycles,
                         info.collection,
                         info.samples,
                         info.dropped_samples,
                         info.hardware_buffer_full,
                         info.kernels.size(),
                         {}};
  for (const auto& kernel : info.kernels)
    if (!kernel.no_cubin.empty()) ++sampling.kernels_without_cubin[kernel.no_cubin];
  return sampling;
}

std::shared_ptr<const KernelStallAnalysis> StallIndex::of(const std::string& name) const {
  if (!info_) return nullptr;
  if (const auto found = analysed_.find(name); found != analysed_.end()) return found->second;
  std::vector<const KernelStalls*> entries;
  for (const auto& kernel : info_->kernels)
    if (kernel.name == name) entries.push_back(&kernel);
  std::shared_ptr<const KernelStallAnalysis> analysis;
  if (!entries.empty()) {
    auto analysed = analyze_kernel_stalls(entries, thresholds_);
    if (analysed.samples > 0) analysis = std::make_shared<const KernelStallAnalysis>(std::move(analysed));
  }
  analysed_.emplace(name, analysis);
  return analysis;
}

std::vector<std::shared_ptr<const KernelStallAnalysis>> StallIndex::all() const {
  std::vector<std::shared_ptr<const KernelStallAnalysis>> kernels;
  if (!info_) return kernels;
  std::set<std::string_view> names;
  for (const auto& kernel : info_->kernels)
    if (names.insert(kernel.name).second)
      if (auto analysis = of(kernel.name)) kernels.push_back(std::move(analysis));
  std::stable_sort(kernels.begin(), kernels.end(),
                   [](const auto& a, const auto& b) { return a->samples > b->samples; });
  return kernels;
}

std::string dominant_stalls_text(const KernelStallAnalysis& stalls) {
  std::vector<StallShare> named = stalls.dominant;
  if (named.empty()) {
    const auto top = std::find_if(stalls.reasons.begin(), stalls.reasons.end(),
                                  [](const StallShare& r) { return r.reason != kIssuedReason; });
    if (top != stalls.reasons.end()) named.push_back(*top);
  }
  std::string text;
  for (const auto& reason : named)
    text += (text.empty() ? "" : ", ") + reason.title + " " + format_percent(reason.stall_share, 0);
  return text;
}

}  // namespace limiter
