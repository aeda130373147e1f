#pragma once
// The PM sampler session (CUPTI PM Sampling API, GPU time-interval trigger): GPU-wide counters
// sampled at a fixed interval, with no replay and no serialisation of the app's kernels. A
// decode thread drains the hardware buffer at the interval's pace into one of two counter-data
// images; an evaluate thread evaluates each filled image's samples on the host and hands them on. A hardware-buffer
// overflow ends sampling (CUPTI cannot restart it: Stop and Start fail with CUPTI_ERROR_UNKNOWN on GH100) and is
// reported with the fix. CUPTI keeps the pointers to the config and availability images and the metric names it was
// given: they live as long as the sampler (freed early, decoding failed or crashed once the app
// reused the memory, as Kineto found too).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "collect/pm_sampling/pm_sampling_backend.hpp"
#include "limiter/sampling.hpp"

namespace limiter::detail {

struct PmSamplerOptions {
  std::vector<std::string> metrics;  // one pass (sampling_plan_metrics())
  std::uint64_t interval_ns = 100000;
  std::size_t hardware_buffer_bytes = 512u << 20;
  std::uint32_t samples_per_image = 1000;  // ~30 KB of host memory per slot on GH100
  std::string raw_dir;                     // keep images, times and config for `limiter analyze`
  bool keep_images = false;                // with raw_dir: the images too, not only the decoded samples
  std::vector<std::string> command_line;   // for the recording's meta.json
};

// The host side of a sampler's set-up: the counter availability, the metrics' config image (its
// one pass checked) and the host object that evaluates samples. Sampling after per-kernel
// budgets prepares it while the exact phase runs, so that only the device side falls on the app.
struct PmSamplerHostSide {
  std::vector<std::uint8_t> availability, config;
  std::shared_ptr<PmSampleHost> host;
  double prepare_s = 0;
};
PmSamplerHostSide prepare_pm_sampler_host(PmSamplingBackend& backend, const std::vector<std::string>& metrics,
                                          int device_index, const std::string& chip);

// Time spent by the decode thread (limiter run --timing), and the set-up's parts.
struct PmSamplerTimes {
  double set_up_s = 0, decode_s = 0, evaluate_s = 0;
  double host_side_s = 0;        // prepare_pm_sampler_host, wherever it ran
  bool host_side_ahead = false;  // prepared before the sampler started, off the app's path
  double enable_s = 0, set_config_s = 0, start_s = 0;
  std::uint64_t decodes = 0, images = 0;
  std::uint64_t early_retries = 0;       // decodes that failed before the first records, tried again
  std::uint64_t empty_full_retries = 0;  // a fresh image said full with no sample: made again, tried again
};

class PmSampler {
 public:
  using SampleSink = std::function<void(std::vector<PmSample>&&)>;  // from the decode thread

  // Enables, configures and starts sampling on DEVICE_INDEX through BACKEND, with the host side
  // PREPARED ahead (else prepared here). Throws SystemError naming the fix.
  PmSampler(PmSamplingBackend& backend, const PmSamplerOptions& options, int device_index,
            const DeviceDescription& device, SampleSink sink, std::optional<PmSamplerHostSide> prepared = std::nullopt);
  ~PmSampler();
  PmSampler(const PmSampler&) = delete;
  PmSampler& operator=(const PmSampler&) = delete;

  // Stops the hardware, decodes what is left and disables sampling. Idempotent.
  void stop();

  std::uint64_t samples() const { return samples_; }
  std::uint64_t samples_lost() const { return lost_; }
  std::string error() const;  // empty, or what went wrong and its fix
  PmSamplerTimes times() const;

