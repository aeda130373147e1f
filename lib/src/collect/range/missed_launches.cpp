// What could not be profiled, by reason, with the fix: nothing is lost silently. The tally
// goes to the record (RunRecord::missed) and, through the sink, to the partial file as it
// changes, so a process that dies still leaves it behind.
#include "collect/range/range_session.hpp"

namespace limiter {
namespace {

struct ReasonText {
  const char* reason;
  const char* fix;
};

ReasonText text_of(detail::MissReason reason) {
  switch (reason) {
    case detail::MissReason::counters_busy:
      return {"the GPU's counters were held by another tool (CUPTI_ERROR_HARDWARE_BUSY)",
              "do not run Nsight Compute, Nsight Systems --gpu-metrics, DCGM profiling or another CUPTI profiler "
              "on this GPU at the same time (limiter's own processes take turns)"};
    case detail::MissReason::lock_timeout:
      return {"another limiter process kept this GPU's counters longer than LIMITER_LOCK_TIMEOUT",
              "raise LIMITER_LOCK_TIMEOUT (seconds), or profile fewer processes at once (-k, -c)"};
    case detail::MissReason::set_up_failed:
      return {"profiling could not start in this context", "the error in the reason names the fix"};
    case detail::MissReason::not_ranged:
      return {"CUPTI gave these launches no range (failed launches, or graph kernels CUPTI did not range)",
              "profile with --replay kernel, and report this with LIMITER_DEBUG=1 output"};
    case detail::MissReason::dropped:
      return {"CUPTI dropped their ranges: the counter-data image was full",
              "lower LIMITER_RANGES_PER_IMAGE, or report this with LIMITER_DEBUG=1 output"};
    case detail::MissReason::error:
      return {"a profiling error in the middle of a launch", "the error in the reason names the fix"};
    case detail::MissReason::graph_unknown:
      return {
          "graph launches of executable graphs instantiated before profiling began: their kernels are not known, "
          "so none of them was profiled",
          "instantiate the graph inside the profiled region (with limiter.profile() or Collector::start first), "
          "or profile the whole program with limiter run; for JAX, run the jitted function for the first time "
          "inside the region, or set XLA_FLAGS=--xla_gpu_enable_command_buffer= before JAX starts"};
    case detail::MissReason::process_ended:
      return {"the process ended before their batch was decoded",
              "let the app end normally or synchronise before it is killed (limiter decodes at every "
              "synchronisation, in the default run's counters phase once a batch is a second old, and at least "
              "once a second while the app launches)"};
  }
  return {"unknown", ""};
}

// How often the tally is written while it keeps changing (a busy GPU misses every launch).
constexpr auto kReportInterval = std::chrono::milliseconds(100);

}  // namespace

void detail::RangeSession::miss(detail::MissReason reason, std::uint64_t launches, const std::string& detail) {
  if (launches == 0) return;
  const ReasonText text = text_of(reason);
  std::string why = text.reason;
  if (!detail.empty()) why += ": " + detail;
  bool new_reason = true;
  for (auto& entry : missed_) {
    if (entry.reason == why) {
      entry.launches += launches;
      new_reason = false;
      break;
    }
  }
  if (new_reason) {
    missed_.push_back({why, launches, text.fix});
    std::fprintf(stderr, "limiter: warning: launches not profiled: %s (fix: %s)\n", why.c_str(), text.fix);
  }
  missed_changed = true;
  report_status(new_reason);
}

void detail::RangeSession::report_status(bool force) {
  if ((!missed_changed && launches_seen_ == launches_seen_reported) || !sink || !sink->on_status) return;
  const auto now = detail::Clock::now();
  if (!force && now - status_reported < kReportInterval) return;
  sink->on_status(missed_, launches_seen_);
  status_reported = now;
  missed_changed = false;
  launches_seen_reported = launches_seen_;
}

}  // namespace limiter
