// The suite runner: timing with CUDA events, one profiled launch per experiment through the
// collector (or timing only when it is unavailable), the run record and the measurements.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>

#include "limiter/device_spec.hpp"
#include "limiter/kernels/stall_check.hpp"
#include "suite_context.hpp"

namespace limiter::kernels {

bool SuiteResult::all_correct() const {
  return std::all_of(measurements.begin(), measurements.end(),
                     [](const Measurement& m) { return !m.skipped_reason.empty() || m.correct.value_or(false); });
}

std::optional<std::string> gpu_unavailable_reason() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    return std::string("no usable GPU: cudaGetDeviceCount says ") + cudaGetErrorName(status) + " (" +
           cudaGetErrorString(status) + ")";
  }
  if (count == 0) return std::string("no GPU: the CUDA driver reports no device");
  return std::nullopt;
}

namespace detail {
namespace {

DeviceDescription describe_device(const cudaDeviceProp& properties, int device_index) {
  DeviceDescription device;
  device.name = properties.name;
  device.arch = "sm_" + std::to_string(properties.major * 10 + properties.minor);
  if (const GpuSpec* spec = find_gpu_spec(device.name)) device.chip = spec->chip;
  device.sm_count = properties.multiProcessorCount;
  int value = 0;
  if (cudaDeviceGetAttribute(&value, cudaDevAttrClockRate, device_index) == cudaSuccess && value > 0)
    device.sm_clock_hz = value * 1e3;
  if (cudaDeviceGetAttribute(&value, cudaDevAttrMemoryClockRate, device_index) == cudaSuccess && value > 0)
    device.memory_clock_hz = value * 1e3;
  if (cudaDeviceGetAttribute(&value, cudaDevAttrGlobalMemoryBusWidth, device_index) == cudaSuccess && value > 0)
    device.memory_bus_width_bits = value;
  device.l2_bytes = static_cast<std::uint64_t>(properties.l2CacheSize);
  device.global_memory_bytes = properties.totalGlobalMem;
  return device;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

}  // namespace

int resident_blocks_per_sm(const void* kernel, int threads, std::size_t dynamic_shared_bytes) {
  int blocks = 0;
  LIMITER_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, dynamic_shared_bytes));
  return blocks;
}

SuiteContext::SuiteContext(const SuiteOptions& options) : options_(options), selection_(select_entries(options.only)) {
  if (options_.warmup_runs < 0 || options_.timed_runs < 1)
    throw InputError("the suite needs at least 1 timed run and no negative number of warm-up runs");
  if (options_.profile) {
    try {
      CollectorOptions collector_options;
      collector_options.command_line = options_.command_line;
      collector_options.stalls = options_.stalls;
      collector_options.every_launch = !options_.stalls;  // a known answer per launch, not the default's budget
      collector_ = std::make_unique<Collector>(collector_options);
    } catch (const SystemError& e) {
      result_.profiling_note = e.what();
      note(std::string("profiling unavailable: ") + e.what() + "; continuing with timing only");
    }
  } else {
    result_.profiling_note = "timing only was asked for";
  }
  LIMITER_CUDA_CHECK(cudaSetDevice(device_index_));
  LIMITER_CUDA_CHECK(cudaGetDeviceProperties(&properties_, device_index_));
  // Twice the L2: reading it evicts whatever a previous run left there.
  l2_flush_buffer_ = DeviceBuffer<unsigned char>(2 * static_cast<std::size_t>(properties_.l2CacheSize));
  LIMITER_CUDA_CHECK(cudaMemset(l2_flush_buffer_.get(), 0, l2_flush_buffer_.bytes()));
  LIMITER_CUDA_CHECK(cudaEventCreate(&start_event_));
  LIMITER_CUDA_CHECK(cudaEventCreate(&stop_event_));

  result_.run.tool_version = tool_version();
  result_.run.source = kTimingOnlySource;  // becomes "cupti" once the collector delivers counters
  result_.run.created_at = utc_timestamp();
  result_.run.command_line = options_.command_line;
  result_.run.counter_model = CounterModel::perfworks;
  result_.run.device = describe_device(properties_, device_index_);
}

SuiteContext::~SuiteContext() {
  if (start_event_) LIMITER_CUDA_CHECK_NOTHROW(cudaEventDestroy(start_event_));
  if (stop_event_) LIMITER_CUDA_CHECK_NOTHROW(cudaEventDestroy(stop_event_));
}

bool SuiteContext::selected(const std::string& name) const {
  return std::any_of(selection_.begin(), selection_.end(), [&](const CatalogEntry* e) { return e->name == name; });
}

bool SuiteContext::any_selected(Family family) const {
  return std::any_of(selection_.begin(), selection_.end(), [&](const CatalogEntry* e) { return e->family == family; });
}

