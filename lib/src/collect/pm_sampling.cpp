// The PM sampler session (pm_sampling.hpp). Facts it relies on, measured on an H100
// (bench/results/2026-11-23-pm-sampling.md): DecodeData costs ~96 us per sample, so intervals
// under ~100 us fall behind and overflow the 512 MB hardware buffer; after an overflow Stop and
// Start fail; a counter-data image slot takes ~30 KB; sample times share the Activity clock.
#include "collect/pm_sampling.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "collect/cupti_check.hpp"
#include "collect/pm_raw_store.hpp"
#include "collect/profiler_host.hpp"

#define PM_TRACE(...)                                                     \
  do {                                                                    \
    if (std::getenv("LIMITER_DEBUG")) {                                   \
      std::fprintf(stderr, "limiter: pm: " __VA_ARGS__);                  \
      std::fprintf(stderr, "\n");                                         \
    }                                                                     \
  } while (0)

namespace limiter::detail {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// How often the decode thread drains the hardware buffer when it has caught up.
constexpr auto kDecodePeriod = std::chrono::milliseconds(10);

std::string interval_fix(std::uint64_t interval_ns) {
  return "use a longer --sampling-interval (now " + std::to_string(interval_ns / 1000) +
         " us; one decode thread keeps up with ~10,000 samples a second, so 100 us or more)";
}

}  // namespace

std::string cupti_in_use() {
  // An app that loaded its own libcupti first (PyTorch) binds limiter to that copy.
  Dl_info info{};
  std::string text = dladdr(reinterpret_cast<void*>(&cuptiSubscribe), &info) && info.dli_fname ? info.dli_fname : "?";
  std::uint32_t version = 0;
  if (cuptiGetVersion(&version) == CUPTI_SUCCESS) text += " (CUPTI API " + std::to_string(version) + ")";
  // And the libnvperf_host it evaluates with (loaded by libcupti when the host API starts).
  dl_iterate_phdr(
      [](dl_phdr_info* library, std::size_t, void* out) {
        const std::string name = library->dlpi_name ? library->dlpi_name : "";
        if (name.find("libnvperf") != std::string::npos) *static_cast<std::string*>(out) += ", " + name;
        return 0;
      },
      &text);
  return text;
}

