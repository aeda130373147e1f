// `limiter run --sampling --exact-undecided K`: PM sampling first, then the exact mode for what
// the samples could not judge. The other order (budgets_then_sampling.cpp) leaves the samples
// blind to the SMs: after any range-profiler session in the process the PM samples count no
// SM-side work (H100, CUPTI 13.0, bench/results/2026-11-25-hybrid-sm-side-and-rounds.md),
// while the range profiler works after PM sampling. So the sampler has the launch callbacks for
// the first sampling_phase_launches launches; then the sampled record is analysed, its sampler
// and kernel timestamps are stopped, and this collector takes the callbacks over: the next K
// launches of each kernel and configuration the samples did not judge (and of any kernel new
// from then on) are profiled exactly, the rest only counted, and the profiler pauses as budgets
// do. At take_run() the exact launches join their kernels' sampled aggregates.
#include <cinttypes>

#include "collect/collector_impl.hpp"
#include "collect/sampling_mode.hpp"
#include "limiter/analysis.hpp"
#include "limiter/sampling.hpp"

namespace limiter {

using detail::Clock;
using detail::seconds_since;

bool Collector::Impl::sampling_phase_over() const {
  return sampling_first && !sampling_phase_ended && sampling_after_budgets->launches_seen() >= options.sampling_phase_launches;
}

void Collector::Impl::take_over_from_sampling() {
  if (sampling_phase_ended.exchange(true)) return;  // another thread's launch ended it
  const auto started = Clock::now();
  const RunRecord sampled = sampling_after_budgets->end_phase();
  std::vector<std::pair<std::string, std::string>> judged;
  std::size_t undecided = 0;
  try {
    for (const auto& k : analyze_run(sampled, {}).kernels) {
      if (k.verdict && !k.too_few_samples) judged.emplace_back(k.name, detail::LaunchSelector::configuration_text(k.grid, k.block));
      else ++undecided;
    }
  } catch (const std::exception& e) {  // every kernel is then profiled exactly
    std::fprintf(stderr, "limiter: the sampled phase could not be analysed (%s): every kernel is profiled exactly\n", e.what());
    judged.clear();
  }
  {
    std::lock_guard lock(mutex);
    selector.exclude(judged);
  }
  char text[320];
  std::snprintf(text, sizeof text,
                "sampling phase over after %" PRIu64 " launches: %zu kernels judged by their samples; the next %" PRIu64
                " launches of the other %zu (and of any new kernel) exactly; switch %.0f ms\n",
                sampling_after_budgets->launches_seen(), judged.size(), options.exact_undecided_count, undecided,
                seconds_since(started) * 1e3);
  sampling_phase_text = text;
  LIMITER_TRACE("%s", text);
  handed_to_sampling = false;
}

RunRecord Collector::Impl::sampling_then_exact_run() {
  if (!sampling_phase_ended) {
    RunRecord run = sampling_after_budgets->finish();
    run.missed.push_back({"the exact phase never began: the app ended after " +
                              std::to_string(sampling_after_budgets->launches_seen()) +
                              " launches, within the sampling phase of " + std::to_string(options.sampling_phase_launches) +
                              " (the record holds the samples only)",
                          0, "a smaller --sampling-phase"});
    return run;
  }
  std::lock_guard lock(mutex);
  for (auto& [context, profiler] : contexts) {
    try {
      finish(*profiler);
    } catch (const std::exception& e) {  // its launches are counted as missed, with the error
      std::fprintf(stderr, "limiter: the exact phase did not end cleanly: %s\n", e.what());
    }
  }
  RunRecord run = sampling_after_budgets->finish();
  if (run.sampling) run.sampling->exact_after_sampling = true;
  run.kernels_seen = add_sampled_launches(selector.kernels_seen(), run.launches);
  run.launches = join_exact_launches(std::move(run.launches), completed);
  completed.clear();
  run.launches_seen = run.launches_seen.value_or(0) + launches_seen;
  run.missed.insert(run.missed.end(), missed.begin(), missed.end());
  return run;
}

}  // namespace limiter