void SuiteContext::starting(const std::string& name) const {
  if (options_.on_start) options_.on_start(name);
}

void SuiteContext::note(const std::string& line) const {
  if (options_.on_note) options_.on_note(line);
}

void SuiteContext::flush_l2() { launch_l2_eviction(l2_flush_buffer_.get(), l2_flush_buffer_.bytes(), properties_); }

Timing SuiteContext::time(const Experiment& experiment) {
  for (int i = 0; i < options_.warmup_runs; ++i) {
    if (experiment.flush_l2) flush_l2();
    experiment.launch();
    LIMITER_CUDA_CHECK_LAUNCH();
  }
  LIMITER_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<double> times_ns;
  for (int i = 0; i < options_.timed_runs; ++i) {
    // The flush also keeps the GPU busy while the host records the start event and launches,
    // so the interval holds the kernel and not the launch latency.
    if (experiment.flush_l2) flush_l2();
    LIMITER_CUDA_CHECK(cudaEventRecord(start_event_));
    experiment.launch();
    LIMITER_CUDA_CHECK_LAUNCH();
    LIMITER_CUDA_CHECK(cudaEventRecord(stop_event_));
    LIMITER_CUDA_CHECK(cudaEventSynchronize(stop_event_));
    float milliseconds = 0;
    LIMITER_CUDA_CHECK(cudaEventElapsedTime(&milliseconds, start_event_, stop_event_));
    times_ns.push_back(milliseconds * 1e6);
  }
  return {median(times_ns), options_.timed_runs};
}

Measurement SuiteContext::describe(const Experiment& experiment) const {
  Measurement m;
  m.name = experiment.name;
  m.useful_bytes = experiment.useful_bytes;
  m.useful_flops = experiment.useful_flops;
  m.dependent_steps = experiment.dependent_steps;
  m.grid = {experiment.grid.x, experiment.grid.y, experiment.grid.z};
  m.block = {experiment.block.x, experiment.block.y, experiment.block.z};
  cudaFuncAttributes attributes{};
  LIMITER_CUDA_CHECK(cudaFuncGetAttributes(&attributes, experiment.kernel));
  m.registers_per_thread = attributes.numRegs;
  m.local_bytes_per_thread = attributes.localSizeBytes;
  m.shared_bytes_per_block = attributes.sharedSizeBytes + experiment.dynamic_shared_bytes;
  const int threads = static_cast<int>(experiment.block.x * experiment.block.y * experiment.block.z);
  m.blocks_per_sm = resident_blocks_per_sm(experiment.kernel, threads, experiment.dynamic_shared_bytes);
  return m;
}

RunRecord SuiteContext::profile(const Experiment& experiment) {
  if (!collector_) return {};
  try {
    if (experiment.flush_l2) flush_l2();
    LIMITER_CUDA_CHECK(cudaDeviceSynchronize());
    {
      ProfiledRegion region(*collector_);
      experiment.launch();
      LIMITER_CUDA_CHECK_LAUNCH();
    }
    // PC sampling hands its samples over once, when its record is taken (a second collector in
    // the process sampled nothing on an H200): taken at the end of the suite (take_result).
    if (options_.stalls) return {};
    return collector_->take_run();
  } catch (const SystemError& e) {
    result_.profiling_note = e.what();
    note(std::string("profiling failed: ") + e.what() + "; timing only from here on");
    collector_.reset();
    return {};
  }
}

KernelLaunch SuiteContext::timing_only_launch(const Experiment& experiment, const Measurement& m) const {
  KernelLaunch launch;
  launch.name = experiment.name;
  const char* symbol = nullptr;
  if (cudaFuncGetName(&symbol, experiment.kernel) == cudaSuccess && symbol) launch.mangled_name = symbol;
  launch.grid = m.grid;
  launch.block = m.block;
  launch.registers_per_thread = m.registers_per_thread;
  cudaFuncAttributes attributes{};
  LIMITER_CUDA_CHECK(cudaFuncGetAttributes(&attributes, experiment.kernel));
  launch.static_shared_bytes = attributes.sharedSizeBytes;
  launch.dynamic_shared_bytes = experiment.dynamic_shared_bytes;
  launch.local_bytes_per_thread = m.local_bytes_per_thread;
  launch.device = device_index_;
  // No profiler: the event time is the only duration there is (documented in results.hpp).
  if (m.time_ns) launch.counters["gpu__time_duration.sum"] = *m.time_ns;
  return launch;
}

