// The PC-sampling session (pc_sampling_session.hpp): contexts, drains and the record.
#include "collect/pc_sampling/pc_sampling_session.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "collect/demangle.hpp"
#include "collect/trace.hpp"
#include "limiter/error.hpp"
#include "limiter/stall_sass.hpp"

namespace limiter::detail {

namespace {

std::string milliseconds(double seconds) {
  return std::to_string(static_cast<long long>(seconds * 1000 + 0.5)) + " ms";
}

}  // namespace

PcSamplingSession::PcSamplingSession(const CollectorOptions& options, std::unique_ptr<PcSamplingBackend> backend,
                                     PcSamplingPhase phase)
    : options_(options),
      phase_(phase),
      began_(!phase.follows_another),
      owned_backend_(std::move(backend)),
      backend_(*owned_backend_) {}

PcSamplingSession::~PcSamplingSession() { finish_all(); }

SessionCapabilities PcSamplingSession::capabilities() {
  SessionCapabilities takes;
  takes.launch_exits = this;
  takes.sync_points = this;
  takes.modules = this;
  takes.pending = this;
  takes.phase_end = this;
  takes.completion = this;
  return takes;
}

PcSamplingSession::Context& PcSamplingSession::sample(CUcontext context) {
  auto [it, fresh] = contexts_.try_emplace(context);
  Context& state = it->second;
  if (!fresh) {
    if (!state.failed && !state.started && active()) start(context, state);
    return state;
  }
  const auto t0 = Clock::now();
  bool enabled = false;
  try {
    const DeviceDescription device = backend_.describe(context);
    if (!device_) device_ = device;
    take_sampling_turn(device.uuid);
    backend_.enable(context);
    enabled = true;
    const std::vector<PcStallReason> reasons = backend_.stall_reasons(context);
    state.keys = stall_keys(reasons);
    if (tracing())
      for (const auto& reason : reasons) LIMITER_TRACE("PC sampling reason %u: %s", reason.index, reason.name.c_str());
    PcSamplingRequest request;
    request.period_log2 = options_.stall_period_log2;
    if (request.period_log2 == 0 && phase_.window.count() > 0)
      request.period_log2 = window_period_log2(device.sm_count);
    request.buffer_pcs = kPcsPerBuffer;
    for (const auto& reason : reasons) request.reasons.push_back(reason.index);
    settings_ = backend_.configure(context, request);
    LIMITER_TRACE("PC sampling on context %p: %zu stall reasons (%zu keyed), period 2^%u cycles",
                  static_cast<void*>(context), reasons.size(), state.keys.reasons.size(), settings_.period_log2);
  } catch (const std::exception& e) {
    state.failed = e.what();
    first_failure(e);
    if (enabled) backend_.disable(context);
  }
  setup_s_ += seconds_since(t0);
  if (!state.failed && active()) start(context, state);
  return state;
}

void PcSamplingSession::first_failure(const std::exception& error) {
  if (!first_error_.empty()) return;
  first_error_ = error.what();
  first_fix_ = dynamic_cast<const TurnTaken*>(&error)
                   ? "let the other limiter process finish its sampling first, or give each process a GPU of its "
                     "own (CUDA_VISIBLE_DEVICES)"
                   : "run on a GPU that supports PC sampling (compute capability 7.0 or newer), without another "
                     "profiler attached, with access to the GPU's performance counters";
  std::fprintf(stderr, "limiter: PC sampling could not start: %s\n", error.what());
}

void PcSamplingSession::start(CUcontext context, Context& state) {
  try {
    backend_.start(context);
    state.started = true;
    last_drain_ = Clock::now();  // the period counts from here
    ever_started_ = true;
  } catch (const std::exception& e) {
    state.failed = e.what();
    first_failure(e);
    // Not left enabled: a context enabled for PC sampling and never started (another process
    // samples this GPU) is no state to launch kernels in, nor to start the Range Profiler beside.
    take(backend_.disable(context), state.keys);  // what CUPTI still holds of an earlier start
  }
}

void PcSamplingSession::begin_region() {
  ++active_depth_;
  std::lock_guard lock(mutex_);
  if (finished_ || !began_) return;
  for (auto& [context, state] : contexts_)
    if (!state.failed && !state.started) start(context, state);
}

void PcSamplingSession::end_region() {
  if (active_depth_ > 0) --active_depth_;
  std::lock_guard lock(mutex_);
  if (finished_ || active()) return;
  for (auto& [context, state] : contexts_) {
    if (!state.started) continue;
    try {
      backend_.stop(context);
      state.started = false;
      drain(context, state);  // CUPTI asks for a flush after every Stop
    } catch (const std::exception& e) {
      std::fprintf(stderr, "limiter: PC sampling: %s\n", e.what());
    }
  }
}

void PcSamplingSession::on_launch(const LaunchCall& call) {
  if (!active() || !began_) return;
  ++launches_seen_;
  std::lock_guard lock(mutex_);
  if (finished_) return;
  if (phase_.quiet_launches > 0) {  // a graph launch (no name) counts as nothing new
    // Looked up before it is copied: most launches in the window repeat a kernel already seen.
    if (call.symbol_name && kernels_sampled_.find(std::string_view(call.symbol_name)) == kernels_sampled_.end()) {
      kernels_sampled_.emplace(call.symbol_name);
      launches_since_new_ = 0;
    } else {
      ++launches_since_new_;
    }
  }
  if (sample(call.context).failed) {
    ++launches_unsampled_;
    if (!ever_started_) sampling_failed_ = true;
  }
  // The window counts from the phase's first launch in a region, once sampling's set-up is done
  // (Enable, configure, Start: ~90 ms at a PyTorch process's first launch, H200): a short
  // window would otherwise be over before its first sample.
  if (window_start_.load(std::memory_order_relaxed) == 0) window_start_ = Clock::now().time_since_epoch().count();
}

void PcSamplingSession::on_launch_exit(const LaunchCall& call) {
  if (finished_) return;  // every launch's EXIT comes here, after the window too
  std::lock_guard lock(mutex_);
  if (finished_) return;
  const auto it = contexts_.find(call.context);
  if (it == contexts_.end() || !it->second.started) return;
  try {
    // A buffer's worth of PCs pending, or the period since the last drain: CUPTI's hardware
    // buffer fills in under a second at short periods (2^8 cycles on an H100) unless drained.
    if (backend_.pending_pcs(call.context) >= kPcsPerBuffer || Clock::now() - last_drain_ >= kDrainPeriod)
      drain(call.context, it->second);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "limiter: PC sampling: %s\n", e.what());
  }
}

