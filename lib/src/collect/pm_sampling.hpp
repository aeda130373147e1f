#pragma once
// The PM sampler session (CUPTI PM Sampling API, GPU time-interval trigger): GPU-wide counters
// sampled at a fixed interval, with no replay and no serialisation of the app's kernels. A
// decode thread drains the hardware buffer at the interval's pace, evaluates each sample on the
// host and hands it on. A hardware-buffer overflow ends sampling (CUPTI cannot restart it: Stop
// and Start fail with CUPTI_ERROR_UNKNOWN on GH100) and is reported with the fix.
// CUPTI keeps the pointers to the config and availability images and the metric names it was
// given: they live as long as the sampler (freed early, decoding failed or crashed once the app
// reused the memory, as Kineto found too).
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "limiter/sampling.hpp"

struct CUpti_PmSampling_Object;

namespace limiter::detail {

class ProfilerHost;

struct PmSamplerOptions {
  std::vector<std::string> metrics;           // one pass (sampling_plan_metrics())
  std::uint64_t interval_ns = 100000;
  std::size_t hardware_buffer_bytes = 512u << 20;
  std::uint32_t samples_per_image = 1000;     // ~30 KB of host memory per slot on GH100
  std::string raw_dir;                        // keep images, times and config for `limiter analyze`
  std::vector<std::string> command_line;      // for the recording's meta.json
};

// Time spent by the decode thread (limiter run --timing).
struct PmSamplerTimes {
  double set_up_s = 0, decode_s = 0, evaluate_s = 0;
  std::uint64_t decodes = 0, images = 0;
  std::uint64_t early_retries = 0;  // decodes that failed before the first records, tried again
};

// The libcupti this process uses (its path and API version), for diagnostics.
std::string cupti_in_use();

class PmSampler {
 public:
  using SampleSink = std::function<void(std::vector<PmSample>&&)>;  // from the decode thread

  // Enables, configures and starts sampling on DEVICE_INDEX. Throws SystemError naming the fix.
  PmSampler(const PmSamplerOptions& options, int device_index, const DeviceDescription& device, SampleSink sink);
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
  bool decode_once();  // false when sampling cannot go on (error() says why)
  bool early_failure(int status) const;  // a failed decode before the first records: try again
  void evaluate_new_samples();
  void reinitialize_image();
  void keep_image();
  void next_image();                 // the image kept (--save-raw) and a fresh one started
  bool image_might_fill() const;     // the next decode might not fit in what is left of the image
  void fail(std::string message);

  PmSamplerOptions options_;
  SampleSink sink_;
  std::vector<std::uint8_t> availability_, config_;  // CUPTI reads them until Disable: before host_
  std::vector<const char*> metric_names_;             // likewise (into options_.metrics)
  std::unique_ptr<ProfilerHost> host_;
  CUpti_PmSampling_Object* sampler_ = nullptr;
  std::vector<std::uint8_t> image_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> image_times_;  // for the raw recording
  std::size_t consumed_ = 0, image_index_ = 0;
  std::uint64_t last_end_ns_ = 0, stopped_at_ns_ = 0;
  std::atomic<std::uint64_t> samples_{0}, lost_{0};
  std::uint64_t gaps_ = 0, sampled_ns_ = 0;  // holes between consecutive samples; time the samples cover
  mutable std::mutex mutex_;        // the image and the sampler object
  mutable std::mutex error_mutex_;  // error_ alone: read from the sink, which runs under mutex_
  std::string error_;
  bool failed_ = false, stopped_ = false;
  bool hardware_stopped_ = false;  // cuptiPmSamplingStop done: what is left to decode is finite
  PmSamplerTimes times_;
  std::atomic<bool> stop_requested_{false};
  std::chrono::steady_clock::time_point started_at_;
  std::thread decoder_;
};

}  // namespace limiter::detail
