// The PM-sampling session's calls made for real: the PM Sampling API, the Profiler Host API,
// the Activity API's kernel records and the driver (pm_sampling_backend.hpp).
#include <dlfcn.h>
#include <link.h>

#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <cstdio>

#include "collect/pm_sampling/activity_timestamps.hpp"
#include "collect/cupti/cupti_check.hpp"
#include "collect/cupti/device_description.hpp"
#include "collect/cupti/driver_api.hpp"
#include "collect/pm_sampling/pm_sampling_backend.hpp"
#include "collect/cupti/profiler_host.hpp"

namespace limiter::detail {

namespace {

CUpti_PmSampling_Object* cupti_object(PmSamplingObject* object) {
  return reinterpret_cast<CUpti_PmSampling_Object*>(object);
}

void initialize_profiler() {
  CUpti_Profiler_Initialize_Params init{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  LIMITER_CUPTI_CHECK(cuptiProfilerInitialize(&init));
}

// The libcupti this process uses (its path and API version): an app that loaded its own
// libcupti first (PyTorch) binds limiter to that copy.
std::string cupti_in_use() {
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

class ProfilerSampleHost final : public PmSampleHost {
 public:
  ProfilerSampleHost(const std::string& chip, const std::vector<std::uint8_t>& availability)
      : host_(chip, availability, /*pm_sampling=*/true) {}
  std::vector<std::uint8_t> config_image(const std::vector<std::string>& metrics) override {
    return host_.config_image(metrics);
  }
  std::size_t pass_count(std::vector<std::uint8_t>& config) override { return ProfilerHost::pass_count(config); }
  std::vector<double> evaluate(const std::vector<std::uint8_t>& image, std::size_t sample,
                               const std::vector<std::string>& metrics) override {
    return host_.evaluate(image, sample, metrics);
  }

 private:
  ProfilerHost host_;
};

class CuptiPmSamplingBackend final : public PmSamplingBackend {
 public:
  // libcupti loads libnvperf_host (sample evaluation) at its first use, at the first launch:
  // later than the injection's exit handler, so at exit its static destructors ran first and
  // the last decode used a torn-down library (heap corruption, hangs on the H100). Loaded now,
  // it is torn down after the handler; libcupti's own load then finds this copy.
  void preload_evaluator() override {
    if (!dlopen("libnvperf_host.so", RTLD_NOW | RTLD_LOCAL))
      std::fprintf(stderr, "limiter: libnvperf_host.so not loaded ahead (%s); CUPTI loads it later\n", dlerror());
  }
  std::string library_text() override { return cupti_in_use(); }
  std::uint64_t timestamp() override {
    std::uint64_t now = 0;
    return cuptiGetTimestamp(&now) == CUPTI_SUCCESS ? now : 0;
  }

  // The profiler first, then the chip name (the order CUPTI's PM-sampling sample and the probe use).
  int device_of(CUcontext context) override {
    initialize_profiler();
    const DriverApi& cu = driver_api();
    CUdevice device = 0;
    if (context) cu.ctx_push_current(context);
    const CUresult got = cu.ctx_get_device(&device);
    if (context) cu.ctx_pop_current(&context);
    if (got != CUDA_SUCCESS) throw SystemError("no device for the first launch's context: " + driver_error_name(got));
    return static_cast<int>(device);
  }
  DeviceDescription describe(int device) override { return describe_device(static_cast<CUdevice>(device)); }

  std::vector<std::uint8_t> counter_availability(int device) override {
    initialize_profiler();
    CUpti_PmSampling_GetCounterAvailability_Params avail{CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE};
    avail.deviceIndex = static_cast<std::size_t>(device);
    LIMITER_CUPTI_CHECK(cuptiPmSamplingGetCounterAvailability(&avail));
    std::vector<std::uint8_t> availability(avail.counterAvailabilityImageSize);
    avail.pCounterAvailabilityImage = availability.data();
    LIMITER_CUPTI_CHECK(cuptiPmSamplingGetCounterAvailability(&avail));
    return availability;
  }
  std::shared_ptr<PmSampleHost> sample_host(const std::string& chip,
                                            const std::vector<std::uint8_t>& availability) override {
    return std::make_shared<ProfilerSampleHost>(chip, availability);
  }

  PmSamplingObject* enable(int device) override {
    CUpti_PmSampling_Enable_Params params{CUpti_PmSampling_Enable_Params_STRUCT_SIZE};
    params.deviceIndex = static_cast<std::size_t>(device);
    LIMITER_CUPTI_CHECK(cuptiPmSamplingEnable(&params));
    return reinterpret_cast<PmSamplingObject*>(params.pPmSamplingObject);
  }
  std::size_t counter_data_size(PmSamplingObject* object, const std::vector<const char*>& metrics,
                                std::size_t max_samples) override {
    CUpti_PmSampling_GetCounterDataSize_Params size{CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE};
    size.pPmSamplingObject = cupti_object(object);
    size.pMetricNames = const_cast<const char**>(metrics.data());
    size.numMetrics = metrics.size();
    size.maxSamples = static_cast<std::uint32_t>(max_samples);
    LIMITER_CUPTI_CHECK(cuptiPmSamplingGetCounterDataSize(&size));
    return size.counterDataSize;
  }
  void initialize_image(PmSamplingObject* object, std::vector<std::uint8_t>& image) override {
    CUpti_PmSampling_CounterDataImage_Initialize_Params init{
        CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    init.pPmSamplingObject = cupti_object(object);
    init.counterDataSize = image.size();
    init.pCounterData = image.data();
    LIMITER_CUPTI_CHECK(cuptiPmSamplingCounterDataImageInitialize(&init));
  }
  void set_config(PmSamplingObject* object, const std::vector<std::uint8_t>& config, std::size_t hardware_buffer_bytes,
                  std::uint64_t interval_ns) override {
    CUpti_PmSampling_SetConfig_Params set{CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE};
    set.pPmSamplingObject = cupti_object(object);
    set.configSize = config.size();
    set.pConfig = config.data();
    set.hardwareBufferSize = hardware_buffer_bytes;
    set.samplingInterval = interval_ns;
    set.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
    set.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
    LIMITER_CUPTI_CHECK(cuptiPmSamplingSetConfig(&set));
  }
  void start(PmSamplingObject* object) override {
    CUpti_PmSampling_Start_Params start{CUpti_PmSampling_Start_Params_STRUCT_SIZE};
    start.pPmSamplingObject = cupti_object(object);
    LIMITER_CUPTI_CHECK(cuptiPmSamplingStart(&start));
  }
  PmDecode decode(PmSamplingObject* object, std::vector<std::uint8_t>& image) noexcept override {
    CUpti_PmSampling_DecodeData_Params decode{CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE};
    decode.pPmSamplingObject = cupti_object(object);
    decode.pCounterDataImage = image.data();
    decode.counterDataImageSize = image.size();
    PmDecode result;
    result.status = cuptiPmSamplingDecodeData(&decode);
    result.overflow = decode.overflow != 0;
    result.image_full = decode.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL;
    return result;
  }
  std::size_t completed_samples(const std::vector<std::uint8_t>& image) override {
    CUpti_PmSampling_GetCounterDataInfo_Params info{CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE};
    info.pCounterDataImage = image.data();
    info.counterDataImageSize = image.size();
    LIMITER_CUPTI_CHECK(cuptiPmSamplingGetCounterDataInfo(&info));
    return info.numCompletedSamples;
  }
  PmSampleTimes sample_times(PmSamplingObject* object, const std::vector<std::uint8_t>& image,
                             std::size_t sample) override {
    CUpti_PmSampling_CounterData_GetSampleInfo_Params params{
        CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE};
    params.pPmSamplingObject = cupti_object(object);
    params.pCounterDataImage = const_cast<std::uint8_t*>(image.data());
    params.counterDataImageSize = image.size();
    params.sampleIndex = sample;
    LIMITER_CUPTI_CHECK(cuptiPmSamplingCounterDataGetSampleInfo(&params));
    return {params.startTimestamp, params.endTimestamp};
  }
  CUptiResult stop(PmSamplingObject* object) noexcept override {
    CUpti_PmSampling_Stop_Params stop{CUpti_PmSampling_Stop_Params_STRUCT_SIZE};
    stop.pPmSamplingObject = cupti_object(object);
    return cuptiPmSamplingStop(&stop);
  }
  void disable(PmSamplingObject* object) noexcept override {
    CUpti_PmSampling_Disable_Params params{CUpti_PmSampling_Disable_Params_STRUCT_SIZE};
    params.pPmSamplingObject = cupti_object(object);
    cuptiPmSamplingDisable(&params);
  }

  std::unique_ptr<KernelTimestamps> kernel_timestamps(KernelTimestamps::KernelSink sink) override {
    return std::make_unique<ActivityTimestamps>(cupti_activity_backend(), std::move(sink));
  }
};

}  // namespace

PmSamplingBackend& cupti_pm_sampling_backend() {
  static auto* backend = new CuptiPmSamplingBackend;  // never destroyed: exit handlers still sample
  return *backend;
}

}  // namespace limiter::detail