void PcSamplingSession::on_sync(SyncKind kind) {
  if (kind != SyncKind::wait) return;
  std::lock_guard lock(mutex_);
  if (finished_ || Clock::now() - last_drain_ < kDrainPeriod) return;
  drain_all();
}

void PcSamplingSession::on_module_loaded(const ModuleLoad& module) {
  if (finished_) return;  // unlocked first: complete_record() may hold the lock off the app's thread
  std::lock_guard lock(mutex_);
  if (finished_) return;
  const auto t0 = Clock::now();
  struct Count {  // every return below counts the module's time
    PcSamplingSession& session;
    Clock::time_point t0;
    ~Count() {
      session.modules_s_ += seconds_since(t0);
      ++session.modules_;
    }
  } count{*this, t0};
  if (module.cubin && module.cubin_size > 0) {
    try {
      const std::uint64_t crc = backend_.cubin_crc(module.cubin, module.cubin_size);
      if (!cubins_.count(crc)) {
        if (cubin_bytes_ + module.cubin_size <= kCubinBytesKept) {
          const auto* bytes = static_cast<const std::uint8_t*>(module.cubin);
          cubins_.emplace(crc, std::vector<std::uint8_t>(bytes, bytes + module.cubin_size));
          cubin_bytes_ += module.cubin_size;
        } else {
          ++cubins_not_kept_;
          crcs_not_kept_.insert(crc);
        }
      }
    } catch (const std::exception& e) {
      ++cubins_not_kept_;
      ++modules_unread_;
      LIMITER_TRACE("no CRC for module %u: %s", module.module_id, e.what());
    }
  } else {
    ++modules_unread_;  // its kernels' CRCs cannot be told from those of modules loaded before
  }
  // Sampling from the context's first module on (once its phase began: before, the cubin is only
  // kept); a module loaded again asks for a flush first.
  const auto it = contexts_.find(module.context);
  if (it == contexts_.end()) {
    if (active() && began_ && module.context) sample(module.context);
    return;
  }
  if (!it->second.failed) {
    try {
      drain(module.context, it->second);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "limiter: PC sampling: %s\n", e.what());
    }
  }
}