PmSampler::PmSampler(const PmSamplerOptions& options, int device_index, const DeviceDescription& device, SampleSink sink)
    : options_(options), sink_(std::move(sink)) {
  const auto t0 = Clock::now();
  CUpti_Profiler_Initialize_Params init{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  LIMITER_CUPTI_CHECK(cuptiProfilerInitialize(&init));

  CUpti_PmSampling_GetCounterAvailability_Params avail{CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE};
  avail.deviceIndex = static_cast<std::size_t>(device_index);
  LIMITER_CUPTI_CHECK(cuptiPmSamplingGetCounterAvailability(&avail));
  availability_.resize(avail.counterAvailabilityImageSize);
  avail.pCounterAvailabilityImage = availability_.data();
  LIMITER_CUPTI_CHECK(cuptiPmSamplingGetCounterAvailability(&avail));

  host_ = std::make_unique<ProfilerHost>(device.chip, availability_, /*pm_sampling=*/true);
  config_ = host_->config_image(options_.metrics);
  if (const std::size_t passes = ProfilerHost::pass_count(config_); passes != 1) {
    throw SystemError("the sampling metrics need " + std::to_string(passes) +
                      " passes and PM sampling takes one: sample fewer metrics (the LMEM counters need the exact mode)");
  }

  CUpti_PmSampling_Enable_Params enable{CUpti_PmSampling_Enable_Params_STRUCT_SIZE};
  enable.deviceIndex = static_cast<std::size_t>(device_index);
  LIMITER_CUPTI_CHECK(cuptiPmSamplingEnable(&enable));
  sampler_ = enable.pPmSamplingObject;
  try {
    for (const auto& metric : options_.metrics) metric_names_.push_back(metric.c_str());
    CUpti_PmSampling_GetCounterDataSize_Params size{CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE};
    size.pPmSamplingObject = sampler_;
    size.pMetricNames = metric_names_.data();
    size.numMetrics = metric_names_.size();
    size.maxSamples = options_.samples_per_image;
    LIMITER_CUPTI_CHECK(cuptiPmSamplingGetCounterDataSize(&size));
    image_.resize(size.counterDataSize);
    reinitialize_image();

    CUpti_PmSampling_SetConfig_Params set{CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE};
    set.pPmSamplingObject = sampler_;
    set.configSize = config_.size();
    set.pConfig = config_.data();
    set.hardwareBufferSize = options_.hardware_buffer_bytes;
    set.samplingInterval = options_.interval_ns;
    set.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
    set.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
    LIMITER_CUPTI_CHECK(cuptiPmSamplingSetConfig(&set));
    CUpti_PmSampling_Start_Params start{CUpti_PmSampling_Start_Params_STRUCT_SIZE};
    start.pPmSamplingObject = sampler_;
    LIMITER_CUPTI_CHECK(cuptiPmSamplingStart(&start));
  } catch (...) {
    CUpti_PmSampling_Disable_Params disable{CUpti_PmSampling_Disable_Params_STRUCT_SIZE};
    disable.pPmSamplingObject = sampler_;
    cuptiPmSamplingDisable(&disable);
    throw;
  }
  if (!options_.raw_dir.empty())
    write_pm_meta(options_.raw_dir, device, options_.metrics, options_.interval_ns, options_.command_line, config_);
  times_.set_up_s = seconds_since(t0);
  started_at_ = Clock::now();
  PM_TRACE("started: %zu metrics, interval %llu ns, image %zu bytes, %s", options_.metrics.size(),
           static_cast<unsigned long long>(options_.interval_ns), image_.size(), cupti_in_use().c_str());
  decoder_ = std::thread([this] { decode_loop(); });
}

PmSampler::~PmSampler() {
  try {
    stop();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "limiter: while stopping PM sampling: %s\n", e.what());
  }
}

void PmSampler::reinitialize_image() {
  CUpti_PmSampling_CounterDataImage_Initialize_Params init{CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE};
  init.pPmSamplingObject = sampler_;
  init.counterDataSize = image_.size();
  init.pCounterData = image_.data();
  LIMITER_CUPTI_CHECK(cuptiPmSamplingCounterDataImageInitialize(&init));
  consumed_ = 0;
  image_times_.clear();
}

void PmSampler::keep_image() {
  if (options_.raw_dir.empty() || image_times_.empty()) return;
  write_pm_image(options_.raw_dir, image_index_, image_, image_times_);
}

void PmSampler::next_image() {
  keep_image();
  ++image_index_;
  ++times_.images;
  reinitialize_image();
}

// An image that fills in the middle of a decode loses the records that did not fit: on an H100
// every full image left a hole of ~16 ms of samples (41 holes in 41 images, 2026-11-24). So a
// decode that might not fit starts a fresh image first, from the samples due since the last one.
bool PmSampler::image_might_fill() const {
  if (consumed_ == 0 || last_end_ns_ == 0 || options_.interval_ns == 0) return false;
  std::uint64_t now = 0;
  if (cuptiGetTimestamp(&now) != CUPTI_SUCCESS || now <= last_end_ns_) return false;
  const std::uint64_t due = (now - last_end_ns_) / options_.interval_ns;
  return consumed_ + due + due / 4 + 16 > options_.samples_per_image;
}

