// The PM sampler's host side (pm_sampling.hpp): its config image and counter availability,
// prepared before or beside the app's launches, and the evaluate thread that turns each filled
// counter-data image into samples (the decode thread stays in pm_sampling.cpp).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "collect/clock.hpp"
#include "collect/cupti/cupti_check.hpp"
#include "collect/cupti/pm_raw_store.hpp"
#include "collect/pm_sampling/pm_sampling.hpp"
#include "collect/trace.hpp"

namespace limiter::detail {

PmSamplerHostSide prepare_pm_sampler_host(PmSamplingBackend& backend, const std::vector<std::string>& metrics,
                                          int device_index, const std::string& chip) {
  const auto t0 = Clock::now();
  PmSamplerHostSide host_side;
  host_side.availability = backend.counter_availability(device_index);
  host_side.host = backend.sample_host(chip, host_side.availability);
  host_side.config = host_side.host->config_image(metrics);
  if (const std::size_t passes = host_side.host->pass_count(host_side.config); passes != 1) {
    throw SystemError(
        "the sampling metrics need " + std::to_string(passes) +
        " passes and PM sampling takes one: sample fewer metrics (the LMEM counters need the exact mode)");
  }
  host_side.prepare_s = seconds_since(t0);
  return host_side;
}

// The evaluate thread: each handed-over image's samples, with their times, evaluated on the
// host and passed to the sink in order; holes between samples counted as lost.
void PmSampler::evaluate_loop() {
  for (;;) {
    int which = -1;
    std::size_t count = 0, index = 0;
    {
      std::unique_lock lock(job_mutex_);
      job_cv_.wait(lock, [this] { return job_image_ >= 0 || evaluator_exit_; });
      if (job_image_ < 0) return;  // asked to exit, nothing left
      which = job_image_;
      count = job_samples_;
      index = job_index_;
    }
    const auto t0 = Clock::now();
    try {
      evaluate_image(which, count, index);
    } catch (const std::exception& e) {
      fail(std::string("PM samples could not be evaluated: ") + e.what());
    }
    {
      std::lock_guard lock(job_mutex_);
      evaluate_s_ += seconds_since(t0);
      job_image_ = -1;
    }
    job_cv_.notify_all();
  }
}

void PmSampler::evaluate_image(int which, std::size_t count, std::size_t index) {
  const auto& image = images_[which];
  std::vector<PmSample> batch;
  batch.reserve(count);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> times;
  const bool keep_images = !options_.raw_dir.empty() && options_.keep_images;  // else samples.tsv only
  for (std::size_t i = 0; i < count; ++i) {
    const PmSampleTimes sample = backend_.sample_times(sampler_, image, i);
    PmSample s;
    s.start_ns = sample.start_ns;
    s.end_ns = sample.end_ns;
    s.values = host_->evaluate(image, i, options_.metrics);
    // A hole between two samples: samples the hardware dropped, or records a full image lost;
    // counted in the samples' own length (with 15 metrics the H100 samples every ~100 us when
    // asked for 50), never silent.
    const std::uint64_t length =
        std::max<std::uint64_t>(s.end_ns > s.start_ns ? s.end_ns - s.start_ns : 0, options_.interval_ns);
    if (last_end_ns_ != 0 && length > 0 && s.start_ns > last_end_ns_ + length / 2) {
      const std::uint64_t missing = (s.start_ns - last_end_ns_ + length / 2) / length;
      lost_ += missing;
      ++gaps_;
      LIMITER_TRACE("pm: hole of %.1f us (%llu samples) before sample %zu of image %zu (%zu samples)",
                    static_cast<double>(s.start_ns - last_end_ns_) / 1e3, static_cast<unsigned long long>(missing), i,
                    index, count);
    }
    sampled_ns_ += s.end_ns > s.start_ns ? s.end_ns - s.start_ns : 0;
    last_end_ns_ = std::max(last_end_ns_, s.end_ns);
    if (keep_images) times.emplace_back(s.start_ns, s.end_ns);
    batch.push_back(std::move(s));
  }
  samples_ += batch.size();
  if (keep_images && !times.empty()) write_pm_image(options_.raw_dir, index, image, times);
  if (sink_) sink_(std::move(batch));
}

}  // namespace limiter::detail
