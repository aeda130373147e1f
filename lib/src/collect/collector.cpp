// The collector's public face (limiter/collector.hpp): the orchestrator built from the options,
// regions, flushes and the run it hands back. A forked child's calls do nothing of ours
// (forked_child.hpp): the launches and the record are the parent's.
#include "limiter/collector.hpp"

#include <cupti.h>

#include <cstdio>

#include "collect/cupti/driver_api.hpp"
#include "collect/forked_child.hpp"
#include "collect/modes.hpp"
#include "collect/orchestrator.hpp"
#include "collect/trace.hpp"
#include "limiter/error.hpp"

namespace limiter {

namespace {

// Checked once, here for the in-process API (limiter run checks before the app starts).
const CollectorOptions& validated(const CollectorOptions& options) {
  validate_collector_options(options);
  return options;
}

}  // namespace

namespace {

std::uint64_t cupti_now_ns() {
  std::uint64_t t = 0;
  return cuptiGetTimestamp(&t) == CUPTI_SUCCESS ? t : 0;
}

}  // namespace

Collector::Impl::Impl(const CollectorOptions& opts)
    : options(opts),
      backends(detail::cupti_backends()),
      phases(detail::sessions_for(options, *backends, nvtx, &sink), cupti_now_ns) {
  nvtx.set_process_scope(opts.nvtx_process_scope);
  phases.on_handover = [this](const RunRecord& handed) {
    if (sink.on_phase_over) sink.on_phase_over(handed);
  };
}

Collector::Impl::~Impl() { unsubscribe(); }

void Collector::Impl::switch_phase_if_over() {
  if (phases.last() || !phases.current_over()) return;
  std::lock_guard lock(switch_mutex_);
  if (phases.last() || !phases.current_over()) return;  // another thread's launch switched
  LIMITER_TRACE("phase %zu (%s) over: %s from now on", phases.index(), phases.current().name(),
                phases.at(phases.index() + 1).name());
  phases.advance();
}

RunRecord Collector::Impl::finish_phases() {
  RunRecord run = phases.finish();
  run.tool_version = tool_version();
  run.created_at = utc_timestamp();
  run.command_line = options.command_line;
  return run;
}

Collector::Collector(const CollectorOptions& options) : Collector(validated(options), AlreadyValidated{}) {}

Collector::Collector(const CollectorOptions& options, AlreadyValidated) : options_(options) {
  detail::set_tracing(options_.debug);
  detail::watch_for_fork();
  detail::driver_api();  // no driver: fail here, with the fix
  impl_ = std::make_unique<Impl>(options_);
  impl_->subscribe();
  try {
    impl_->phases.on_collector_started();
  } catch (...) {
    impl_->unsubscribe();
    throw;
  }
}

Collector::~Collector() {
  if (detail::in_forked_child_by_pid()) {
    // The parent's threads and context are not here: joining or stopping them would hang or
    // touch the parent's GPU state. The memory goes with the child.
    (void)impl_.release();
    return;
  }
  // Unsubscribed before the sessions go: no callback reaches a destroyed one.
  impl_->unsubscribe();
}

void Collector::start() {
  if (detail::in_forked_child_by_pid()) return;
  impl_->phases.begin_region();
}

void Collector::stop() noexcept {
  if (detail::in_forked_child_by_pid()) return;
  impl_->phases.end_region();
}

void Collector::flush() {
  if (detail::in_forked_child_by_pid()) return;
  impl_->phases.flush();
}

bool Collector::flush_before_exit(std::chrono::milliseconds wait) noexcept {
  if (detail::in_forked_child_by_pid()) return false;
  return impl_->phases.flush_before_exit(wait);
}

std::vector<MissedLaunches> Collector::missed() const {
  if (detail::in_forked_child_by_pid()) return {};
  return impl_->phases.missed();
}

std::uint64_t Collector::launches_seen() const {
  if (detail::in_forked_child_by_pid()) return 0;
  return impl_->phases.launches_seen();
}

std::vector<KernelSeen> Collector::kernels_seen() const {
  if (detail::in_forked_child_by_pid()) return {};
  return impl_->phases.kernels_seen();
}

void Collector::write_raw_files() {
  if (detail::in_forked_child_by_pid()) return;
  impl_->phases.write_raw_files();
}

std::vector<PhaseWindow> Collector::phase_windows() const {
  if (detail::in_forked_child_by_pid()) return {};
  // A phase that just ended may still be handing its record over (Phases::advance): what a
  // fatal signal's record holds of it is on disk once it has.
  if (!impl_->phases.wait_handed_over(std::chrono::seconds(2)))
    std::fprintf(stderr, "limiter: the ended phase's record was still being completed; its answers may be missing\n");
  return impl_->phases.windows();
}

std::string Collector::current_phase() const {
  if (detail::in_forked_child_by_pid()) return "";
  const auto windows = impl_->phases.windows();
  const std::size_t i = impl_->phases.index();
  return i < windows.size() ? windows[i].name : impl_->phases.at(i).name();
}

CollectorTimings Collector::timings() const {
  CollectorTimings times;
  if (detail::in_forked_child_by_pid()) return times;
  const auto windows = impl_->phases.windows();
  for (std::size_t i = 0; i <= impl_->phases.index() && i < impl_->phases.size(); ++i) {
    std::string text = impl_->phases.timings(i);
    if (i < windows.size()) {  // a run of several phases: each one's share of the app's time
      char window[160];
      std::snprintf(window, sizeof window, "%.3f s, %llu launches, ended: %s\n  ",
                    static_cast<double>(windows[i].duration_ns()) / 1e9,
                    static_cast<unsigned long long>(windows[i].launches),
                    windows[i].ended_by.empty() ? "running" : windows[i].ended_by.c_str());
      text = window + text;
    }
    times.parts.push_back({impl_->phases.at(i).name(), text});
  }
  for (std::size_t i = 0; i < impl_->phases.background_size(); ++i)
    times.parts.push_back(
        {std::string(impl_->phases.background(i).name()) + " (beside)", impl_->phases.background(i).timings()});
  return times;
}

std::string CollectorTimings::to_text() const {
  if (parts.size() == 1) return parts.front().text;
  std::string text;
  for (std::size_t i = 0; i < parts.size(); ++i)
    text += (i == 0 ? "" : "then ") + parts[i].session + " phase: " + parts[i].text;
  return text;
}

RunRecord Collector::take_run() {
  if (detail::in_forked_child_by_pid()) {  // the launches are the parent's, and so is the record
    RunRecord run;
    run.tool_version = tool_version();
    run.source = "cupti";
    run.created_at = utc_timestamp();
    run.command_line = options_.command_line;
    run.missed.push_back(
        {"this process was forked from the profiled one: profiling is off in a forked child (its "
         "parent's record holds the parent's launches)",
         0,
         "profile the child's own CUDA work in a process that starts CUDA itself (spawn, or "
         "fork and exec)"});
    return run;
  }
  return impl_->finish_phases();
}

detail::LaunchSink& Collector::impl_sink() { return impl_->sink; }

}  // namespace limiter
