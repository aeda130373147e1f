#pragma once
// The collector in PM-sampling mode (CollectorOptions::sampling): no range profiler at all.
// At the first launch it starts the PM sampler on that launch's GPU (pm_sampling.hpp) and
// kernel timestamps (activity_timestamps.hpp); samples are attributed to kernels by time as
// both arrive, and aggregated per kernel and configuration (limiter/sampling.hpp), so memory
// holds only the last seconds of samples and one aggregate per kernel.
#include <cupti.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <future>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "collect/activity_timestamps.hpp"
#include "collect/collector_internal.hpp"
#include "collect/pm_sampling.hpp"
#include "limiter/collector.hpp"
#include "limiter/sampling.hpp"

namespace limiter::detail {

class SamplingMode {
 public:
  // Subscribes to CUPTI's launch callbacks. SINK's on_snapshot (if set, also later) gets the
  // aggregates so far about once a second: the injection keeps them on disk.
  // AFTER_BUDGETS (`--sampling --per-kernel-count K`): the exact mode profiles each kernel's first
  // launches first; this object waits, unsubscribed, for begin_after_budgets(), and the
  // exact-mode collector hands it its launch and context callbacks from then on.
  SamplingMode(const CollectorOptions& options, const LaunchSink* sink, bool after_budgets = false);
  ~SamplingMode();
  SamplingMode(const SamplingMode&) = delete;
  SamplingMode& operator=(const SamplingMode&) = delete;

  // The exact phase is over (its profilers finished): its launches join the aggregates of their
  // kernels in every record from now on, with its missed launches and launch count. Kernel
  // timestamps and the sampler's set-up start at the next launch, unless SAMPLING_FOLLOWS is
  // false (the app is ending): then the record says that sampling never began.
  void begin_after_budgets(std::vector<KernelLaunch> exact, std::vector<MissedLaunches> missed,
                           std::uint64_t launches_seen, std::vector<KernelSeen> kernels_seen, bool sampling_follows);

  // Sampling first, then exact (CollectorOptions::exact_undecided_count): driven by the exact-mode
  // collector's callbacks as after budgets, sampling from the first launch.
  void begin_before_exact();
  // Sampling first: the sampling phase is over. Stops the sampler and the kernel timestamps (the
  // range profiler cannot be enabled beside them), and returns the sampled record, which
  // finish() returns again later. Never throws.
  RunRecord end_phase() noexcept;

  // Sampling after budgets: the sampler's host side (prepare_pm_sampler_host, ~hundreds of ms)
  // prepared on a thread of its own while the exact phase runs; from the exact collector's first
  // context on DEVICE_INDEX. Once only.
  void prepare_ahead(int device_index, const std::string& chip);

  void begin_region();
  void end_region();
  // Stops sampling, attributes what is left and returns the sampled record (launches: one
  // aggregate per kernel and configuration). Later calls return an empty record. Never throws.
  RunRecord finish() noexcept;
  std::uint64_t launches_seen() const { return launches_seen_; }
  std::string timings_text() const;

  void on_launch(const CUpti_CallbackData& call);  // CUPTI's driver callback, at launch ENTER
  // The sampled context is being destroyed (an app's teardown, before our exit handler): the
  // sampler stops and drains while the context still exists.
  void on_context_destroy(CUcontext context);

 private:
  PmSamplerOptions sampler_options() const;
  void start_in_background(CUcontext context);  // after budgets, on starter_
  bool start_or_say_why(CUcontext context);     // start_sampling(), or start_error_ set and said; start_mutex_ held
  void start_sampling(CUcontext context);
  void on_samples(std::vector<PmSample>&& samples);
  void write_raw_samples(const std::vector<PmSample>& samples);  // caller holds mutex_
  void on_kernel(KernelSpan&& span);
  // The record around LAUNCHES: device, sampling, what is missing and why. Under mutex_.
  RunRecord record(std::vector<KernelLaunch> launches) const;
  void snapshot();  // the aggregates so far to the sink (not under mutex_)

  CollectorOptions options_;
  const LaunchSink* sink_;
  std::vector<std::string> metrics_;
  CUpti_SubscriberHandle subscriber_ = nullptr;
  std::unique_ptr<ActivityTimestamps> activity_;
  std::unique_ptr<PmSampler> sampler_;  // set once, under start_mutex_; others read it once sampler_ready_
  std::atomic<bool> sampler_ready_{false};
  std::thread starter_;  // after budgets: start_in_background()
  std::mutex start_mutex_;                       // the first launch starts sampling, once
  std::atomic<bool> started_{false}, start_failed_{false}, finished_{false}, samples_arrived_{false};
  std::atomic<int> active_depth_{0};
  std::atomic<std::uint64_t> launches_seen_{0};
  std::mutex mutex_;                             // the attributor and what follows
  SampleAttributor attributor_;
  DeviceDescription device_;
  CUcontext sampled_context_ = nullptr;
  std::optional<std::uint32_t> device_id_;       // the sampled GPU; other GPUs' kernels are counted, not attributed
  std::uint64_t other_device_kernels_ = 0;
  std::string start_error_;
  std::ofstream raw_kernels_;                    // --save-raw: kernels.jsonl
  std::FILE* raw_samples_ = nullptr;             // --save-raw: samples.tsv, flushed per batch
  std::chrono::steady_clock::time_point last_advance_ = std::chrono::steady_clock::now();
  // After budgets: the exact phase's launches, what it missed and how many launches it saw.
  bool after_budgets_ = false;
  std::atomic<bool> budgets_spent_{false};
  std::vector<KernelLaunch> exact_launches_;
  std::vector<MissedLaunches> exact_missed_;
  std::uint64_t exact_launches_seen_ = 0;
  std::vector<KernelSeen> exact_kernels_seen_;
  // Sampling first: the record and the account of the sampling phase, once it is over.
  bool before_exact_ = false;
  std::optional<RunRecord> phase_record_;
  std::string phase_timings_;
  std::future<PmSamplerHostSide> host_side_ahead_;  // prepare_ahead()'s, taken by start_sampling()
  int host_side_device_ = -1;
  double activity_enable_s_ = 0;  // after budgets: kernel timestamps enabled at the first sampled launch
  // Whether a sample counted an instruction (under mutex_); the metric's place in a sample, if sampled.
  bool sm_work_seen_ = false;
  std::optional<std::size_t> issued_index_;
};

}  // namespace limiter::detail
