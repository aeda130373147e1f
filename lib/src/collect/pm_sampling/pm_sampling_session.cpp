// The PM-sampling session (pm_sampling_session.hpp).
#include "collect/pm_sampling/pm_sampling_session.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "collect/clock.hpp"
#include "collect/cupti/cupti_check.hpp"
#include "collect/cupti/pm_raw_store.hpp"
#include "collect/trace.hpp"

namespace limiter::detail {

namespace {

// How often samples are attributed while the app runs, and how long after a sample ends its
// kernels' records may still be on their way (CUPTI delivers a kernel's record once it ended).
constexpr auto kAdvancePeriod = std::chrono::seconds(1);
constexpr std::uint64_t kRecordLagNs = 2'000'000'000;

}  // namespace

PmSamplingSession::PmSamplingSession(const CollectorOptions& options, const LaunchSink* sink, SamplingRole role,
                                     PmSamplingBackend& backend)
    : options_(options),
      sink_(sink),
      backend_(backend),
      // After the exact phase, --metrics chose its counters; the sampler keeps its one-pass plan.
      metrics_(options.metrics.empty() || role == SamplingRole::after_exact ? sampling_plan_metrics()
                                                                            : options.metrics),
      role_(role),
      attributor_(metrics_, options.sampling_interval_ns) {
  const auto issued = std::find(metrics_.begin(), metrics_.end(), "smsp__inst_issued.sum");
  if (issued != metrics_.end())
    issued_index_ = static_cast<std::size_t>(issued - metrics_.begin());
  else
    sm_work_seen_ = true;  // a metric list without it: not checked
  // Loaded before the injection's exit handler is registered, so torn down after it.
  backend_.preload_evaluator();
  if (options_.always_active) active_depth_ = 1;
  if (role_ != SamplingRole::alone) {
    began_ = role_ == SamplingRole::before_exact;
    return;  // kernel timestamps from its phase's first launch (on_launch)
  }
  began_ = true;
  // Kernel records from the start, before any context exists (as the H100 probe that worked did);
  // kernels before the first sampled launch find no samples and are dropped by the attributor.
  activity_ = backend_.kernel_timestamps([this](KernelSpan&& span) { on_kernel(std::move(span)); });
}

void PmSamplingSession::begin_after(RunRecord before, bool follows) {
  {
    std::lock_guard lock(mutex_);
    exact_launches_ = std::move(before.launches);
    exact_missed_ = std::move(before.missed);
    exact_launches_seen_ = before.launches_seen.value_or(0);
    exact_kernels_seen_ = std::move(before.kernels_seen);
    exact_cache_control_ = std::move(before.cache_control);
  }
  // Kernel timestamps start at the first sampled launch (on_launch), not here: this launch ran
  // in the exact phase, and its kernel would be counted twice.
  began_ = follows;
}

bool PmSamplingSession::phase_over() const {
  return role_ == SamplingRole::before_exact && launches_seen_ >= options_.sampling_phase_launches;
}

PmSamplerOptions PmSamplingSession::sampler_options() const {
  PmSamplerOptions sampler;
  sampler.metrics = metrics_;
  sampler.interval_ns = options_.sampling_interval_ns;
  sampler.raw_dir = options_.raw_dir;
  sampler.keep_images = options_.keep_pm_images;
  sampler.command_line = options_.command_line;
  sampler.hardware_buffer_bytes = options_.pm_buffer_mib << 20;  // its set-up cost grows with it
  return sampler;
}

void PmSamplingSession::prepare_ahead(int device_index, const std::string& chip) {
  std::lock_guard lock(start_mutex_);
  if (role_ != SamplingRole::after_exact || host_side_ahead_.valid() || started_) return;
  host_side_device_ = device_index;
  // The device side (Enable, SetConfig) cannot go ahead: SetConfig fails with
  // CUPTI_ERROR_HARDWARE_BUSY while the range profiler is enabled (H100, 2026-11-25).
  host_side_ahead_ = std::async(std::launch::async, [&backend = backend_, metrics = metrics_, device_index, chip] {
    return prepare_pm_sampler_host(backend, metrics, device_index, chip);
  });
}

PmSamplingSession::~PmSamplingSession() {
  finish_sampling();
  if (starter_.joinable()) starter_.join();
  // Their last callbacks reach this object (the attributor, its mutex): gone before it is.
  sampler_.reset();
  activity_.reset();
}

void PmSamplingSession::begin_region() { ++active_depth_; }
void PmSamplingSession::end_region() {
  if (active_depth_ > 0) --active_depth_;
}

void PmSamplingSession::on_launch(const LaunchCall& call) {
  ++launches_seen_;
  if (started_ || start_failed_ || finished_ || active_depth_ == 0 || !began_) return;
  std::lock_guard lock(start_mutex_);
  if (started_ || start_failed_ || finished_) return;
  if (on_context_sampled) on_context_sampled(call.context);
  if (role_ != SamplingRole::alone) {
    // Mid-run, the sampler's set-up (SetConfig allocates the hardware buffer: ~400 ms for 512 MiB
    // on an H100) would stall the app's launch: it runs on a thread of its own, and the kernels
    // that run meanwhile are timed (their launches and time count) but have no samples.
    try {
      const auto t0 = Clock::now();
      if (!activity_) activity_ = backend_.kernel_timestamps([this](KernelSpan&& span) { on_kernel(std::move(span)); });
      activity_enable_s_ = seconds_since(t0);
    } catch (const std::exception& e) {
      start_failed_ = true;
      start_error_ = e.what();
      std::fprintf(stderr, "limiter: PM sampling could not start: %s\n", e.what());
      return;
    }
    started_ = true;
    starter_ = std::thread([this, context = call.context] { start_in_background(context); });
    return;
  }
  if (start_or_say_why(call.context)) started_ = true;
  // On disk from the start: a process that ends without its exit handlers still leaves a record
  // that says what it holds.
  snapshot();
}

void PmSamplingSession::start_in_background(CUcontext context) {
  {
    std::lock_guard lock(start_mutex_);
    if (finished_) return;  // the app ended first: the record says that sampling never began
    start_or_say_why(context);
  }
  snapshot();
}

bool PmSamplingSession::start_or_say_why(CUcontext context) {
  try {
    start_sampling(context);
    sampler_ready_ = true;
    if (sink_ && sink_->on_sampling_started) sink_->on_sampling_started();
    return true;
  } catch (const std::exception& e) {
    start_failed_ = true;
    start_error_ = e.what();
    std::fprintf(stderr, "limiter: PM sampling could not start: %s\n", e.what());
    return false;
  }
}

void PmSamplingSession::on_context_destroy(CUcontext context) {
  std::lock_guard start_lock(start_mutex_);
  if (!sampler_ || context != sampled_context_) return;
  try {
    if (activity_) activity_->flush(true);
    sampler_->stop();  // finish() aggregates later; stop() is idempotent
  } catch (const std::exception& e) {
    std::fprintf(stderr, "limiter: PM sampling did not stop with its context: %s\n", e.what());
  }
}

void PmSamplingSession::start_sampling(CUcontext context) {
  sampled_context_ = context;
  const int device = backend_.device_of(context);
  {
    std::lock_guard lock(mutex_);
    device_ = backend_.describe(device);
    device_id_ = static_cast<std::uint32_t>(device);
  }
  const PmSamplerOptions sampler = sampler_options();
  std::optional<PmSamplerHostSide> prepared;
  if (host_side_ahead_.valid()) {
    try {
      PmSamplerHostSide ahead = host_side_ahead_.get();
      if (host_side_device_ == device) prepared = std::move(ahead);
    } catch (const std::exception& e) {  // prepared again on this thread, where a failure stops sampling
      std::fprintf(stderr, "limiter: PM sampling's set-up ahead failed (%s); done again now\n", e.what());
    }
  }
  sampler_ = std::make_unique<PmSampler>(
      backend_, sampler, device, device_, [this](std::vector<PmSample>&& samples) { on_samples(std::move(samples)); },
      std::move(prepared));
}

void PmSamplingSession::snapshot() {
  if (!sink_ || !sink_->on_snapshot) return;
  RunRecord run;
  {
    std::lock_guard lock(mutex_);
    run = record(attributor_.attributed_so_far());
  }
  sink_->on_snapshot(run);
}

void PmSamplingSession::on_kernel(KernelSpan&& span) {
  std::lock_guard lock(mutex_);
  if (device_id_ && span.launch.device && static_cast<std::uint32_t>(*span.launch.device) != *device_id_) {
    ++other_device_kernels_;  // PM sampling watches one GPU
    return;
  }
  if (!options_.raw_dir.empty()) {
    if (!raw_kernels_.is_open()) raw_kernels_.open(options_.raw_dir + "/kernels.jsonl", std::ios::app);
    append_pm_kernel(raw_kernels_, span);
  }
  attributor_.add_kernel(std::move(span));
}

// samples.tsv, flushed per batch so a process that dies keeps what was decoded; a failed write
// is said once, and the record still holds every sample.
void PmSamplingSession::write_raw_samples(const std::vector<PmSample>& samples) {
  const bool header = raw_samples_ == nullptr;
  if (header) raw_samples_ = std::fopen((options_.raw_dir + "/samples.tsv").c_str(), "w");
  if (!raw_samples_) return;
  const std::string text = pm_samples_text(metrics_, samples, header);
  if (std::fwrite(text.data(), 1, text.size(), raw_samples_) != text.size() || std::fflush(raw_samples_) != 0) {
    std::fprintf(stderr, "limiter: cannot write '%s/samples.tsv' (%s): the recording lacks samples from here on\n",
                 options_.raw_dir.c_str(), std::strerror(errno));
    std::fclose(raw_samples_);
    raw_samples_ = nullptr;
    options_.raw_dir.clear();  // said once; the kernels file stops too
  }
}

void PmSamplingSession::on_samples(std::vector<PmSample>&& samples) {
  if (!samples.empty() && !samples_arrived_.exchange(true) && sink_ && sink_->on_sampling_started)
    sink_->on_sampling_started();  // the first decode and evaluation have set up what they use
  bool advance = false;
  {
    std::lock_guard lock(mutex_);
    if (!options_.raw_dir.empty()) write_raw_samples(samples);
    for (const auto& sample : samples)
      if (!sm_work_seen_ && *issued_index_ < sample.values.size() && sample.values[*issued_index_] > 0)
        sm_work_seen_ = true;
    for (auto& sample : samples) attributor_.add_sample(std::move(sample));
    advance = Clock::now() - last_advance_ >= kAdvancePeriod;
    if (advance) last_advance_ = Clock::now();
  }
  if (!advance || !activity_) return;
  // The kernels that ended by now reach the attributor (outside our lock: the flush calls on_kernel).
  // A plain flush: a forced one while kernels run hands back buffers CUPTI is still writing.
  const std::uint64_t now_ns = backend_.timestamp();
  activity_->flush(/*forced=*/false);
  {
    std::lock_guard lock(mutex_);
    if (now_ns > kRecordLagNs) attributor_.advance(now_ns - kRecordLagNs);
  }
  snapshot();
}

RunRecord PmSamplingSession::finish() noexcept {
  if (role_ != SamplingRole::before_exact) return finish_sampling();
  if (phase_record_) return *phase_record_;
  RunRecord run = finish_sampling();
  try {
    std::lock_guard start_lock(start_mutex_);
    phase_timings_ = timings();
    phase_record_ = run;
    // Disabled before the range profiler is enabled (the PM sampler's SetConfig failed with
    // CUPTI_ERROR_HARDWARE_BUSY beside an enabled range profiler; H100).
    sampler_ready_ = false;
    sampler_.reset();
    activity_.reset();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "limiter: PM sampling did not end cleanly: %s\n", e.what());
  }
  return run;
}