void PcSamplingSession::on_context_destroy(CUcontext context) {
  std::lock_guard lock(mutex_);
  finish_context(context);
  contexts_.erase(context);
}

void PcSamplingSession::take(const PcBatch& batch, const StallKeys& keys) {
  aggregator_.add(batch, keys);
  samples_.store(aggregator_.samples(), std::memory_order_relaxed);
}

void PcSamplingSession::drain(CUcontext context, Context& state) {
  // Bounded: CUPTI's count of what it still holds goes down with every call.
  for (int calls = 0; calls < 1000; ++calls) {
    const auto t0 = Clock::now();
    PcBatch batch = backend_.get_data(context);
    get_data_s_ += seconds_since(t0);
    ++get_data_calls_;
    take(batch, state.keys);
    LIMITER_TRACE("PC sampling GetData: %zu PCs, %zu remaining, %llu samples, %llu dropped%s", batch.pcs.size(),
                  batch.remaining_pcs, static_cast<unsigned long long>(batch.total_samples),
                  static_cast<unsigned long long>(batch.dropped_samples),
                  batch.hardware_buffer_full ? ", hardware buffer full" : "");
    if (batch.remaining_pcs == 0 || batch.hardware_buffer_full) break;
  }
  last_drain_ = Clock::now();
}

void PcSamplingSession::drain_all() {
  for (auto& [context, state] : contexts_) {
    if (state.failed) continue;
    try {
      drain(context, state);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "limiter: PC sampling: %s\n", e.what());
    }
  }
}

void PcSamplingSession::finish_context(CUcontext context) noexcept {
  const auto it = contexts_.find(context);
  if (it == contexts_.end() || it->second.failed) return;
  Context& state = it->second;
  try {
    if (state.started) backend_.stop(context);
    state.started = false;
    drain(context, state);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "limiter: PC sampling: the last samples of a context were lost: %s\n", e.what());
  }
  // Disable hands over what CUPTI still decoded from the hardware as it tore down.
  try {
    take(backend_.disable(context), state.keys);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "limiter: PC sampling: %s\n", e.what());
  }
  state.failed = "finished";
}

void PcSamplingSession::finish_all() noexcept {
  std::lock_guard lock(mutex_);
  if (finished_) return;
  const auto t0 = Clock::now();
  for (auto& entry : contexts_) finish_context(entry.first);
  finish_s_ = seconds_since(t0);
  LIMITER_TRACE("PC sampling finished: Stop, flush and Disable of %zu contexts in %.1f ms", contexts_.size(),
                finish_s_ * 1e3);
  for (auto& [device, turn] : sampling_turns_) turn->release();
  finished_ = true;
}

void PcSamplingSession::flush() {
  std::lock_guard lock(mutex_);
  if (!finished_) drain_all();
}

bool PcSamplingSession::flush_before_exit(std::chrono::milliseconds) noexcept {
  finish_all();
  return true;
}

void PcSamplingSession::begin_after(RunRecord before, bool follows) {
  before_ = std::move(before);
  began_ = follows;
}

std::optional<SourceLine> PcSamplingSession::line_of(const std::string& function, std::uint64_t crc,
                                                     std::uint64_t pc) const {
  const auto cubin = cubins_.find(crc);
  if (cubin == cubins_.end()) return std::nullopt;
  try {
    return backend_.source_line(cubin->second, function, pc);
  } catch (const std::exception& e) {
    LIMITER_TRACE("no source line for %s+0x%llx: %s", function.c_str(), static_cast<unsigned long long>(pc), e.what());
    return std::nullopt;
  }
}

