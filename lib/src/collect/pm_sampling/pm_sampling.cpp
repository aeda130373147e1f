// The PM sampler session (pm_sampling.hpp). Facts it relies on, measured on an H100
// (bench/results/2026-11-23-pm-sampling.md, 2026-11-23-sampling-mode.md): DecodeData costs
// ~50 us and evaluation ~45 us per sample, and 15 metrics are sampled every ~150 us when asked
// for 100 (~80-110 us when asked for 50), so a decode thread beside an evaluate thread keeps up
// at 100 us and falls behind at 50; after an overflow Stop and Start fail; a counter-data image
// slot takes ~58 KB; sample times share the Activity clock.
#include "collect/pm_sampling/pm_sampling.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "collect/clock.hpp"
#include "collect/cupti/cupti_check.hpp"
#include "collect/cupti/pm_raw_store.hpp"
#include "collect/trace.hpp"

namespace limiter::detail {

namespace {

// How often the decode thread drains the hardware buffer when it has caught up.
constexpr auto kDecodePeriod = std::chrono::milliseconds(10);

std::string interval_fix(std::uint64_t interval_ns) {
  return "use a longer --sampling-interval (now " + std::to_string(interval_ns / 1000) +
         " us; the decode and evaluate threads keep up at 100 us, not at 50)";
}

}  // namespace

PmSampler::PmSampler(PmSamplingBackend& backend, const PmSamplerOptions& options, int device_index,
                     const DeviceDescription& device, SampleSink sink, std::optional<PmSamplerHostSide> prepared)
    : backend_(backend), options_(options), sink_(std::move(sink)) {
  const auto t0 = Clock::now();
  times_.host_side_ahead = prepared.has_value();
  if (!prepared) prepared = prepare_pm_sampler_host(backend_, options_.metrics, device_index, device.chip);
  availability_ = std::move(prepared->availability);
  config_ = std::move(prepared->config);
  host_ = std::move(prepared->host);
  times_.host_side_s = prepared->prepare_s;

  auto step = Clock::now();
  auto lap = [&step](double& into) {
    into = seconds_since(step);
    step = Clock::now();
  };
  sampler_ = backend_.enable(device_index);
  lap(times_.enable_s);
  try {
    for (const auto& metric : options_.metrics) metric_names_.push_back(metric.c_str());
    const std::size_t size = backend_.counter_data_size(sampler_, metric_names_, options_.samples_per_image);
    for (auto& image : images_) image.resize(size);
    reinitialize_image(filling_);
    backend_.set_config(sampler_, config_, options_.hardware_buffer_bytes, options_.interval_ns);
    lap(times_.set_config_s);
    backend_.start(sampler_);
    lap(times_.start_s);
  } catch (...) {
    backend_.disable(sampler_);
    throw;
  }
  if (!options_.raw_dir.empty())
    write_pm_meta(options_.raw_dir, device, options_.metrics, options_.interval_ns, options_.command_line, config_);
  times_.set_up_s = seconds_since(t0);
  started_at_ = Clock::now();
  LIMITER_TRACE("pm: started: %zu metrics, interval %llu ns, two images of %zu bytes, %s", options_.metrics.size(),
                static_cast<unsigned long long>(options_.interval_ns), images_[0].size(),
                backend_.library_text().c_str());
  evaluator_ = std::thread([this] { evaluate_loop(); });
  decoder_ = std::thread([this] { decode_loop(); });
}

PmSampler::~PmSampler() {
  try {
    stop();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "limiter: while stopping PM sampling: %s\n", e.what());
  }
}

void PmSampler::reinitialize_image(int which) { backend_.initialize_image(sampler_, images_[which]); }

// The decode thread's count of samples in the image it fills, and the last one's end.
void PmSampler::count_decoded() {
  const auto& image = images_[filling_];
  const std::size_t completed = backend_.completed_samples(image);
  if (completed <= decoded_) return;
  decoded_total_ += completed - decoded_;
  decoded_ = completed;
  decoded_end_ns_ = std::max(decoded_end_ns_, backend_.sample_times(sampler_, image, decoded_ - 1).end_ns);
}

// The filled image goes to the evaluate thread whole (once it has finished the other one), and
// decoding goes on in the other image.
void PmSampler::hand_over() {
  if (decoded_ == 0) return;
  {
    std::unique_lock lock(job_mutex_);
    job_cv_.wait(lock, [this] { return job_image_ < 0; });
    job_image_ = filling_;
    job_samples_ = decoded_;
    job_index_ = image_index_;
  }
  job_cv_.notify_all();
  filling_ ^= 1;
  reinitialize_image(filling_);
  decoded_ = 0;
  ++image_index_;
  ++times_.images;
}

// An image that fills in the middle of a decode loses the records that did not fit: on an H100
// every full image left a hole of ~16 ms of samples (41 holes in 41 images, 2026-11-24). So a
// decode that might not fit starts a fresh image first, from the samples due since the last one.
bool PmSampler::image_might_fill() const {
  if (decoded_ == 0 || decoded_end_ns_ == 0 || options_.interval_ns == 0) return false;
  const std::uint64_t now = backend_.timestamp();
  if (now <= decoded_end_ns_) return false;
  const std::uint64_t due = (now - decoded_end_ns_) / options_.interval_ns;
  return decoded_ + due + due / 4 + 16 > options_.samples_per_image;
}