// The samples decoded into the image since the last call: times, host evaluation, the sink.
void PmSampler::evaluate_new_samples() {
  CUpti_PmSampling_GetCounterDataInfo_Params info{CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE};
  info.pCounterDataImage = image_.data();
  info.counterDataImageSize = image_.size();
  LIMITER_CUPTI_CHECK(cuptiPmSamplingGetCounterDataInfo(&info));
  if (info.numCompletedSamples <= consumed_) return;
  const auto t0 = Clock::now();
  std::vector<PmSample> batch;
  batch.reserve(info.numCompletedSamples - consumed_);
  for (std::size_t index = consumed_; index < info.numCompletedSamples; ++index) {
    CUpti_PmSampling_CounterData_GetSampleInfo_Params sample{CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE};
    sample.pPmSamplingObject = sampler_;
    sample.pCounterDataImage = image_.data();
    sample.counterDataImageSize = image_.size();
    sample.sampleIndex = index;
    LIMITER_CUPTI_CHECK(cuptiPmSamplingCounterDataGetSampleInfo(&sample));
    PmSample s;
    s.start_ns = sample.startTimestamp;
    s.end_ns = sample.endTimestamp;
    s.values = host_->evaluate(image_, index, options_.metrics);
    // A hole between two samples: samples the hardware dropped without flagging an overflow
    // (it was not seen on the H100, but then nothing would say so); counted as lost.
    // The unit is the samples' own length: with 15 metrics the H100 samples every 100 us when
    // asked for 50.
    const std::uint64_t length = std::max<std::uint64_t>(s.end_ns > s.start_ns ? s.end_ns - s.start_ns : 0,
                                                         options_.interval_ns);
    if (last_end_ns_ != 0 && length > 0 && s.start_ns > last_end_ns_ + length / 2) {
      const std::uint64_t missing = (s.start_ns - last_end_ns_ + length / 2) / length;
      lost_ += missing;
      ++gaps_;
    }
    sampled_ns_ += s.end_ns > s.start_ns ? s.end_ns - s.start_ns : 0;
    last_end_ns_ = std::max(last_end_ns_, s.end_ns);
    if (!options_.raw_dir.empty()) image_times_.emplace_back(s.start_ns, s.end_ns);
    batch.push_back(std::move(s));
  }
  consumed_ = info.numCompletedSamples;
  samples_ += batch.size();
  times_.evaluate_s += seconds_since(t0);
  if (sink_) sink_(std::move(batch));
}

bool PmSampler::decode_once() {
  for (;;) {
    if (image_might_fill()) next_image();
    CUpti_PmSampling_DecodeData_Params decode{CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE};
    decode.pPmSamplingObject = sampler_;
    decode.pCounterDataImage = image_.data();
    decode.counterDataImageSize = image_.size();
    const auto t0 = Clock::now();
    const CUptiResult status = cuptiPmSamplingDecodeData(&decode);
    times_.decode_s += seconds_since(t0);
    ++times_.decodes;
    if (!decode.overflow && status != CUPTI_SUCCESS && early_failure(status)) {
      ++times_.early_retries;
      PM_TRACE("decode before the first records: %s; trying again", cupti_error_text(status).c_str());
      return true;
    }
    if (decode.overflow || status != CUPTI_SUCCESS) {
      evaluate_new_samples();  // what was decoded before the overflow still counts
      if (decode.overflow) {
        fail("the GPU's PM-sampling buffer overflowed (the host decoded more slowly than the GPU sampled); "
             "samples after " + std::to_string(samples_.load()) + " are lost: " + interval_fix(options_.interval_ns));
      } else {
        fail("PM-sampling decode failed (" + cupti_error_text(status) + "); samples after " +
             std::to_string(samples_.load()) + " are lost");
      }
      return false;
    }
    evaluate_new_samples();
    if (decode.decodeStopReason != CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL) return true;
    next_image();
    // A full image is decoded again at once: the decoder is behind the GPU (an interval shorter
    // than decode + evaluate per sample, ~90 us on an H100). While the sampler runs, that backlog
    // never ends, so once stop is asked for the hardware is stopped first and the rest decoded
    // after it (stop()); 50 us hung the process's exit here before (2026-11-24, H100).
    if (stop_requested_ && !hardware_stopped_) return true;
  }
}