StallInfo PcSamplingSession::stalls() const {
  // Once finished nothing changes the samples or the cubins (every entry point returns), and the
  // lines are read off the app's thread (complete_record()): not under the lock its launches' EXIT take.
  std::unique_lock lock(mutex_, std::defer_lock);
  if (!finished_) lock.lock();
  StallInfo info = aggregator_.info(
      [](const std::string& mangled) { return demangle(mangled.c_str()); },
      [this](const std::string& function, std::uint64_t crc, std::uint64_t pc) { return line_of(function, crc, pc); });
  info.sample_period_cycles = settings_.period_log2 > 0 ? std::uint64_t(1) << settings_.period_log2 : 0;
  for (auto& kernel : info.kernels) {  // said, so a report can say why its hot PCs have no SASS
    if (cubins_.count(kernel.cubin_crc)) continue;
    kernel.no_cubin = crcs_not_kept_.count(kernel.cubin_crc) ? kNoCubinNotKept
                      : modules_unread_ > 0                  ? kNoCubinUnread
                                                             : kNoCubinLoadedBefore;
  }
  return info;
}

RunRecord PcSamplingSession::finish() noexcept {
  finish_all();
  RunRecord run = std::move(before_);
  if (!began_) {  // a later phase the app never reached: no samples, not even an empty set
    release_cubins();
    return run;
  }
  if (phase_.window.count() > 0 && !ever_started_) {  // the default run's window sampled nothing: no empty set
    for (auto& missed : missed()) run.missed.push_back(std::move(missed));
    run.launches_seen = run.launches_seen.value_or(0) + launches_seen_;
    if (run.source.empty()) run.source = "cupti";
    release_cubins();
    return run;
  }
  // Alone (--stalls) a record of samples; the default run's first phase, of a record with counters.
  if (run.source.empty()) run.source = phase_.window.count() > 0 ? "cupti" : "cupti-pc-sampling";
  if (device_) run.device = *device_;
  run.launches_seen = run.launches_seen.value_or(0) + launches_seen_;
  for (auto& missed : missed()) run.missed.push_back(std::move(missed));
  if (phase_.window.count() > 0) {  // the default run's window: complete_record() adds them, off the app's thread
    stalls_due_ = true;
    return run;
  }
  add_stalls(run);
  return run;
}

std::vector<MissedLaunches> PcSamplingSession::missed() const {
  // May run in a fatal signal's handler (the default run's record): gives up rather than wait.
  std::unique_lock lock(mutex_, std::defer_lock);
  const auto deadline = Clock::now() + std::chrono::milliseconds(200);
  while (!lock.try_lock()) {
    if (Clock::now() >= deadline) return {};
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (launches_unsampled_ == 0) return {};
  return {{"PC sampling could not start: " + first_error_, launches_unsampled_, first_fix_}};
}

std::string PcSamplingSession::timings() const {
  std::lock_guard lock(mutex_);
  std::string text = "PC sampling: set-up " + milliseconds(setup_s_) + " (" + std::to_string(contexts_.size()) +
                     " contexts), " + std::to_string(get_data_calls_) + " GetData calls " + milliseconds(get_data_s_) +
                     ", source lines " + milliseconds(lines_s_) + ", " + std::to_string(modules_) + " module loads " +
                     milliseconds(modules_s_) + ", the end (Stop, flush, Disable) " + milliseconds(finish_s_) + "\n";
  text +=
      "  " + std::to_string(aggregator_.samples()) + " samples in " + std::to_string(aggregator_.kernels()) +
      " kernels, " + std::to_string(aggregator_.dropped_samples()) + " dropped, hardware buffer full " +
      std::to_string(aggregator_.hardware_buffer_full()) + " times, " + std::to_string(aggregator_.non_user_samples()) +
      " in the driver's kernels, " + std::to_string(aggregator_.unkeyed_samples()) + " without a stall reason; " +
      std::to_string(aggregator_.not_issued_samples()) + " of the samples also not issued (a subset, not added); " +
      "period 2^" + std::to_string(settings_.period_log2) + " cycles; " +
      std::to_string(std::max(cubins_.size(), cubins_kept_)) + " cubins kept (" + std::to_string(cubin_bytes_ >> 10) +
      " KiB" + (cubins_kept_ ? ", freed after the window" : "") + "), " + std::to_string(cubins_not_kept_) + " not\n";
  return text;
}

}  // namespace limiter::detail