bool PmSampler::decode_once() {
  for (;;) {
    if (image_might_fill()) hand_over();
    const auto t0 = Clock::now();
    const std::uint64_t before = decoded_total_;
    const PmDecode decode = backend_.decode(sampler_, images_[filling_]);
    const CUptiResult status = decode.status;
    times_.decode_s += seconds_since(t0);
    ++times_.decodes;
    if (!decode.overflow && status != CUPTI_SUCCESS && early_failure(status)) {
      ++times_.early_retries;
      LIMITER_TRACE("pm: decode before the first records: %s; trying again", cupti_error_text(status).c_str());
      return true;
    }
    if (decode.overflow || status != CUPTI_SUCCESS) {
      count_decoded();  // what was decoded before the overflow still counts
      hand_over();
      if (decode.overflow) {
        fail(
            "the GPU's PM-sampling buffer overflowed (the host decoded more slowly than the GPU sampled); "
            "samples after " +
            std::to_string(decoded_total_) + " are lost: " + interval_fix(options_.interval_ns));
      } else {
        fail("PM-sampling decode failed (" + cupti_error_text(status) + "); samples after " +
             std::to_string(decoded_total_) + " are lost");
      }
      return false;
    }
    count_decoded();
    if (decoded_total_ != before) empty_full_in_a_row_ = 0;
    if (hardware_stopped_ && (++drain_decodes_ <= 8 || drain_decodes_ % 1000 == 0))
      LIMITER_TRACE("pm: decode %llu after Stop: image %s, %llu new samples, %zu in the image, %llu in all",
                    static_cast<unsigned long long>(drain_decodes_), decode.image_full ? "full" : "not full",
                    static_cast<unsigned long long>(decoded_total_ - before), decoded_,
                    static_cast<unsigned long long>(decoded_total_));
    if (!decode.image_full) return true;
    if (decoded_total_ == before && decoded_ == 0 && ++empty_full_in_a_row_ <= kEmptyFullRetries) {
      // A fresh image reported full without taking a sample (the decoder behind the GPU, H100,
      // 2026-11-26): initialised again and decoded again at the next period (at once after Stop)
      // until samples come again, within kEmptyFullRetries.
      ++times_.empty_full_retries;
      LIMITER_TRACE(
          "pm: a fresh image was reported full with no sample (its decode %.1f ms); initialising it again (%d)",
          seconds_since(t0) * 1e3, empty_full_in_a_row_);
      reinitialize_image(filling_);
      if (!hardware_stopped_) return true;
      if (drain_overran()) return false;
      continue;  // after Stop: nothing more will come to wait for
    }
    if (decoded_total_ == before && decoded_ == 0) {
      // Still so after the retries: decoding again would do the same.
      fail("CUPTI's PM-sampling decode reported " + std::to_string(kEmptyFullRetries + 1) +
           " empty images full in a row; samples after " + std::to_string(decoded_total_) +
           " are lost: " + interval_fix(options_.interval_ns));
      return false;
    }
    hand_over();
    if (hardware_stopped_ && drain_overran()) return false;
    // A full image is decoded again at once: the decoder is behind the GPU. While the sampler
    // runs, that backlog may never end, so once stop is asked for the hardware is stopped first
    // and the rest decoded after it (stop()); 50 us hung the process's exit here before
    // (2026-11-24, H100).
    if (stop_requested_ && !hardware_stopped_) return true;
  }
}

// The drain after Stop past kDrainLimit: said, and the rest given up.
bool PmSampler::drain_overran() {
  if (Clock::now() - drain_started_ <= kDrainLimit) return false;
  fail("the PM samples left after the sampler stopped could not all be decoded within " +
       std::to_string(kDrainLimit.count()) + " s; samples after " + std::to_string(decoded_total_) + " are lost");
  return true;
}

// A decode right after Start failed with CUPTI_ERROR_UNKNOWN on the H100 (the hardware had
// written no record yet); nothing is lost by trying again while no sample has arrived.
bool PmSampler::early_failure(int status) const {
  constexpr auto kFirstRecordsWithin = std::chrono::seconds(1);
  return status == CUPTI_ERROR_UNKNOWN && decoded_total_ == 0 && Clock::now() - started_at_ < kFirstRecordsWithin;
}

void PmSampler::fail(std::string message) {
  failed_ = true;
  std::lock_guard lock(error_mutex_);
  if (error_.empty()) {
    error_ = std::move(message);
    std::fprintf(stderr, "limiter: %s\n", error_.c_str());
  }
}