// A decode right after Start failed with CUPTI_ERROR_UNKNOWN on the H100 (the hardware had
// written no record yet); nothing is lost by trying again while no sample has arrived.
bool PmSampler::early_failure(int status) const {
  constexpr auto kFirstRecordsWithin = std::chrono::seconds(1);
  return status == CUPTI_ERROR_UNKNOWN && samples_ == 0 && Clock::now() - started_at_ < kFirstRecordsWithin;
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
  // Called on the decode thread itself (a fatal signal there ends the process): nothing to wait for.
  if (decoder_.joinable() && decoder_.get_id() == std::this_thread::get_id()) return;
  if (decoder_.joinable()) decoder_.join();
  std::lock_guard lock(mutex_);
  if (stopped_ || !sampler_) return;
  stopped_ = true;
  PM_TRACE("stop after %llu samples%s", static_cast<unsigned long long>(samples_.load()), failed_ ? " (failed)" : "");
  cuptiGetTimestamp(&stopped_at_ns_);
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
      if (samples_ == 0 && times_.early_retries > 0)
        fail("no PM sample could be decoded (every decode failed with CUPTI_ERROR_UNKNOWN, " +
             std::to_string(times_.early_retries) + " tries)");
    } catch (const std::exception& e) {
      fail(std::string("the last PM samples could not be decoded: ") + e.what());
    }
  }
  CUpti_PmSampling_Stop_Params stop{CUpti_PmSampling_Stop_Params_STRUCT_SIZE};
  stop.pPmSamplingObject = sampler_;
  const CUptiResult stop_status = cuptiPmSamplingStop(&stop);
  if (!failed_ && stop_status == CUPTI_SUCCESS) {
    hardware_stopped_ = true;
    const std::uint64_t before = samples_;
    try {
      decode_once();  // the samples after the drain: all of a backlog, image by image
    } catch (const std::exception& e) {
      fail(std::string("the last PM samples could not be decoded: ") + e.what());
    }
    PM_TRACE("%llu samples decoded after the sampler stopped", static_cast<unsigned long long>(samples_ - before));
  }
  PM_TRACE("stopped (%s), last decode done", cupti_error_text(stop_status).c_str());
  keep_image();
  if (failed_ && stopped_at_ns_ > last_end_ns_ && options_.interval_ns > 0)
    lost_ += (stopped_at_ns_ - last_end_ns_) / options_.interval_ns;  // the samples that never arrived
  PM_TRACE("samples last %.1f us on average; %llu gaps between them, %llu samples missing",
           samples_ ? static_cast<double>(sampled_ns_) / 1e3 / static_cast<double>(samples_.load()) : 0.0,
           static_cast<unsigned long long>(gaps_), static_cast<unsigned long long>(lost_.load()));
  // After a failed decode, Disable was seen to hang at process exit (H100, with the config image
  // already freed): not disabled, so CUPTI may still read the images, which therefore never go.
  if (failed_) {
    static auto* kept = new std::vector<std::vector<std::uint8_t>>;
    kept->push_back(std::move(config_));  // a moved vector keeps its buffer
    kept->push_back(std::move(availability_));
    new std::vector<const char*>(std::move(metric_names_));      // and the names, whose strings
    new std::vector<std::string>(std::move(options_.metrics));  // keep their buffers when moved whole
    return;
  }
  CUpti_PmSampling_Disable_Params disable{CUpti_PmSampling_Disable_Params_STRUCT_SIZE};
  disable.pPmSamplingObject = sampler_;
  cuptiPmSamplingDisable(&disable);
  PM_TRACE("disabled");
}

std::string PmSampler::error() const {
  std::lock_guard lock(error_mutex_);
  return error_;
}

PmSamplerTimes PmSampler::times() const {
  std::lock_guard lock(mutex_);
  return times_;
}

}  // namespace limiter::detail
