// The hand-over to an exact phase (handover.hpp).
#include "collect/handover.hpp"

#include <cinttypes>
#include <cstdio>

#include "collect/clock.hpp"
#include "collect/pm_sampling/pm_sampling_session.hpp"
#include "collect/range/range_session.hpp"
#include "collect/trace.hpp"
#include "limiter/analysis.hpp"
#include "limiter/sampling.hpp"

namespace limiter::detail {

ExactHandover::ExactHandover(RangeSession& exact, const CollectorOptions& exact_options)
    : exact_(exact), options_(exact_options) {}

// The kernels the samples judged are done with; the next launches of the others (and of any
// kernel new from now on) are profiled exactly.
void ExactHandover::begin(RunRecord before, bool follows) {
  const auto started = Clock::now();
  std::vector<std::pair<std::string, std::string>> judged;
  std::size_t undecided = 0;
  const bool after_pm_samples = before.sampling.has_value() || before.source == "cupti-pm-sampling";
  if (follows && after_pm_samples) {  // PC samples (the default run's window) judge no kernel
    try {
      for (const auto& k : analyze_run(before, {}).kernels) {
        if (k.verdict && !k.too_few_samples)
          judged.emplace_back(k.name, LaunchSelector::configuration_text(k.grid, k.block));
        else
          ++undecided;
      }
    } catch (const std::exception& e) {  // every kernel is then profiled exactly
      std::fprintf(stderr, "limiter: the sampled phase could not be analysed (%s): every kernel is profiled exactly\n",
                   e.what());
      judged.clear();
    }
  }
  const std::size_t judged_count = judged.size();
  exact_.exclude_from_selection(std::move(judged));
  const std::uint64_t sampled_launches = before.launches_seen.value_or(0);
  if (!follows) {
    if (after_pm_samples)  // the default run's PC-sampling window: its phase windows say it
      before.missed.push_back({"the exact phase never began: the app ended after " + std::to_string(sampled_launches) +
                                   " launches, within the sampling phase of " +
                                   std::to_string(options_.sampling_phase_launches) +
                                   " (the record holds the samples only)",
                               0, "a smaller --sampling-phase"});
  } else if (!after_pm_samples) {  // the default run: PC samples judge no kernel
    text_ = "PC-sampling window over after " + std::to_string(sampled_launches) +
            " launches: each kernel's next launches exactly\n";
  } else {
    char text[320];
    std::snprintf(text, sizeof text,
                  "sampling phase over after %" PRIu64
                  " launches: %zu kernels judged by their samples; the next %" PRIu64
                  " launches of the other %zu (and of any new kernel) exactly; switch %.0f ms\n",
                  sampled_launches, judged_count, options_.per_kernel_count, undecided, seconds_since(started) * 1e3);
    text_ = text;
    LIMITER_TRACE("%s", text);
  }
  before_ = std::move(before);
  follows_ = follows;
  exact_.begin_after(RunRecord{}, follows);
}

// Sampling first: the exact launches join their kernels' aggregates.
RunRecord ExactHandover::join(RunRecord exact) {
  if (!before_) return exact;  // nothing was handed over
  RunRecord run = std::move(*before_);
  before_.reset();
  if (!follows_) return run;  // the exact phase never began
  if (run.sampling) run.sampling->exact_after_sampling = true;
  run.cache_control = exact.cache_control;
  run.kernels_seen = add_sampled_launches(std::move(exact.kernels_seen), run.launches);
  run.launches = join_exact_launches(std::move(run.launches), exact.launches);
  run.launches_seen = run.launches_seen.value_or(0) + exact.launches_seen.value_or(0);
  run.missed.insert(run.missed.end(), exact.missed.begin(), exact.missed.end());
  return run;
}

PhaseList sampling_then_exact(std::unique_ptr<PmSamplingSession> sampler, std::unique_ptr<RangeSession> exact,
                              const CollectorOptions& exact_options) {
  PhaseList list;
  exact->follows_a_phase();  // prepared ahead, but no profiler beside the sampler
  sampler->on_context_sampled = [exact = exact.get()](CUcontext context) { exact->prepare_ahead_of_phase(context); };
  list.handovers.push_back(nullptr);
  list.handovers.push_back(std::make_unique<ExactHandover>(*exact, exact_options));
  list.phases.push_back(std::move(sampler));
  list.phases.push_back(std::move(exact));
  return list;
}

}  // namespace limiter::detail