RunRecord PmSamplingSession::finish_sampling() noexcept {
  RunRecord run;
  if (phase_record_) return *phase_record_;
  if (finished_.exchange(true)) return run;
  if (starter_.joinable() && starter_.get_id() != std::this_thread::get_id()) starter_.join();
  try {
    std::lock_guard start_lock(start_mutex_);  // a launch that is starting sampling finishes first
    LIMITER_TRACE("sampling: finish: flush");
    if (activity_) activity_->flush(true);
    LIMITER_TRACE("sampling: finish: stop the sampler");
    if (sampler_) sampler_->stop();  // decodes the backlog into the attributor
    if (activity_) activity_->flush(true);
    LIMITER_TRACE("sampling: finish: aggregate");
    std::lock_guard lock(mutex_);
    run = record(attributor_.aggregates());
    // The injection's collector is never destroyed.
    if (raw_kernels_.is_open()) raw_kernels_.flush();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "limiter: PM sampling did not finish: %s\n", e.what());
  }
  return run;
}

RunRecord PmSamplingSession::record(std::vector<KernelLaunch> launches) const {
  RunRecord run;
  run.source = "cupti-pm-sampling";
  run.device = device_;
  run.launches_seen = launches_seen_ + exact_launches_seen_;
  if (role_ == SamplingRole::after_exact) run.kernels_seen = add_sampled_launches(exact_kernels_seen_, launches);
  run.launches =
      exact_launches_.empty() ? std::move(launches) : join_exact_launches(std::move(launches), exact_launches_);
  run.missed = exact_missed_;
  run.cache_control = exact_cache_control_;
  SamplingInfo info = attributor_.info();
  if (sampler_ready_) info.samples_lost += sampler_->samples_lost();
  const std::uint64_t kernels_timed = activity_ ? activity_->kernels() : 0;
  info.sm_side_counted = sm_work_seen_ || info.samples == 0 || kernels_timed == 0;
  run.sampling = info;
  run.schema_version = kRunSchemaVersion;
  // Loud, never silent: a record without samples says why.
  const std::string exact = "run the exact mode (limiter run without --sampling)";
  if (role_ == SamplingRole::before_exact && finished_ && !sampler_ready_ && start_error_.empty() && !phase_record_) {
    run.missed.push_back({"PM sampling never began: the " +
                              std::string(started_ ? "sampling phase ended while the sampler was being set up"
                                                   : "app launched no kernel") +
                              " (the exact phase judges the kernels)",
                          0, "a longer --sampling-phase"});
  } else if (role_ == SamplingRole::after_exact && finished_ && !sampler_ready_ && start_error_.empty()) {
    const std::string when = started_ ? "while the sampler was being set up, after the per-kernel budgets were spent"
                                      : "before " + std::to_string(kPauseAfterUnselected) +
                                            " launches in a row fell outside the per-kernel budgets";
    run.missed.push_back(
        {"PM sampling never began: the app ended " + when + " (the record holds the exactly profiled launches only)", 0,
         "a smaller --per-kernel-count, or a longer run"});
  }
  if (!start_error_.empty())
    run.missed.push_back({"PM sampling could not start: " + start_error_, launches_seen_.load(), exact});
  if (!info.sm_side_counted) {
    run.missed.push_back({"PM samples counted no instruction while " + std::to_string(kernels_timed) +
                              " kernels ran: the SM-side counters did not count (on an H100 they do not after the "
                              "range profiler ran in the process), so no kernel gets a sampled verdict; L2 and DRAM "
                              "samples stand",
                          0,
                          role_ == SamplingRole::after_exact
                              ? "the exact launches judge every kernel; --sampling alone samples the SMs"
                              : exact});
  }
  const std::string sampler_error = sampler_ready_ ? sampler_->error() : "";
  if (!sampler_error.empty()) {
    const bool overflow = sampler_error.find("overflowed") != std::string::npos;
    run.missed.push_back({sampler_error, 0, overflow ? "a longer --sampling-interval" : exact});
  } else if (finished_ && sampler_ready_ && sampler_->samples() == 0) {
    run.missed.push_back({"no PM sample was decoded while the app ran", 0, exact});
  }
  if (started_ && finished_ && activity_ && activity_->kernels() == 0 && launches_seen_ > 0) {
    run.missed.push_back({"the Activity API gave no kernel timestamps, so no sample could be attributed",
                          launches_seen_.load(), "another CUPTI activity client in the app? " + exact});
  }
  if (activity_ && activity_->dropped() > 0)
    run.missed.push_back({"kernel timestamp records dropped by CUPTI", activity_->dropped(),
                          "report it; their samples went to the other kernels"});
  if (other_device_kernels_ > 0)
    run.missed.push_back({"kernels on another GPU (PM sampling watches the first GPU launched on)",
                          other_device_kernels_, "run one process per GPU (CUDA_VISIBLE_DEVICES)"});
  return run;
}

