#pragma once
// PC samples summed per kernel and per PC as GetData batches arrive (any number of batches and
// contexts), and the kernels' stalls at the end (limiter/stalls.hpp): reasons named as ncu names
// them, the hottest PCs first. Plain values only: tested without a GPU.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "collect/pc_sampling/pc_sampling_backend.hpp"
#include "limiter/stalls.hpp"

namespace limiter::detail {

// The most PCs a kernel's record keeps (the hottest).
constexpr std::size_t kHotPcsPerKernel = 20;

// CUPTI's stall reason NAME as the record keys it: "smsp__pcsamp_warps_issue_stalled_barrier"
// is "barrier"; null for a name without that prefix (not a warp state) and for the
// "_not_issued" variants: those count the samples of their reason again (the ones whose
// scheduler issued nothing), a subset, as ncu's own metrics of the same names do (H100,
// 2026-11-26: the plain reasons sum to smsp__pcsamp_sample_count, each twin is at most its
// reason). Adding them counted most samples twice and weighed reasons unevenly.
std::optional<std::string> stall_key(std::string_view name);
bool is_not_issued(std::string_view name);

// The keys of one context's reasons, by CUPTI's index; the "_not_issued" twins by index apart.
struct StallKeys {
  std::map<std::uint32_t, std::string> reasons;
  std::set<std::uint32_t> not_issued;
};
StallKeys stall_keys(const std::vector<PcStallReason>& reasons);

class StallAggregator {
 public:
  // A batch of a context whose reasons are KEYS.
  void add(const PcBatch& batch, const StallKeys& keys);

  std::uint64_t batches() const { return batches_; }
  std::uint64_t samples() const { return samples_; }
  std::uint64_t dropped_samples() const { return dropped_; }
  std::uint64_t hardware_buffer_full() const { return buffer_full_; }
  std::size_t kernels() const { return kernels_.size(); }
  std::uint64_t non_user_samples() const { return non_user_samples_; }
  std::uint64_t unkeyed_samples() const { return unkeyed_samples_; }        // reasons without a key
  std::uint64_t not_issued_samples() const { return not_issued_samples_; }  // the twins: a subset, not added
  // Samples by CUPTI's reason index as CUPTI gave them (before "_not_issued" is folded): for
  // the debug trace, where CUPTI's own split can be checked against ncu's.
  const std::map<std::uint32_t, std::uint64_t>& samples_by_index() const { return by_index_; }

  // The stalls so far (kernels by samples, most first; at most kHotPcsPerKernel PCs each),
  // with DEMANGLE naming each kernel and LINES each hot PC's source line where known.
  template <class Demangle, class Lines>
  StallInfo info(Demangle demangle, Lines lines) const;

 private:
  // Reasons as small ids (reason_names_), counted in short lists: a PC has a few reasons, and
  // the per-sample work is a scan of them, not a look-up by name (2026-11-26: a PyTorch loop
  // hands over ~500,000 PCs a second).
  using ReasonCounts = std::vector<std::pair<std::uint16_t, std::uint64_t>>;
  struct PcCounts {
    std::uint64_t samples = 0;
    ReasonCounts reasons;
  };
  struct Kernel {
    std::uint64_t samples = 0;
    ReasonCounts reasons;
    std::unordered_map<std::uint64_t, PcCounts> pcs;
  };
  using KernelKey = std::pair<const std::string*, std::uint64_t>;  // mangled name (stored by the backend), cubin CRC
  struct KeyHash {
    std::size_t operator()(const KernelKey& key) const {
      return std::hash<const void*>()(key.first) ^ (std::hash<std::uint64_t>()(key.second) << 1);
    }
  };
  static void count(ReasonCounts& counts, std::uint16_t reason, std::uint64_t samples);
  StallCounts named(const ReasonCounts& counts) const;
  std::uint16_t reason_id(const std::string& key);
  std::vector<std::pair<std::uint64_t, const PcCounts*>> ranked(const Kernel& kernel) const;
  std::vector<std::pair<const KernelKey*, const Kernel*>> ranked_kernels() const;

  std::unordered_map<KernelKey, Kernel, KeyHash> kernels_;
  std::vector<std::string> reason_names_;  // by id
  std::uint64_t samples_ = 0, dropped_ = 0, buffer_full_ = 0, batches_ = 0;
  std::uint64_t non_user_samples_ = 0, unkeyed_samples_ = 0, not_issued_samples_ = 0;
  std::map<std::uint32_t, std::uint64_t> by_index_;
};

template <class Demangle, class Lines>
StallInfo StallAggregator::info(Demangle demangle, Lines lines) const {
  StallInfo info;
  info.samples = samples_;
  info.dropped_samples = dropped_;
  info.hardware_buffer_full = buffer_full_;
  for (const auto& [key, kernel] : ranked_kernels()) {
    KernelStalls out;
    out.mangled_name = key->first ? *key->first : std::string();
    out.name = demangle(out.mangled_name);
    out.cubin_crc = key->second;
    out.samples = kernel->samples;
    out.reasons = named(kernel->reasons);
    for (const auto& [pc, counts] : ranked(*kernel)) {
      HotPc hot;
      hot.pc_offset = pc;
      hot.samples = counts->samples;
      hot.reasons = named(counts->reasons);
      if (const std::optional<SourceLine> line = lines(out.mangled_name, out.cubin_crc, pc)) {
        hot.file = line->file;
        hot.line = line->line;
      }
      out.hot_pcs.push_back(std::move(hot));
    }
    info.kernels.push_back(std::move(out));
  }
  return info;
}

}  // namespace limiter::detail
