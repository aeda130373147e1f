#pragma once
// What a family of experiments sees: which entries are selected, the device, and measure(),
// which warms a kernel up, times it unprofiled, profiles it once, checks its result against
// the host reference and records it.
#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "device_buffer.hpp"
#include "limiter/collector.hpp"
#include "limiter/kernels/suite.hpp"

namespace limiter::kernels::detail {

struct CheckResult {
  bool correct = false;
  std::string detail;  // what was compared, or the first difference
};

// One catalog entry's experiment: exactly one kernel launch, repeatable (it overwrites its
// output and never its input).
struct Experiment {
  std::string name;              // the catalog entry
  const void* kernel = nullptr;  // the __global__ function, for its attributes
  dim3 grid{1, 1, 1};
  dim3 block{1, 1, 1};
  std::size_t dynamic_shared_bytes = 0;
  std::function<void()> launch;        // one launch on the default stream
  std::function<CheckResult()> check;  // after the last launch
  double useful_bytes = 0;             // what the GB/s figure counts
  double useful_flops = 0;
  double dependent_steps = 0;
  // Evict L2 before every run, so inputs come from DRAM as in the seeds' measurements; off
  // for the L2-resident calibration read, which wants its buffer in L2.
  bool flush_l2 = true;
};

struct Timing {
  double median_ns = 0;
  int runs = 0;
};

class SuiteContext {
 public:
  // options.profile: try to construct a Collector; on SystemError say so once and time only.
  explicit SuiteContext(const SuiteOptions& options);
  ~SuiteContext();
  SuiteContext(const SuiteContext&) = delete;
  SuiteContext& operator=(const SuiteContext&) = delete;

  bool selected(const std::string& name) const;
  bool any_selected(Family family) const;
  ProblemSize sizes() const { return options_.sizes; }
  bool sweep_requested() const { return options_.sweep; }
  const cudaDeviceProp& device() const { return properties_; }

  // Warm up, time unprofiled (median), profile once, check, record. Does nothing for an
  // entry that is not selected.
  void measure(const Experiment& experiment);
  // Warm up, then the median of the timed runs; no profiling, nothing recorded.
  Timing time(const Experiment& experiment);
  // Results that are not one profiled kernel launch: copies, skipped experiments.
  void record(Measurement measurement);
  void add_sweep_point(const SweepPoint& point) { result_.sweep.push_back(point); }
  void starting(const std::string& name) const;  // progress
  void note(const std::string& line) const;

  SuiteResult take_result();

 private:
  void flush_l2();
  Measurement describe(const Experiment& experiment) const;  // configuration and resources
  RunRecord profile(const Experiment& experiment);           // its launches, or its stall samples (--stalls)
  KernelLaunch timing_only_launch(const Experiment& experiment, const Measurement& measurement) const;

  SuiteOptions options_;
  std::vector<const CatalogEntry*> selection_;
  cudaDeviceProp properties_{};
  int device_index_ = 0;
  std::unique_ptr<Collector> collector_;
  DeviceBuffer<unsigned char> l2_flush_buffer_;
  cudaEvent_t start_event_ = nullptr, stop_event_ = nullptr;
  SuiteResult result_;
};

// Each family allocates its inputs only when one of its entries is selected.
void run_reduction_family(SuiteContext& context);
void run_stencil_family(SuiteContext& context);
void run_occupancy_family(SuiteContext& context);
void run_tail_effect_family(SuiteContext& context);
void run_matmul_family(SuiteContext& context);
void run_ml_patterns_family(SuiteContext& context);
void run_warp_stalls_family(SuiteContext& context);
void run_calibration_family(SuiteContext& context);
void run_multi_gpu_family(SuiteContext& context);

// The calibration kernels as experiments (shared by the family and `limiter calibrate`), and
// the SM clock measured with clock64() while the GPU is busy.
std::vector<Experiment> calibration_experiments(const cudaDeviceProp& device, ProblemSize sizes);
double measure_sm_clock_hz(SuiteContext& context);

// The blocks of one full wave: blocks_per_sm on every SM.
inline unsigned one_wave(const cudaDeviceProp& device, int blocks_per_sm) {
  return static_cast<unsigned>(device.multiProcessorCount * blocks_per_sm);
}
int resident_blocks_per_sm(const void* kernel, int threads, std::size_t dynamic_shared_bytes);
// Reads `bytes` of a zero-filled buffer on the default stream: L2 ends up holding clean lines.
void launch_l2_eviction(const unsigned char* buffer, std::size_t bytes, const cudaDeviceProp& device);

}  // namespace limiter::kernels::detail
