// PC samples per kernel and PC (pc_sampling_aggregate.hpp).
#include "collect/pc_sampling/pc_sampling_aggregate.hpp"

#include <algorithm>

namespace limiter::detail {

namespace {

constexpr std::string_view kPrefix = "smsp__pcsamp_warps_issue_stalled_";
constexpr std::string_view kNotIssued = "_not_issued";

}  // namespace

bool is_not_issued(std::string_view name) {
  return name.substr(0, kPrefix.size()) == kPrefix && name.size() > kPrefix.size() + kNotIssued.size() &&
         name.substr(name.size() - kNotIssued.size()) == kNotIssued;
}

std::optional<std::string> stall_key(std::string_view name) {
  if (name.substr(0, kPrefix.size()) != kPrefix || name.size() == kPrefix.size() || is_not_issued(name))
    return std::nullopt;
  name.remove_prefix(kPrefix.size());
  return std::string(name);
}

StallKeys stall_keys(const std::vector<PcStallReason>& reasons) {
  StallKeys keys;
  for (const auto& reason : reasons) {
    if (auto key = stall_key(reason.name))
      keys.reasons[reason.index] = std::move(*key);
    else if (is_not_issued(reason.name))
      keys.not_issued.insert(reason.index);
  }
  return keys;
}

std::uint16_t StallAggregator::reason_id(const std::string& key) {
  for (std::size_t id = 0; id < reason_names_.size(); ++id)
    if (reason_names_[id] == key) return static_cast<std::uint16_t>(id);
  reason_names_.push_back(key);
  return static_cast<std::uint16_t>(reason_names_.size() - 1);
}

void StallAggregator::count(ReasonCounts& counts, std::uint16_t reason, std::uint64_t samples) {
  for (auto& [id, n] : counts)
    if (id == reason) {
      n += samples;
      return;
    }
  counts.emplace_back(reason, samples);
}

StallCounts StallAggregator::named(const ReasonCounts& counts) const {
  StallCounts out;
  for (const auto& [id, samples] : counts) out[reason_names_.at(id)] += samples;
  return out;
}

void StallAggregator::add(const PcBatch& batch, const StallKeys& keys) {
  ++batches_;
  dropped_ += batch.dropped_samples;
  non_user_samples_ += batch.non_user_samples;
  if (batch.hardware_buffer_full) ++buffer_full_;
  // CUPTI's reason index -> our id, for this batch's context (-1: no key).
  std::vector<int> id_of;
  for (const auto& [index, key] : keys.reasons) {
    if (index >= id_of.size()) id_of.resize(index + 1, -1);
    id_of[index] = reason_id(key);
  }
  std::size_t indices = id_of.size();
  for (const std::uint32_t index : keys.not_issued) indices = std::max<std::size_t>(indices, index + 1);
  std::vector<std::uint64_t> by_index(indices + 1);  // the last slot: any index beyond every known one
  const KernelKey* last_key = nullptr;               // a batch's PCs come a function at a time
  Kernel* last_kernel = nullptr;
  for (const PcRecord& pc : batch.pcs) {
    PcCounts* counts = nullptr;  // made at the first keyed sample: a PC of unkeyed samples only adds nothing
    Kernel* kernel = nullptr;
    for (const auto& [index, samples] : pc.samples) {
      if (samples == 0) continue;
      by_index[std::min<std::size_t>(index, indices)] += samples;
      const int id = index < id_of.size() ? id_of[index] : -1;
      if (id < 0) {
        // A sample's "_not_issued" twin is the same sample again (its scheduler issued nothing
        // that cycle): counted apart, never added to the reason (ncu: the plain reasons sum to
        // smsp__pcsamp_sample_count).
        (keys.not_issued.count(index) ? not_issued_samples_ : unkeyed_samples_) += samples;
        continue;
      }
      if (!kernel) {
        const KernelKey key{pc.function, pc.cubin_crc};
        if (last_key && *last_key == key) {
          kernel = last_kernel;
        } else {
          const auto it = kernels_.try_emplace(key).first;
          last_key = &it->first;
          kernel = last_kernel = &it->second;
        }
        counts = &kernel->pcs[pc.pc_offset];
      }
      const auto reason = static_cast<std::uint16_t>(id);
      kernel->samples += samples;
      count(kernel->reasons, reason, samples);
      counts->samples += samples;
      count(counts->reasons, reason, samples);
      samples_ += samples;
    }
  }
  for (std::size_t index = 0; index < by_index.size(); ++index)
    if (by_index[index]) by_index_[static_cast<std::uint32_t>(index)] += by_index[index];
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
  // Most samples first; among equals by name and CRC (the map keeps no order of its own).
  std::sort(kernels.begin(), kernels.end(), [](const auto& a, const auto& b) {
    if (a.second->samples != b.second->samples) return a.second->samples > b.second->samples;
    const std::string& x = a.first->first ? *a.first->first : std::string();
    const std::string& y = b.first->first ? *b.first->first : std::string();
    return x != y ? x < y : a.first->second < b.first->second;
  });
  return kernels;
}

}  // namespace limiter::detail