void PmSampler::decode_loop() {
  // Decoding before the hardware has written its first records fails with CUPTI_ERROR_UNKNOWN.
  std::this_thread::sleep_for(kDecodePeriod);
  while (!stop_requested_) {
    const auto t0 = Clock::now();
    {
      std::lock_guard lock(mutex_);
      if (stopped_ || failed_) return;
      try {
        if (!decode_once()) return;
      } catch (const std::exception& e) {
        fail(std::string("PM sampling stopped: ") + e.what());
        return;
      }
    }
    // Caught up: wait for the next batch. Behind: decode again at once.
    if (Clock::now() - t0 < kDecodePeriod) std::this_thread::sleep_for(kDecodePeriod);
  }
}

void PmSampler::stop() {
  stop_requested_ = true;
  // Called on the decode or evaluate thread itself (a fatal signal there ends the process):
  // nothing to wait for.
  const auto self = std::this_thread::get_id();
  if ((decoder_.joinable() && decoder_.get_id() == self) || (evaluator_.joinable() && evaluator_.get_id() == self))
    return;
  if (decoder_.joinable()) decoder_.join();
  std::lock_guard lock(mutex_);
  if (stopped_ || !sampler_) return;
  stopped_ = true;
  LIMITER_TRACE("pm: stop after %llu samples%s", static_cast<unsigned long long>(samples_.load()),
                failed_ ? " (failed)" : "");
  stopped_at_ns_ = backend_.timestamp();
  // Drained while the sampler still runs (a decode right after Start failed on the H100: the
  // first records take a moment), then stopped; what arrives after the drain is at most a few
  // samples, and failing to decode them is not worth an error.
  if (!failed_) {
    const auto since_start = Clock::now() - started_at_;
    if (since_start < 2 * kDecodePeriod) std::this_thread::sleep_for(2 * kDecodePeriod - since_start);
    try {
      for (int attempt = 0; attempt < 20; ++attempt) {  // 20 x 10 ms: within early_failure's window
        const std::uint64_t retries = times_.early_retries;
        if (!decode_once() || times_.early_retries == retries) break;
        std::this_thread::sleep_for(kDecodePeriod);
      }
      if (decoded_total_ == 0 && times_.early_retries > 0)
        fail("no PM sample could be decoded (every decode failed with CUPTI_ERROR_UNKNOWN, " +
             std::to_string(times_.early_retries) + " tries)");
    } catch (const std::exception& e) {
      fail(std::string("the last PM samples could not be decoded: ") + e.what());
    }
  }
  const CUptiResult stop_status = backend_.stop(sampler_);
  if (!failed_ && stop_status == CUPTI_SUCCESS) {
    hardware_stopped_ = true;
    drain_started_ = Clock::now();
    const std::uint64_t before = decoded_total_;
    try {
      decode_once();  // the samples after the drain: all of a backlog, image by image
    } catch (const std::exception& e) {
      fail(std::string("the last PM samples could not be decoded: ") + e.what());
    }
    LIMITER_TRACE("pm: %llu samples decoded after the sampler stopped",
                  static_cast<unsigned long long>(decoded_total_ - before));
  }
  LIMITER_TRACE("pm: stopped (%s), last decode done", cupti_error_text(stop_status).c_str());
  try {
    hand_over();  // the last image, however full
  } catch (const std::exception& e) {
    fail(std::string("the last PM samples could not be decoded: ") + e.what());
  }
  {
    std::lock_guard job_lock(job_mutex_);
    evaluator_exit_ = true;
  }
  job_cv_.notify_all();
  if (evaluator_.joinable()) evaluator_.join();
  if (failed_ && stopped_at_ns_ > last_end_ns_ && options_.interval_ns > 0)
    lost_ += (stopped_at_ns_ - last_end_ns_) / options_.interval_ns;  // the samples that never arrived
  LIMITER_TRACE("pm: samples last %.1f us on average; %llu gaps between them, %llu samples missing",
                samples_ ? static_cast<double>(sampled_ns_) / 1e3 / static_cast<double>(samples_.load()) : 0.0,
                static_cast<unsigned long long>(gaps_), static_cast<unsigned long long>(lost_.load()));
  // After a failed decode, Disable was seen to hang when the process exited (H100, with the config image
  // already freed): not disabled, so CUPTI may still read the images, which therefore never go.
  if (failed_) {
    static auto* kept = new std::vector<std::vector<std::uint8_t>>;
    kept->push_back(std::move(config_));  // a moved vector keeps its buffer
    kept->push_back(std::move(availability_));
    new std::vector<const char*>(std::move(metric_names_));     // and the names, whose strings
    new std::vector<std::string>(std::move(options_.metrics));  // keep their buffers when moved whole
    return;
  }
  backend_.disable(sampler_);
  LIMITER_TRACE("pm: disabled");
}

std::string PmSampler::error() const {
  std::lock_guard lock(error_mutex_);
  return error_;
}

PmSamplerTimes PmSampler::times() const {
  PmSamplerTimes times;
  {
    std::lock_guard lock(mutex_);
    times = times_;
  }
  std::lock_guard job_lock(job_mutex_);
  times.evaluate_s = evaluate_s_;
  return times;
}

}  // namespace limiter::detail
