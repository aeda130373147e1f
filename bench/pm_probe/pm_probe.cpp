// pm_probe: a standalone injection library (CUDA_INJECTION64_PATH) that learns CUPTI's PM
// Sampling API on a real GPU before limiter's sampling mode uses it: which counters one pass
// holds, how fast samples decode and evaluate, when the hardware buffer overflows, and how the
// samples' timestamps line up with the Activity API's kernel records.
//
//   PM_OUT=dir PM_INTERVAL_NS=10000 PM_DECODE_MS=10 PM_HWBUF_MB=512 PM_SAVE=1
//   CUDA_INJECTION64_PATH=./libpm_probe.so python3 app.py
//
// Writes dir/samples.bin (per sample: start, end, then one double per metric), dir/kernels.tsv
// (start end stream correlation grid block regs name), dir/image_<n>.bin and dir/config.bin
// when PM_SAVE=1, and a summary on stderr.
#include <cuda.h>
#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

#define CHECK(call)                                                                     \
  do {                                                                                  \
    CUptiResult s_ = (call);                                                            \
    if (s_ != CUPTI_SUCCESS) {                                                          \
      const char* e_ = nullptr;                                                         \
      cuptiGetResultString(s_, &e_);                                                    \
      std::fprintf(stderr, "pm_probe: %s failed: %s (line %d)\n", #call, e_, __LINE__); \
      return false;                                                                     \
    }                                                                                   \
  } while (0)

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string env(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

struct Probe {
  std::string out;
  std::vector<std::string> metrics;
  std::vector<const char*> names;
  uint64_t interval_ns = 10000;
  size_t hw_buffer = 512u << 20;
  int decode_ms = 10;
  bool save = false, evaluate = true;
  uint32_t max_samples = 1000;
  CUpti_Profiler_Host_Object* host = nullptr;
  CUpti_PmSampling_Object* sampler = nullptr;
  std::vector<uint8_t> config, image, availability;
  size_t recoveries = 0, saved = 0, save_from = 1;
  bool failed = false;
  size_t consumed = 0, images = 0, samples = 0, decodes = 0, overflows = 0, full = 0;
  double decode_s = 0, evaluate_s = 0, enable_s = 0;
  uint64_t first_sample = 0, last_sample = 0, cpu_at_start = 0;
  std::mutex mutex;
  std::thread decoder;
  std::atomic<bool> stop{false}, started{false};
  FILE* sample_file = nullptr;
  FILE* kernel_file = nullptr;
  size_t kernels = 0;
  uint64_t first_kernel = 0, last_kernel_end = 0;
  std::vector<double> values;
};

Probe* probe = nullptr;

bool evaluate_new_samples() {
  CUpti_PmSampling_GetCounterDataInfo_Params info{CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE};
  info.pCounterDataImage = probe->image.data();
  info.counterDataImageSize = probe->image.size();
  CHECK(cuptiPmSamplingGetCounterDataInfo(&info));
  const auto t = Clock::now();
  for (size_t i = probe->consumed; i < info.numCompletedSamples; ++i) {
    CUpti_PmSampling_CounterData_GetSampleInfo_Params sample{
        CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE};
    sample.pPmSamplingObject = probe->sampler;
    sample.pCounterDataImage = probe->image.data();
    sample.counterDataImageSize = probe->image.size();
    sample.sampleIndex = i;
    CHECK(cuptiPmSamplingCounterDataGetSampleInfo(&sample));
    if (!probe->first_sample) probe->first_sample = sample.startTimestamp;
    probe->last_sample = sample.endTimestamp;
    if (probe->evaluate) {
      CUpti_Profiler_Host_EvaluateToGpuValues_Params eval{CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
      eval.pHostObject = probe->host;
      eval.pCounterDataImage = probe->image.data();
      eval.counterDataImageSize = probe->image.size();
      eval.rangeIndex = i;
      eval.ppMetricNames = probe->names.data();
      eval.numMetrics = probe->names.size();
      eval.pMetricValues = probe->values.data();
      CHECK(cuptiProfilerHostEvaluateToGpuValues(&eval));
      uint64_t ts[2] = {sample.startTimestamp, sample.endTimestamp};
      std::fwrite(ts, sizeof ts, 1, probe->sample_file);
      std::fwrite(probe->values.data(), sizeof(double), probe->values.size(), probe->sample_file);
    }
    ++probe->samples;
  }
  probe->consumed = info.numCompletedSamples;
  probe->evaluate_s += since(t);
  return true;
}

bool reinitialize() {
  CUpti_PmSampling_CounterDataImage_Initialize_Params init{
      CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE};
  init.pPmSamplingObject = probe->sampler;
  init.counterDataSize = probe->image.size();
  init.pCounterData = probe->image.data();
  CHECK(cuptiPmSamplingCounterDataImageInitialize(&init));
  probe->consumed = 0;
  return true;
}

void save_image() {
  if (!probe->save || probe->images < probe->save_from || probe->saved >= 1) return;
  ++probe->saved;
  const std::string path = probe->out + "/image_" + std::to_string(probe->images) + ".bin";
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(probe->image.data(), 1, probe->image.size(), f);
    std::fclose(f);
  }
}

bool decode_once() {
  for (;;) {
    CUpti_PmSampling_DecodeData_Params decode{CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE};
    decode.pPmSamplingObject = probe->sampler;
    decode.pCounterDataImage = probe->image.data();
    decode.counterDataImageSize = probe->image.size();
    const auto t = Clock::now();
    const CUptiResult status = cuptiPmSamplingDecodeData(&decode);
    probe->decode_s += since(t);
    ++probe->decodes;
    if (decode.overflow) ++probe->overflows;
    if (status != CUPTI_SUCCESS) {
      const char* e = nullptr;
      cuptiGetResultString(status, &e);
      std::fprintf(stderr, "pm_probe: decode failed: %s (overflow %d)\n", e, decode.overflow);
      return false;
    }
    if (!evaluate_new_samples()) return false;
    if (decode.decodeStopReason != CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL) return true;
    ++probe->full;
    save_image();
    ++probe->images;
    if (!reinitialize()) return false;
  }
}

void print_stats(const char* when) {
  std::fprintf(stderr,
               "pm_probe[%s]: interval %llu ns, hw buffer %zu MB, decode every %d ms, image %u samples: %zu samples, "
               "%zu decodes (%.3f s, %.1f us each, %.2f us per sample), evaluate %.3f s (%.2f us per sample), %zu "
               "image fills, overflow %zu, recoveries %zu, enable+start %.3f s, kernels %zu\n",
               when, (unsigned long long)probe->interval_ns, probe->hw_buffer >> 20, probe->decode_ms,
               probe->max_samples, probe->samples, probe->decodes, probe->decode_s,
               probe->decodes ? probe->decode_s / probe->decodes * 1e6 : 0.0,
               probe->samples ? probe->decode_s / probe->samples * 1e6 : 0.0, probe->evaluate_s,
               probe->samples ? probe->evaluate_s / probe->samples * 1e6 : 0.0, probe->full, probe->overflows,
               probe->recoveries, probe->enable_s, probe->kernels);
}

// After an overflow: Stop, re-initialise the image, Start again (does the sampler recover?).
bool recover() {
  CUpti_PmSampling_Stop_Params stop{CUpti_PmSampling_Stop_Params_STRUCT_SIZE};
  stop.pPmSamplingObject = probe->sampler;
  CHECK(cuptiPmSamplingStop(&stop));
  if (!reinitialize()) return false;
  CUpti_PmSampling_Start_Params start{CUpti_PmSampling_Start_Params_STRUCT_SIZE};
  start.pPmSamplingObject = probe->sampler;
  CHECK(cuptiPmSamplingStart(&start));
  ++probe->recoveries;
  return true;
}

void decode_loop() {
  auto last_print = Clock::now();
  while (!probe->stop) {
    std::this_thread::sleep_for(std::chrono::milliseconds(probe->decode_ms));
    std::lock_guard lock(probe->mutex);
    if (probe->stop) break;
    if (!decode_once()) {
      print_stats("overflow");
      if (probe->recoveries >= 3 || !recover()) {
        probe->failed = true;
        break;
      }
    }
    if (since(last_print) > 1.0) {
      print_stats("periodic");
      last_print = Clock::now();
    }
  }
}

bool start_sampling() {
  const auto t0 = Clock::now();
  CUpti_Profiler_Initialize_Params init{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  CHECK(cuptiProfilerInitialize(&init));
  CUpti_Device_GetChipName_Params chip{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  chip.deviceIndex = 0;
  CHECK(cuptiDeviceGetChipName(&chip));
  CUpti_PmSampling_GetCounterAvailability_Params avail{CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE};
  avail.deviceIndex = 0;
  CHECK(cuptiPmSamplingGetCounterAvailability(&avail));
  probe->availability.resize(avail.counterAvailabilityImageSize);
  avail.pCounterAvailabilityImage = probe->availability.data();
  CHECK(cuptiPmSamplingGetCounterAvailability(&avail));

  CUpti_Profiler_Host_Initialize_Params hi{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
  hi.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
  hi.pChipName = chip.pChipName;
  hi.pCounterAvailabilityImage = probe->availability.data();
  CHECK(cuptiProfilerHostInitialize(&hi));
  probe->host = hi.pHostObject;
  // Which single counters this device accepts for PM sampling (the probe list), one by one.
  if (std::getenv("PM_ACCEPTS"))
    for (const char* candidate : {"smsp__inst_issued.sum",
                                  "sm__cycles_elapsed.avg",
                                  "sm__cycles_active.avg",
                                  "dram__bytes_read.sum",
                                  "dram__bytes_write.sum",
                                  "lts__t_sectors.sum",
                                  "lts__t_sectors_srcunit_tex.sum",
                                  "lts__t_sectors_srcunit_tex_op_read.sum",
                                  "lts__t_sectors_srcunit_tex_op_write.sum",
                                  "lts__t_sectors_op_read.sum",
                                  "lts__t_sectors_op_write.sum",
                                  "lts__cycles_elapsed.avg",
                                  "sm__pipe_tensor_cycles_active.sum",
                                  "sm__warps_active.sum",
                                  "l1tex__data_pipe_lsu_wavefronts.sum",
                                  "l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_miss.sum",
                                  "l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_miss.sum",
                                  "l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_hit.sum",
                                  "smsp__inst_executed_op_local_ld.sum",
                                  "gpu__time_duration.sum",
                                  "dram__cycles_elapsed.avg",
                                  "gpc__cycles_elapsed.max",
                                  "sys__cycles_elapsed.avg"}) {
      CUpti_Profiler_Host_Initialize_Params h{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
      h.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
      h.pChipName = chip.pChipName;
      h.pCounterAvailabilityImage = probe->availability.data();
      if (cuptiProfilerHostInitialize(&h) != CUPTI_SUCCESS) continue;
      const char* name = candidate;
      CUpti_Profiler_Host_ConfigAddMetrics_Params add{CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
      add.pHostObject = h.pHostObject;
      add.ppMetricNames = &name;
      add.numMetrics = 1;
      std::fprintf(stderr, "pm_probe: accepts %s: %s\n", name,
                   cuptiProfilerHostConfigAddMetrics(&add) == CUPTI_SUCCESS ? "yes" : "NO");
      CUpti_Profiler_Host_Deinitialize_Params d{CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
      d.pHostObject = h.pHostObject;
      cuptiProfilerHostDeinitialize(&d);
    }

  CUpti_Profiler_Host_ConfigAddMetrics_Params add{CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
  add.pHostObject = probe->host;
  add.ppMetricNames = probe->names.data();
  add.numMetrics = probe->names.size();
  CHECK(cuptiProfilerHostConfigAddMetrics(&add));
  CUpti_Profiler_Host_GetConfigImageSize_Params size{CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
  size.pHostObject = probe->host;
  CHECK(cuptiProfilerHostGetConfigImageSize(&size));
  probe->config.resize(size.configImageSize);
  CUpti_Profiler_Host_GetConfigImage_Params image{CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
  image.pHostObject = probe->host;
  image.configImageSize = probe->config.size();
  image.pConfigImage = probe->config.data();
  CHECK(cuptiProfilerHostGetConfigImage(&image));
  CUpti_Profiler_Host_GetNumOfPasses_Params passes{CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
  passes.configImageSize = probe->config.size();
  passes.pConfigImage = probe->config.data();
  CHECK(cuptiProfilerHostGetNumOfPasses(&passes));
  std::fprintf(stderr, "pm_probe: chip %s, %zu metrics, %zu passes\n", chip.pChipName, probe->names.size(),
               passes.numOfPasses);
  if (probe->save) {
    if (FILE* f = std::fopen((probe->out + "/config.bin").c_str(), "wb")) {
      std::fwrite(probe->config.data(), 1, probe->config.size(), f);
      std::fclose(f);
    }
    if (FILE* f = std::fopen((probe->out + "/availability.bin").c_str(), "wb")) {
      std::fwrite(probe->availability.data(), 1, probe->availability.size(), f);
      std::fclose(f);
    }
  }

  CUpti_PmSampling_Enable_Params enable{CUpti_PmSampling_Enable_Params_STRUCT_SIZE};
  enable.deviceIndex = 0;
  CHECK(cuptiPmSamplingEnable(&enable));
  probe->sampler = enable.pPmSamplingObject;
  CUpti_PmSampling_GetCounterDataSize_Params cds{CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE};
  cds.pPmSamplingObject = probe->sampler;
  cds.pMetricNames = probe->names.data();
  cds.numMetrics = probe->names.size();
  cds.maxSamples = probe->max_samples;
  CHECK(cuptiPmSamplingGetCounterDataSize(&cds));
  probe->image.resize(cds.counterDataSize);
  std::fprintf(stderr, "pm_probe: counter-data image %zu bytes for %u samples (%.1f bytes per sample)\n",
               cds.counterDataSize, probe->max_samples, double(cds.counterDataSize) / probe->max_samples);
  if (!reinitialize()) return false;
  CUpti_PmSampling_SetConfig_Params set{CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE};
  set.pPmSamplingObject = probe->sampler;
  set.configSize = probe->config.size();
  set.pConfig = probe->config.data();
  set.hardwareBufferSize = probe->hw_buffer;
  set.samplingInterval = probe->interval_ns;
  set.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
  set.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
  CHECK(cuptiPmSamplingSetConfig(&set));
  CUpti_PmSampling_Start_Params start{CUpti_PmSampling_Start_Params_STRUCT_SIZE};
  start.pPmSamplingObject = probe->sampler;
  CHECK(cuptiPmSamplingStart(&start));
  cuptiGetTimestamp(&probe->cpu_at_start);
  probe->enable_s = since(t0);
  probe->started = true;
  probe->decoder = std::thread(decode_loop);
  return true;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = 8u << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) continue;
    const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
    if (!probe->first_kernel) probe->first_kernel = k->start;
    if (k->end > probe->last_kernel_end) probe->last_kernel_end = k->end;
    ++probe->kernels;
    std::fprintf(probe->kernel_file, "%llu\t%llu\t%u\t%u\t%d,%d,%d\t%d,%d,%d\t%u\t%d\t%u\t%s\n",
                 (unsigned long long)k->start, (unsigned long long)k->end, k->streamId, k->correlationId, k->gridX,
                 k->gridY, k->gridZ, k->blockX, k->blockY, k->blockZ, (unsigned)k->registersPerThread,
                 k->staticSharedMemory + k->dynamicSharedMemory, k->localMemoryPerThread, k->name);
  }
  std::free(buffer);
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void*) {
  const bool launch =
      domain == CUPTI_CB_DOMAIN_DRIVER_API &&
      (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel || cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz ||
       cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx || cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz);
  if (launch && !probe->started) {
    std::lock_guard lock(probe->mutex);
    if (!probe->started && !start_sampling()) std::fprintf(stderr, "pm_probe: sampling not started\n");
  }
}

void at_exit() {
  if (!probe) return;
  cuptiActivityFlushAll(1);
  if (probe->started) {
    probe->stop = true;
    if (probe->decoder.joinable()) probe->decoder.join();
    std::lock_guard lock(probe->mutex);
    CUpti_PmSampling_Stop_Params stop{CUpti_PmSampling_Stop_Params_STRUCT_SIZE};
    stop.pPmSamplingObject = probe->sampler;
    cuptiPmSamplingStop(&stop);
    if (!probe->failed) decode_once();
    CUpti_PmSampling_Disable_Params disable{CUpti_PmSampling_Disable_Params_STRUCT_SIZE};
    disable.pPmSamplingObject = probe->sampler;
    cuptiPmSamplingDisable(&disable);
  }
  uint64_t cpu_now = 0;
  cuptiGetTimestamp(&cpu_now);
  print_stats("exit");
  std::fclose(probe->sample_file);
  std::fclose(probe->kernel_file);
  std::fprintf(stderr,
               "pm_probe: interval %llu ns, hw buffer %zu MB, decode every %d ms: %zu samples, %zu decodes "
               "(%.3f s, %.1f us each), evaluate %.3f s (%.2f us per sample), %zu image fills, overflow seen %zu "
               "times, enable+start %.3f s\n"
               "pm_probe: %zu kernels; first sample start %llu, first kernel start %llu, cpu ts at start %llu, "
               "at exit %llu, last sample end %llu, last kernel end %llu\n",
               (unsigned long long)probe->interval_ns, probe->hw_buffer >> 20, probe->decode_ms, probe->samples,
               probe->decodes, probe->decode_s, probe->decodes ? probe->decode_s / probe->decodes * 1e6 : 0.0,
               probe->evaluate_s, probe->samples ? probe->evaluate_s / probe->samples * 1e6 : 0.0, probe->full,
               probe->overflows, probe->enable_s, probe->kernels, (unsigned long long)probe->first_sample,
               (unsigned long long)probe->first_kernel, (unsigned long long)probe->cpu_at_start,
               (unsigned long long)cpu_now, (unsigned long long)probe->last_sample,
               (unsigned long long)probe->last_kernel_end);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  if (probe) return 1;
  probe = new Probe;
  probe->out = env("PM_OUT", ".");
  probe->interval_ns = std::stoull(env("PM_INTERVAL_NS", "10000"));
  probe->decode_ms = std::stoi(env("PM_DECODE_MS", "10"));
  probe->hw_buffer = std::stoull(env("PM_HWBUF_MB", "512")) << 20;
  probe->max_samples = static_cast<uint32_t>(std::stoul(env("PM_MAX_SAMPLES", "1000")));
  probe->save = env("PM_SAVE", "0") == "1";
  probe->save_from = std::stoull(env("PM_SAVE_FROM", "1"));
  probe->evaluate = env("PM_EVAL", "1") == "1";
  const std::string list = env("PM_METRICS",
                               "smsp__inst_issued.sum,sm__cycles_elapsed.avg,dram__bytes_read.sum,"
                               "dram__bytes_write.sum,lts__t_sectors.sum,lts__t_sectors_srcunit_tex.sum");
  for (size_t b = 0; b < list.size();) {
    size_t e = std::min(list.find(',', b), list.size());
    if (e > b) probe->metrics.push_back(list.substr(b, e - b));
    b = e + 1;
  }
  for (auto& m : probe->metrics) probe->names.push_back(m.c_str());
  probe->values.resize(probe->names.size());
  probe->sample_file = std::fopen((probe->out + "/samples.bin").c_str(), "wb");
  probe->kernel_file = std::fopen((probe->out + "/kernels.tsv").c_str(), "w");
  CUpti_SubscriberHandle subscriber;
  cuptiSubscribe(&subscriber, on_callback, nullptr);
  for (CUpti_CallbackId id : {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
                              CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz})
    cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
  cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  std::atexit(at_exit);
  return 1;
}