 private:
  void decode_loop();
  bool decode_once();                    // false when sampling cannot go on (error() says why)
  bool early_failure(int status) const;  // a failed decode before the first records: try again
  bool drain_overran();                  // after Stop, past kDrainLimit: failed (said once)
  void reinitialize_image(int which);
  void count_decoded();           // decoded_ and decoded_end_ns_ from the image being filled
  void hand_over();               // the filled image to the evaluate thread, decoding goes on in the other
  bool image_might_fill() const;  // the next decode might not fit in what is left of the image
  void evaluate_loop();
  void evaluate_image(int which, std::size_t count, std::size_t index);
  void fail(std::string message);

  PmSamplingBackend& backend_;
  PmSamplerOptions options_;
  SampleSink sink_;
  std::vector<std::uint8_t> availability_, config_;  // CUPTI reads them until Disable: before host_
  std::vector<const char*> metric_names_;            // likewise (into options_.metrics)
  std::shared_ptr<PmSampleHost> host_;
  PmSamplingObject* sampler_ = nullptr;
  // Two counter-data images: the decode thread fills one while the evaluate thread reads the
  // other. Decoding (~40-50 us a sample on an H100) and evaluating (~35-45 us) on one thread fell
  // behind the ~100-160 us samples of a 100 us interval.
  std::vector<std::uint8_t> images_[2];
  // The decode thread's (under mutex_):
  int filling_ = 0;                            // the image it decodes into
  std::size_t decoded_ = 0, image_index_ = 0;  // samples in that image; its number (raw recording)
  std::uint64_t decoded_total_ = 0, decoded_end_ns_ = 0;
  std::uint64_t drain_decodes_ = 0;  // decodes after Stop (traced)
  int empty_full_in_a_row_ = 0;      // fresh images reported full with no sample, since the last sample
  // The evaluate thread's job (under job_mutex_): an image handed over whole.
  mutable std::mutex job_mutex_;
  std::condition_variable job_cv_;
  int job_image_ = -1;
  std::size_t job_samples_ = 0, job_index_ = 0;
  bool evaluator_exit_ = false;
  double evaluate_s_ = 0;
  // The evaluate thread's own; read by stop() once it has ended.
  std::uint64_t last_end_ns_ = 0, gaps_ = 0, sampled_ns_ = 0;  // holes between samples; time they cover
  std::uint64_t stopped_at_ns_ = 0;
  std::atomic<std::uint64_t> samples_{0}, lost_{0};
  mutable std::mutex mutex_;        // the sampler object and the decode thread's state
  mutable std::mutex error_mutex_;  // error_ alone: set by either thread, read from the sink
  std::string error_;
  std::atomic<bool> failed_{false};
  bool stopped_ = false;
  bool hardware_stopped_ = false;  // cuptiPmSamplingStop done: what is left to decode is finite
  // The backlog after Stop is decoded for at most kDrainLimit: take_run() of the in-process API
  // hung in that decode (busy, in the driver) in 3 of 5 runs of SamplingGpu.InProcessApiBudgetsThenSampling
  // on an H100 (2026-11-25); a full 512 MiB buffer should take a few seconds. With the bound,
  // 3 of 4 runs reported the loss after 15 s instead (7,325-11,712 of ~16,000 samples decoded),
  // then 17 of 17 passed; not understood.
  static constexpr std::chrono::seconds kDrainLimit{15};
  // Fresh images reported full with no sample, in a row, before giving up. A decoder behind the
  // GPU met runs of them and then samples again (3 in a row, then 1,000 samples after a 4,809-sample
  // hole; SamplingGpu.InProcessApiBudgetsThenSampling, H100, 2026-11-26), and one run gave up at
  // the fourth when the bound was 3. Each stands for at most an image's worth of samples, counted
  // in the hole before the next sample.
  static constexpr int kEmptyFullRetries = 64;
  std::chrono::steady_clock::time_point drain_started_;
  PmSamplerTimes times_;
  std::atomic<bool> stop_requested_{false};
  std::chrono::steady_clock::time_point started_at_;
  std::thread evaluator_, decoder_;
};

}  // namespace limiter::detail
