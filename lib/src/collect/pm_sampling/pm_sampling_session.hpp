#pragma once
// The PM-sampling session (CollectorOptions::sampling): no range profiler at all. At the first
// launch of its phase it starts the PM sampler on that launch's GPU (pm_sampling.hpp) and
// kernel timestamps (activity_timestamps.hpp); samples are attributed to kernels by time as
// both arrive, and aggregated per kernel and configuration (limiter/sampling.hpp), so memory
// holds only the last seconds of samples and one aggregate per kernel.
#include <cuda.h>

#include <atomic>
#include <functional>
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

#include "collect/collector_internal.hpp"
#include "collect/pm_sampling/pm_sampling.hpp"
#include "collect/pm_sampling/pm_sampling_backend.hpp"
#include "collect/session.hpp"
#include "limiter/collector.hpp"
#include "limiter/sampling.hpp"

namespace limiter::detail {

// Where the session stands in its phase list (modes.cpp): the messages of a record without
// samples, and when kernel timestamps start, depend on it.
enum class SamplingRole : std::uint8_t {
  alone,         // --sampling: sampling from the first launch in a region
  after_exact,   // --sampling --per-kernel-count K: after the exact phase's budgets are spent
  before_exact,  // --sampling --exact-undecided K: the first phase, for sampling_phase_launches launches
};

class PmSamplingSession final : public Session, public PhaseEnd {
 public:
  // SINK's on_snapshot (if set, also later) gets the aggregates so far about once a second: the
  // injection keeps them on disk. Every CUPTI and driver call goes through BACKEND.
  PmSamplingSession(const CollectorOptions& options, const LaunchSink* sink, SamplingRole role,
                    PmSamplingBackend& backend);
  ~PmSamplingSession() override;
  PmSamplingSession(const PmSamplingSession&) = delete;
  PmSamplingSession& operator=(const PmSamplingSession&) = delete;

  const char* name() const override { return "PM sampling"; }
  SessionCapabilities capabilities() override {
    SessionCapabilities takes;
    if (role_ == SamplingRole::before_exact) takes.phase_end = this;
    return takes;
  }
  void begin_region() override;
  void end_region() override;
  // Sampling starts at the first launch in a region, on that launch's GPU.
  void on_launch(const LaunchCall& call) override;
  // The sampled context is being destroyed (an app's teardown, before our exit handler): the
  // sampler stops and drains while the context still exists.
  void on_context_destroy(CUcontext context) override;
  // After the exact phase: its launches join their kernels' aggregates in every record from now
  // on, with its missed launches and launch count. Kernel timestamps and the sampler's set-up
  // start at the next launch, unless FOLLOWS is false (the app is ending): then the record says
  // that sampling never began.
  void begin_after(RunRecord before, bool follows) override;
  // Before exact: the sampling phase is over after sampling_phase_launches launches.
  bool phase_over() const override;
  std::string phase_over_reason() const override { return "its work done"; }
  // Stops sampling, attributes what is left and returns the sampled record (launches: one
  // aggregate per kernel and configuration). Before exact, the sampler and the kernel timestamps
  // are also disabled (the range profiler cannot be enabled beside them). Later calls return
  // the same record. Never throws.
  RunRecord finish() noexcept override;
  std::vector<MissedLaunches> missed() const override { return {}; }
  std::uint64_t launches_seen() const override { return launches_seen_; }
  std::string timings() const override;

  // After the exact phase: the sampler's host side (prepare_pm_sampler_host, ~hundreds of ms)
  // prepared on a thread of its own while the exact phase runs; from the exact phase's first
  // context on DEVICE_INDEX. Once only.
  void prepare_ahead(int device_index, const std::string& chip);
  // Called on the app's thread once, as sampling starts in a context: the next phase prepares
  // its device ahead (handover.hpp's sampling_then_exact). Set before the first launch.
  std::function<void(CUcontext)> on_context_sampled;

 private:
  PmSamplerOptions sampler_options() const;
  RunRecord finish_sampling() noexcept;
  void start_in_background(CUcontext context);  // after the exact phase, on starter_
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
  PmSamplingBackend& backend_;
  std::vector<std::string> metrics_;
  SamplingRole role_;
  std::unique_ptr<KernelTimestamps> activity_;
  std::unique_ptr<PmSampler> sampler_;  // set once, under start_mutex_; others read it once sampler_ready_
  std::atomic<bool> sampler_ready_{false};
  std::thread starter_;     // after budgets: start_in_background()
  std::mutex start_mutex_;  // the first launch starts sampling, once
  std::atomic<bool> started_{false}, start_failed_{false}, finished_{false}, samples_arrived_{false};
  std::atomic<int> active_depth_{0};
  std::atomic<std::uint64_t> launches_seen_{0};
  std::mutex mutex_;  // the attributor and what follows
  SampleAttributor attributor_;
  DeviceDescription device_;
  CUcontext sampled_context_ = nullptr;
  std::optional<std::uint32_t> device_id_;  // the sampled GPU; other GPUs' kernels are counted, not attributed
  std::uint64_t other_device_kernels_ = 0;
  std::string start_error_;
  std::ofstream raw_kernels_;         // --save-raw: kernels.jsonl
  std::FILE* raw_samples_ = nullptr;  // --save-raw: samples.tsv, flushed per batch
  std::chrono::steady_clock::time_point last_advance_ = std::chrono::steady_clock::now();
  std::atomic<bool> began_{false};  // its phase began (after the exact phase: once handed over)
  // After the exact phase: its launches, what it missed and how many launches it saw.
  std::vector<KernelLaunch> exact_launches_;
  std::vector<MissedLaunches> exact_missed_;
  std::uint64_t exact_launches_seen_ = 0;
  std::vector<KernelSeen> exact_kernels_seen_;
  std::optional<std::string> exact_cache_control_;  // the exact phase's, before this one
  // Before exact: the record and the account of the sampling phase, once it is over.
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
