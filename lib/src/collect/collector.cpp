// The collector's public face (limiter/collector.hpp): construction and subscription, regions,
// flushes, the run it hands back. The work is done in its rooms (collector_impl.hpp).
#include "limiter/collector.hpp"

#include <limits>
#include <thread>

#include "collect/collector_impl.hpp"
#include "collect/driver_api.hpp"
#include "collect/forked_child.hpp"
#include "collect/sampling_mode.hpp"
#include "limiter/error.hpp"
#include "limiter/metric_plans.hpp"
#include "limiter/record_json.hpp"

namespace limiter {

namespace detail {
extern thread_local bool holds_launch_lock;
}

namespace {

// The collector's lock for callers that may run in an exit or signal handler: waits at most
// WAIT for another thread's launch to finish, never for this thread's own (a signal that
// interrupted our launch callback); unlocked when it does not come.
std::unique_lock<std::mutex> lock_within(std::mutex& mutex, std::chrono::milliseconds wait) {
  std::unique_lock lock(mutex, std::defer_lock);
  if (detail::holds_launch_lock) return lock;
  const auto deadline = detail::Clock::now() + wait;
  while (!lock.try_lock() && detail::Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return lock;
}

constexpr std::chrono::milliseconds kReadWait{1000};

}  // namespace

namespace {

// Checked once, here for the in-process API (limiter run checks before the app starts). Sampling
// then exact: the exact phase is a budget of exact_undecided_count per kernel.
CollectorOptions exact_phase_options(CollectorOptions options) {
  validate_collector_options(options);
  detail::set_tracing(options.debug);
  if (options.sampling && options.exact_undecided_count > 0) options.per_kernel_count = options.exact_undecided_count;
  return options;
}

}  // namespace

Collector::Collector(const CollectorOptions& options) : impl_(std::make_unique<Impl>(exact_phase_options(options))) {
  detail::watch_for_fork();
  const bool budgets = impl_->selector.per_configuration();  // per-kernel count or skip (sampling first's too)
  if (options.sampling && !budgets) {  // no range profiler at all: the sampler and kernel timestamps instead
    sampling_ = std::make_unique<detail::SamplingMode>(options, &impl_->sink);
    return;
  }
  if (options.sampling) {
    // An exact phase and a sampler driven by its callbacks: each kernel's first launches exactly,
    // then sampling (budgets_then_sampling.cpp), or sampling first (sampling_then_exact.cpp).
    const bool sampling_first = options.exact_undecided_count > 0;
    impl_->options.sampling = false;
    impl_->options.keep_launches = true;  // until they join the sampler's aggregates
    sampling_ = std::make_unique<detail::SamplingMode>(options, &impl_->sink, /*after_budgets=*/true);
    impl_->sampling_after_budgets = sampling_.get();
    if (sampling_first) {
      sampling_->begin_before_exact();
      impl_->sampling_first = true;
      impl_->handed_to_sampling = true;
    }
  }
  impl_->metrics = options.metrics.empty() ? metric_plan(options.plan).metrics : options.metrics;
  impl_->lock_timeout = std::chrono::milliseconds(static_cast<std::int64_t>(options.lock_timeout_s * 1000.0));
  detail::driver_api();  // no driver: fail here, with the fix
  // After budgets, --save-raw keeps the samples only: the record itself holds the exact counters.
  impl_->raw_dir = options.sampling ? std::string() : options.raw_dir;
  if (!impl_->raw_dir.empty()) detail::open_raw_dir(impl_->raw_dir, impl_->raw_launches);
  subscribe_callbacks(*impl_);
}

Collector::~Collector() {
  if (detail::in_forked_child_by_pid()) {
    // The parent's threads and context are not here: joining or stopping them would hang or
    // touch the parent's GPU state. The memory goes with the child.
    (void)impl_.release();
    (void)sampling_.release();
    return;
  }
  // The exact mode's callbacks may reach the sampler after budgets: unsubscribed before it goes.
  if (impl_ && impl_->subscriber) stop_exact_mode();
  sampling_.reset();
}

void Collector::stop_exact_mode() {
  impl_->stopping = true;
  if (impl_->turn_keeper.joinable()) impl_->turn_keeper.join();
  {
    std::lock_guard lock(impl_->mutex);
    for (auto& [context, profiler] : impl_->contexts) {
      try {
        impl_->finish(*profiler);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "limiter: while stopping the profiler: %s\n", e.what());
      }
    }
  }
  cuptiUnsubscribe(impl_->subscriber);
  impl_->subscriber = nullptr;
}

void Collector::write_raw_files() {
  if (sampling_ || detail::in_forked_child_by_pid()) return;  // the sampler writes its samples as they come (after budgets: those only)
  std::lock_guard lock(impl_->mutex);
  for (auto& [context, profiler] : impl_->contexts) impl_->keep_raw_image(*profiler);
}

void Collector::Impl::begin_region() { ++active_depth; }

void Collector::Impl::end_region() {
  if (active_depth > 0) --active_depth;
  try {
    // A region's launches are in the record when it ends; with no region left open, the
    // profilers pause so that the app's other launches run at full speed.
    for (auto& [context, profiler] : contexts) {
      if (active()) flush_batch(*profiler);
      else pause(*profiler);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "limiter: profiling error at the end of a region: %s\n", e.what());
  }
}

void Collector::start() {
  if (detail::in_forked_child_by_pid()) return;
  if (sampling_) sampling_->begin_region();
  if (!impl_->subscriber) return;  // sampling alone
  std::lock_guard lock(impl_->mutex);
  impl_->begin_region();
}

void Collector::stop() noexcept {
  if (detail::in_forked_child_by_pid()) return;
  if (sampling_) sampling_->end_region();
  if (!impl_->subscriber) return;
  std::lock_guard lock(impl_->mutex);
  impl_->end_region();
}

void Collector::flush() {
  if (detail::in_forked_child_by_pid()) return;
  if (impl_->subscriber && !impl_->handed_to_sampling) impl_->flush_all();
}

bool Collector::flush_before_exit(std::chrono::milliseconds wait) noexcept {
  if (detail::in_forked_child_by_pid()) return false;
  if (sampling_) return true;  // take_run() stops the sampler and attributes what is left
  // A signal that interrupted this thread inside our own launch callback: the lock is ours
  // and the collector's state half-changed, so nothing more can be decoded.
  bool decoded = false;
  impl_->stopping = true;  // the turn keeper hands nothing over from now on
  {
    const auto lock = lock_within(impl_->mutex, wait);
    if (lock.owns_lock()) {
      decoded = true;
      for (auto& [context, profiler] : impl_->contexts) {
        try {
          impl_->flush_batch(*profiler, /*restart=*/false);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "limiter: the last launches could not be decoded: %s\n", e.what());
          decoded = false;
        }
        // Whatever is still pending (a failed decode) will not be.
        impl_->miss(detail::MissReason::process_ended, profiler->pending.size());
        profiler->pending.clear();
      }
      impl_->report_status(true);
      return decoded;
    }
  }
  std::fprintf(stderr, "limiter: the process ended inside a launch: its last batch (at most %zu launches) is lost\n",
               impl_->options.ranges_per_image ? impl_->options.ranges_per_image : detail::kDefaultRangesPerImage);
  return decoded;
}

