// PC samples per kernel and PC (pc_sampling_aggregate.hpp).
#include "collect/pc_sampling_aggregate.hpp"

#include <algorithm>

namespace limiter::detail {

namespace {

constexpr std::string_view kPrefix = "smsp__pcsamp_warps_issue_stalled_";
constexpr std::string_view kNotIssued = "_not_issued";

}  // namespace

std::optional<std::string> stall_key(std::string_view name) {
  if (name.substr(0, kPrefix.size()) != kPrefix || name.size() == kPrefix.size()) return std::nullopt;
  name.remove_prefix(kPrefix.size());
  if (name.size() > kNotIssued.size() && name.substr(name.size() - kNotIssued.size()) == kNotIssued)
    name.remove_suffix(kNotIssued.size());
  return std::string(name);
}

StallKeys stall_keys(const std::vector<PcStallReason>& reasons) {
  StallKeys keys;
  for (const auto& reason : reasons)
    if (auto key = stall_key(reason.name)) keys[reason.index] = std::move(*key);
  return keys;
}

void StallAggregator::add(const PcBatch& batch, const StallKeys& keys) {
  ++batches_;
  dropped_ += batch.dropped_samples;
  non_user_samples_ += batch.non_user_samples;
  if (batch.hardware_buffer_full) ++buffer_full_;
  for (const PcRecord& pc : batch.pcs) {
    Kernel* kernel = nullptr;  // made at the first keyed sample: a PC of unkeyed samples only adds nothing
    PcCounts* counts = nullptr;
    for (const auto& [index, samples] : pc.samples) {
      if (samples == 0) continue;
      const auto key = keys.find(index);
      if (key == keys.end()) {
        unkeyed_samples_ += samples;
        continue;
      }
      if (!kernel) {
        kernel = &kernels_[{pc.function, pc.cubin_crc}];
        counts = &kernel->pcs[pc.pc_offset];
      }
      kernel->samples += samples;
      kernel->reasons[key->second] += samples;
      counts->samples += samples;
      counts->reasons[key->second] += samples;
      samples_ += samples;
    }
  }
}

std::vector<std::pair<std::uint64_t, const StallAggregator::PcCounts*>> StallAggregator::ranked(
    const Kernel& kernel) const {
  std::vector<std::pair<std::uint64_t, const PcCounts*>> pcs;
  for (const auto& [pc, counts] : kernel.pcs) pcs.emplace_back(pc, &counts);
  // Most samples first; the lower offset first among equals (a stable order for the record).
  std::sort(pcs.begin(), pcs.end(), [](const auto& a, const auto& b) {
    return a.second->samples != b.second->samples ? a.second->samples > b.second->samples : a.first < b.first;
  });
  if (pcs.size() > kHotPcsPerKernel) pcs.resize(kHotPcsPerKernel);
  return pcs;
}

std::vector<std::pair<const StallAggregator::KernelKey*, const StallAggregator::Kernel*>>
StallAggregator::ranked_kernels() const {
  std::vector<std::pair<const KernelKey*, const Kernel*>> kernels;
  for (const auto& [key, kernel] : kernels_) kernels.emplace_back(&key, &kernel);
  std::stable_sort(kernels.begin(), kernels.end(),
                   [](const auto& a, const auto& b) { return a.second->samples > b.second->samples; });
  return kernels;
}

}  // namespace limiter::detail
