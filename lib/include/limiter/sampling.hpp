#pragma once
// PM-sampling mode, host side: GPU-wide counter samples (CUPTI PM Sampling, fixed interval, no
// replay) attributed to kernels by time (Activity API start/end, the same GPU clock), and
// aggregated per kernel and launch configuration across its launches. No CUDA or CUPTI here:
// the collector (lib/src/collect/pm_sampling/pm_sampling.cpp) and the offline re-analysis of a recording
// (`limiter analyze DIR`, tests) feed the same attributor.
//
// Attribution: a sample's activity counters (instructions, bytes, sectors, busy percentages x
// time) are split among the kernels that ran in it by their share of its busy time (idle time
// gets none); its clock-like metrics (elapsed cycles, peaks, clock rates) by their share of
// its wall time. Per kernel, extensive counters are scaled from the sampled time to the
// kernel's whole time (Activity API), intensive ones (percentages, rates, peaks) are averaged.
// Kernels too short to own a sample: the activity counters are also fitted by least squares
// over all samples (model/rate_fit.hpp); where the fit can tell a kernel from its neighbours
// (separability), its rates replace the busy-time split.
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "limiter/record.hpp"

namespace limiter {

namespace detail {
class RateFit;
}

struct PmSample {
  std::uint64_t start_ns = 0, end_ns = 0;
  std::vector<double> values;  // in the order of the attributor's metrics
};

struct KernelSpan {
  std::uint64_t start_ns = 0, end_ns = 0;
  KernelLaunch launch;  // name, configuration, resources; counters are filled by the attributor
};

// The one-pass PM-sampling plan on GH100 (checked with the host API, CUPTI 13.0): the verdict's
// issue, DRAM, L2 and L1 sub-units and the tensor pipe, with the peaks and clocks they need.
// The LMEM counters (l1tex local sectors) make it two passes, which PM sampling cannot do.
const std::vector<std::string>& sampling_plan_metrics();

// What tells one aggregate from another: the kernel's (mangled) name, grid and block.
std::string sampling_group_key(const KernelLaunch& launch);

// `--sampling --per-kernel-count K` (exact launches first, then sampling): each aggregate gets
// the exact launches of its kernel and configuration as SampleSupport::exact_launches and the
// mean per launch of each counter; exact launches of a kernel without an aggregate (it ran only
// before sampling began) follow the aggregates as they are, so none is lost.
std::vector<KernelLaunch> join_exact_launches(std::vector<KernelLaunch> aggregates,
                                              const std::vector<KernelLaunch>& exact);

// The launches seen of each kernel and configuration over the whole run: those the exact phase
// saw (profiled or not) plus those each aggregate sampled, so that a report estimates each
// kernel's share of the whole run (RunRecord::kernels_seen).
std::vector<KernelSeen> add_sampled_launches(std::vector<KernelSeen> exact_phase,
                                             const std::vector<KernelLaunch>& aggregates);

class SampleAttributor {
 public:
  SampleAttributor(std::vector<std::string> metrics, std::uint64_t interval_ns);
  ~SampleAttributor();
  SampleAttributor(const SampleAttributor&) = delete;
  SampleAttributor& operator=(const SampleAttributor&) = delete;

  void add_kernel(KernelSpan span);  // any order
  void add_sample(PmSample sample);  // any order
  // Attributes the samples that end at or before WATERMARK (every kernel that ran before it
  // must have been added) and forgets the kernels that ended before them: memory stays bounded
  // by what lies after the watermark and by the number of distinct kernels.
  void advance(std::uint64_t watermark_ns);
  void count_lost(std::uint64_t samples) { lost_ += samples; }

  // Everything attributed: one entry per kernel and launch configuration, in order of first launch.
  std::vector<KernelLaunch> aggregates();
  // The same for the samples attributed so far (advance()), leaving the pending ones pending: a
  // snapshot while the app runs.
  std::vector<KernelLaunch> attributed_so_far() const;
  SamplingInfo info() const;
  std::size_t pending_kernels() const { return kernels_.size(); }
  std::size_t pending_samples() const { return samples_.size(); }

 private:
  struct Group {
    KernelLaunch meta;
    std::size_t index = 0;  // its column in the least-squares fit
    std::uint64_t first_start = 0;
    std::uint64_t launches = 0;
    double kernel_time = 0;   // Activity API, all launches
    double sampled_time = 0;  // covered by attributed samples
    double purity_weighted = 0;
    double overlapped = 0;
    std::uint64_t samples = 0;
    std::uint64_t last_sample = UINT64_MAX;
    std::vector<double> sums;  // per metric, extensive
  };
  struct OpenKernel {
    std::uint64_t start_ns, end_ns;
    Group* group;
  };
  void attribute(const PmSample& sample);
  Group& group_of(const KernelLaunch& launch, std::uint64_t start_ns);

  std::vector<std::string> metrics_;
  std::vector<bool> intensive_, clock_like_;
  std::uint64_t interval_ns_;
  std::map<std::string, Group> groups_;
  std::vector<OpenKernel> kernels_;  // not yet past the watermark
  std::vector<PmSample> samples_;    // not yet attributed
  std::uint64_t attributed_ = 0, lost_ = 0, sample_index_ = 0;
  std::unique_ptr<detail::RateFit> fit_;
};

}  // namespace limiter