// In a forked child the collector's lock may be held by a parent thread that is not here.
std::vector<MissedLaunches> Collector::missed() const {
  if (detail::in_forked_child_by_pid()) return {};
  const auto lock = lock_within(impl_->mutex, kReadWait);  // may be called from a signal handler
  return lock.owns_lock() ? impl_->missed : std::vector<MissedLaunches>{};
}

std::uint64_t Collector::launches_seen() const {
  if (detail::in_forked_child_by_pid()) return 0;
  const std::uint64_t sampled = sampling_ ? sampling_->launches_seen() : 0;
  if (!impl_->subscriber) return sampled;
  const auto lock = lock_within(impl_->mutex, kReadWait);
  return sampled + (lock.owns_lock() ? impl_->launches_seen : 0);
}

std::vector<KernelSeen> Collector::kernels_seen() const {
  if (detail::in_forked_child_by_pid()) return {};
  const auto lock = lock_within(impl_->mutex, kReadWait);  // may be called from a signal handler
  return lock.owns_lock() ? impl_->selector.kernels_seen() : std::vector<KernelSeen>{};
}

CollectorTimings Collector::timings() const {
  CollectorTimings times;
  if (detail::in_forked_child_by_pid()) return times;
  if (impl_->subscriber) {
    std::lock_guard lock(impl_->mutex);
    times = impl_->times;
  }
  if (sampling_) times.sampling = sampling_->timings_text();
  if (impl_->sampling_phase_ended) times.sampling_phase = impl_->sampling_phase_text;
  return times;
}