void SuiteContext::measure(const Experiment& experiment) {
  if (!selected(experiment.name)) return;
  starting(experiment.name);
  Measurement m = describe(experiment);
  const Timing timing = time(experiment);
  m.time_ns = timing.median_ns;
  m.timed_runs = timing.runs;

  RunRecord profiled = profile(experiment);
  std::vector<KernelLaunch> launches = std::move(profiled.launches);
  LIMITER_CUDA_CHECK(cudaDeviceSynchronize());
  const CheckResult check = experiment.check();
  m.correct = check.correct;
  m.check_detail = check.detail;
  if (!check.correct) note("WRONG RESULT: " + experiment.name + ": " + check.detail);

  if (launches.empty()) {
    launches.push_back(timing_only_launch(experiment, m));
  } else {
    result_.profiled = true;
    result_.run.source = "cupti";
    result_.run.cache_control = profiled.cache_control;  // the exact counters' caches, as the collector says
  }
  for (std::size_t i = 0; i < launches.size(); ++i) {
    KernelLaunch& launch = launches[i];
    launch.sequence = result_.run.launches.size();
    // The catalog name says which experiment this was; the symbol stays in mangled_name.
    launch.name = launches.size() == 1 ? experiment.name : experiment.name + "#" + std::to_string(i);
    if (launch.grid.count() == 0) launch.grid = m.grid;
    if (launch.block.count() == 0) launch.block = m.block;
    if (!launch.registers_per_thread) launch.registers_per_thread = m.registers_per_thread;
    if (!launch.local_bytes_per_thread) launch.local_bytes_per_thread = m.local_bytes_per_thread;
    annotate_launch(m, launch);
    result_.run.launches.push_back(std::move(launch));
  }
  result_.measurements.push_back(std::move(m));
}

void SuiteContext::record(Measurement measurement) {
  if (!selected(measurement.name)) return;
  result_.measurements.push_back(std::move(measurement));
}

SuiteResult SuiteContext::take_result() {
  if (options_.stalls && collector_) {
    // Each experiment's samples by its kernel's symbol, under its catalog name. Experiments that
    // share a kernel function (the two atomics) share its samples: the check says so.
    const RunRecord sampled = collector_->take_run();
    if (sampled.stalls) {
      StallInfo suite = *sampled.stalls;  // the run's totals (samples, dropped) once
      suite.kernels.clear();
      for (const KernelLaunch& launch : result_.run.launches) {
        StallInfo one;  // this experiment's kernels only: no totals to add again
        for (const KernelStalls& kernel : sampled.stalls->kernels)
          if (kernel.mangled_name == launch.mangled_name) one.kernels.push_back(kernel);
        if (!one.kernels.empty()) add_experiment_stalls(suite, one, launch.name);
      }
      result_.run.stalls = std::move(suite);
    }
  }
  return std::move(result_);
}

}  // namespace detail

SuiteResult run_suite(const SuiteOptions& options) {
  if (auto reason = gpu_unavailable_reason()) throw SystemError(*reason);
  detail::SuiteContext context(options);
  detail::run_reduction_family(context);
  detail::run_stencil_family(context);
  detail::run_occupancy_family(context);
  detail::run_tail_effect_family(context);
  detail::run_matmul_family(context);
  detail::run_ml_patterns_family(context);
  detail::run_warp_stalls_family(context);
  detail::run_calibration_family(context);
  detail::run_multi_gpu_family(context);
  return context.take_result();
}

CalibrationResult run_calibration(const CalibrationOptions& options) {
  if (auto reason = gpu_unavailable_reason()) throw SystemError(*reason);
  SuiteOptions suite_options;
  suite_options.only = {to_string(Family::calibration)};
  suite_options.sizes = options.sizes;
  suite_options.profile = false;
  suite_options.timed_runs = options.timed_runs;
  suite_options.on_start = options.on_start;
  detail::SuiteContext context(suite_options);

  CalibrationResult result;
  result.device = detail::describe_device(context.device(), 0);
  result.created_at = utc_timestamp();
  result.sizes = to_string(options.sizes);
  for (const auto& experiment : detail::calibration_experiments(context.device(), options.sizes)) {
    context.measure(experiment);  // timing only: the context has no collector
  }
  if (options.on_start) options.on_start("sm_clock");
  result.sm_clock_measured_hz = detail::measure_sm_clock_hz(context);
  SuiteResult suite = context.take_result();
  for (const auto& m : suite.measurements) {
    if (m.name == "calib_hbm_stream_read") result.dram_read_bytes_per_second = m.bytes_per_second();
    if (m.name == "calib_l2_resident_read_cg") result.l2_read_bytes_per_second = m.bytes_per_second();
    if (m.name == "calib_fma_ilp") result.fp32_flops_per_second = m.flops_per_second();
    if (m.name == "calib_pointer_chase") result.dependent_load_latency_ns = m.ns_per_dependent_step();
  }
  result.measurements = std::move(suite.measurements);
  return result;
}

}  // namespace limiter::kernels