std::string PmSamplingSession::timings() const {
  if (!phase_timings_.empty()) return phase_timings_;
  if (!sampler_ready_) return "PM sampling never started\n";
  const PmSamplerTimes t = sampler_->times();
  const double samples = static_cast<double>(std::max<std::uint64_t>(sampler_->samples(), 1));
  char set_up[256];
  std::snprintf(set_up, sizeof set_up,
                "set-up %.0f ms%s (host side %.0f ms%s, Enable %.0f ms, SetConfig %.0f ms, Start %.0f ms, kernel "
                "timestamps %.0f ms)",
                (t.set_up_s + activity_enable_s_) * 1e3,
                role_ != SamplingRole::alone ? " on its own thread, the app running on" : "", t.host_side_s * 1e3,
                t.host_side_ahead ? " ahead, during the exact phase" : "", t.enable_s * 1e3, t.set_config_s * 1e3,
                t.start_s * 1e3, activity_enable_s_ * 1e3);
  char text[768];
  std::snprintf(text, sizeof text,
                "PM sampling: %s; %llu samples (%llu lost), %llu kernels timed; decode %.1f us and "
                "evaluate %.1f us per sample (%llu decodes, %llu early retries, %llu images); ",
                set_up, static_cast<unsigned long long>(sampler_->samples()),
                static_cast<unsigned long long>(sampler_->samples_lost()),
                static_cast<unsigned long long>(activity_ ? activity_->kernels() : 0), t.decode_s / samples * 1e6,
                t.evaluate_s / samples * 1e6, static_cast<unsigned long long>(t.decodes),
                static_cast<unsigned long long>(t.early_retries), static_cast<unsigned long long>(t.images));
  return text + ("libcupti " + backend_.library_text() + "\n");
}

}  // namespace limiter::detail