std::string CollectorTimings::to_text() const {
  if (!sampling.empty() && !sampling_phase.empty()) {  // sampling first, then the exact phase
    CollectorTimings exact = *this;
    exact.sampling.clear();
    exact.sampling_phase.clear();
    return sampling + sampling_phase + "then exact phase: " + exact.to_text();
  }
  if (!sampling.empty() && launches == 0 && unranged_launches == 0) return sampling;
  if (!sampling.empty()) {  // sampling after per-kernel budgets: the exact phase, then the sampler
    CollectorTimings exact = *this;
    exact.sampling.clear();
    return "exact phase: " + exact.to_text() + "then " + sampling;
  }
  const double per_launch = launches ? 1e6 / static_cast<double>(launches) : 0.0;
  const double total =
      metadata_s + launch_call_s + synchronize_s + stop_s + decode_s + evaluate_s + image_init_s + set_config_s + start_s;
  char text[1280];
  std::snprintf(text, sizeof text,
                "collector set-up %.0f ms; time per launch (%llu launches, %llu user-replay batches): %.1f us\n"
                "  metadata %.1f us, launch call with CUPTI's range work %.1f us (on the CPU %.1f us, %.2f blocking\n"
                "  waits), batch synchronise %.1f us,\n"
                "  Stop %.1f us, DecodeData %.1f us, evaluate %.1f us, image init %.1f us, SetConfig %.1f us, Start %.1f us\n"
                "  turns on the counters: waited %.0f ms, %llu yielded (%.0f ms), Enable %.0f ms, %llu busy retries\n"
                "  pauses after runs of unselected launches: %llu; unselected launches run unranged beside a\n"
                "  running profiler (user-range mode): %llu\n",
                set_up_s * 1e3, static_cast<unsigned long long>(launches), static_cast<unsigned long long>(batches),
                total * per_launch, metadata_s * per_launch, launch_call_s * per_launch, launch_call_cpu_s * per_launch,
                static_cast<double>(launch_call_switches) * per_launch * 1e-6, synchronize_s * per_launch,
                stop_s * per_launch, decode_s * per_launch, evaluate_s * per_launch, image_init_s * per_launch,
                set_config_s * per_launch, start_s * per_launch, turn_wait_s * 1e3, static_cast<unsigned long long>(turns_yielded), yield_s * 1e3,
                enable_s * 1e3, static_cast<unsigned long long>(busy_retries),
                static_cast<unsigned long long>(filter_pauses), static_cast<unsigned long long>(unranged_launches));
  std::string out = text;
  if (user_ranges > 0 || graph_nodes > 0) {
    // Beside the parts above: the user ranges' own work and the graph nodes run one at a time.
    const auto per = [](double seconds, std::uint64_t count) { return count ? seconds * 1e6 / static_cast<double>(count) : 0.0; };
    std::snprintf(text, sizeof text,
                  "  user ranges: %llu, push + pop %.1f us each, synchronise before pop %.1f us each; range-mode switches %llu\n"
                  "  graph nodes run one at a time: %llu, cuGraphNodeSetEnabled %.1f us and launch %.1f us per node\n",
                  static_cast<unsigned long long>(user_ranges), per(push_pop_s, user_ranges), per(range_sync_s, user_ranges),
                  static_cast<unsigned long long>(range_mode_switches), static_cast<unsigned long long>(graph_nodes),
                  per(graph_toggle_s, graph_nodes), per(graph_node_launch_s, graph_nodes));
    out += text;
  }
  return out;
}

RunRecord Collector::take_run() {
  if (detail::in_forked_child_by_pid()) {  // the launches are the parent's, and so is the record
    RunRecord run;
    run.tool_version = tool_version();
    run.source = "cupti";
    run.created_at = utc_timestamp();
    run.command_line = impl_->options.command_line;
    run.missed.push_back({"this process was forked from the profiled one: profiling is off in a forked child (its "
                          "parent's record holds the parent's launches)",
                          0, "profile the child's own CUDA work in a process that starts CUDA itself (spawn, or "
                          "fork and exec)"});
    return run;
  }
  if (sampling_ && impl_->sampling_first) {
    RunRecord run = impl_->sampling_then_exact_run();
    run.tool_version = tool_version();
    run.created_at = utc_timestamp();
    run.command_line = impl_->options.command_line;
    return run;
  }
  if (sampling_) {
    if (impl_->sampling_after_budgets) {  // budgets not spent yet: the exact launches join the record
      std::lock_guard lock(impl_->mutex);
      impl_->hand_over_to_sampling(/*sampling_follows=*/false);
    }
    RunRecord run = sampling_->finish();
    run.tool_version = tool_version();
    run.created_at = utc_timestamp();
    run.command_line = impl_->options.command_line;
    return run;
  }
  std::lock_guard lock(impl_->mutex);
  RunRecord run;
  run.tool_version = tool_version();
  run.source = "cupti";
  run.created_at = utc_timestamp();
  run.command_line = impl_->options.command_line;
  run.device = impl_->last_device;
  run.missed = impl_->missed;
  run.launches_seen = impl_->launches_seen;
  run.kernels_seen = impl_->selector.kernels_seen();
  run.launches = std::move(impl_->completed);
  impl_->completed.clear();
  return run;
}

detail::LaunchSink& Collector::impl_sink() { return impl_->sink; }

}  // namespace limiter
