#pragma once
// The seam between the PM-sampling session and CUPTI: every PM Sampling, Profiler Host,
// Activity and driver call the sampling mode makes, in plain values (as RangeBackend is for the
// exact mode). cupti_pm_sampling_backend.cpp makes the real calls; unit tests give a fake
// (tests/unit/fake_pm_sampling_backend.hpp) and so drive the sampler's decode and evaluate
// threads, the session's roles and the attribution of samples to kernels without a GPU.
#include <cuda.h>
#include <cupti_result.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "limiter/record.hpp"
#include "limiter/sampling.hpp"

namespace limiter::detail {

// The host side of PM sampling (the Profiler Host API in its PM-sampling mode): the config
// image of the metrics, its passes, and the evaluation of one sample of a counter-data image.
class PmSampleHost {
 public:
  virtual ~PmSampleHost() = default;
  virtual std::vector<std::uint8_t> config_image(const std::vector<std::string>& metrics) = 0;
  virtual std::size_t pass_count(std::vector<std::uint8_t>& config) = 0;
  virtual std::vector<double> evaluate(const std::vector<std::uint8_t>& image, std::size_t sample,
                                       const std::vector<std::string>& metrics) = 0;
};

// Each kernel's start and end on the GPU (the clock PM samples are stamped with), handed to
// the sink as CUPTI delivers them: from its buffer thread, or within flush().
class KernelTimestamps {
 public:
  using KernelSink = std::function<void(KernelSpan&&)>;
  virtual ~KernelTimestamps() = default;  // stops the records (after a final flush)
  // FORCED (at the end only) also hands over records of kernels still running.
  virtual void flush(bool forced) = 0;
  virtual std::uint64_t kernels() const = 0;
  virtual std::uint64_t dropped() const = 0;  // records CUPTI dropped
};

// How a decode ended (cuptiPmSamplingDecodeData).
struct PmDecode {
  CUptiResult status = CUPTI_SUCCESS;
  bool overflow = false;    // the hardware buffer overflowed: samples are lost for good
  bool image_full = false;  // the counter-data image is full: more records wait
};

// A sample's place in time.
struct PmSampleTimes {
  std::uint64_t start_ns = 0, end_ns = 0;
};

// A PM sampling object (CUPTI's CUpti_PmSampling_Object), opaque to the sampler.
struct PmSamplingObject;

// Failures throw CuptiError or SystemError (cupti_check.hpp) naming the call, unless the
// call says otherwise.
class PmSamplingBackend {
 public:
  virtual ~PmSamplingBackend() = default;

  // The evaluation library loaded now, so that it is torn down after the exit handlers.
  virtual void preload_evaluator() = 0;
  // The libcupti (and libnvperf_host) in use, for diagnostics.
  virtual std::string library_text() = 0;
  // The GPU clock of samples and kernel records; 0 when it cannot be read.
  virtual std::uint64_t timestamp() = 0;

  // The device of a launch's context (the profiler initialised first), and its description.
  virtual int device_of(CUcontext context) = 0;
  virtual DeviceDescription describe(int device) = 0;
  // The host side: the device's counter availability (the profiler initialised first) and the
  // host object built from it and the chip.
  virtual std::vector<std::uint8_t> counter_availability(int device) = 0;
  virtual std::shared_ptr<PmSampleHost> sample_host(const std::string& chip,
                                                    const std::vector<std::uint8_t>& availability) = 0;

  virtual PmSamplingObject* enable(int device) = 0;
  virtual std::size_t counter_data_size(PmSamplingObject* object, const std::vector<const char*>& metrics,
                                        std::size_t max_samples) = 0;
  virtual void initialize_image(PmSamplingObject* object, std::vector<std::uint8_t>& image) = 0;
  virtual void set_config(PmSamplingObject* object, const std::vector<std::uint8_t>& config,
                          std::size_t hardware_buffer_bytes, std::uint64_t interval_ns) = 0;
  virtual void start(PmSamplingObject* object) = 0;
  // Moves the hardware's records into IMAGE; never throws (the status says how it went).
  virtual PmDecode decode(PmSamplingObject* object, std::vector<std::uint8_t>& image) noexcept = 0;
  virtual std::size_t completed_samples(const std::vector<std::uint8_t>& image) = 0;
  virtual PmSampleTimes sample_times(PmSamplingObject* object, const std::vector<std::uint8_t>& image,
                                     std::size_t sample) = 0;
  virtual CUptiResult stop(PmSamplingObject* object) noexcept = 0;
  virtual void disable(PmSamplingObject* object) noexcept = 0;

  // Kernel records from now on, to SINK. One at a time per process (the Activity API's
  // callbacks are process-wide); throws SystemError otherwise.
  virtual std::unique_ptr<KernelTimestamps> kernel_timestamps(KernelTimestamps::KernelSink sink) = 0;
};

// The real one: CUPTI and the driver. One for the process, as CUPTI's state is; never destroyed.
PmSamplingBackend& cupti_pm_sampling_backend();

}  // namespace limiter::detail
