#pragma once
// The hand-over to an exact phase, the orchestrator's phase rule (phases.hpp, docs/design.md §4):
// the RangeSession knows nothing of the phase before it. Before the exact phase begins, the record
// handed over is analysed here: the kernels that a PM-sampling phase's samples judged are left out
// of the exact phase's selection (RangeSession::exclude_from_selection). When the exact phase
// ends, its plain record joins the one handed over: its launches join their kernels' aggregates,
// its missed launches and launch count add up. --timing says what the hand-over found and cost.
// Sampling first, then exact: the other order leaves the samples blind to the SMs (after any
// range-profiler session in the process the PM samples count no SM-side work: H100, CUPTI 13.0,
// bench/results/2026-11-25-hybrid-sm-side-and-rounds.md).
#include <memory>
#include <optional>
#include <string>

#include "collect/phases.hpp"
#include "limiter/collector_options.hpp"

namespace limiter::detail {

class PmSamplingSession;
class RangeSession;

class ExactHandover final : public PhaseHandover {
 public:
  // EXACT_OPTIONS: the exact phase's (its budget, its cache control).
  ExactHandover(RangeSession& exact, const CollectorOptions& exact_options);
  void begin(RunRecord before, bool follows) override;
  RunRecord join(RunRecord exact) override;
  std::string timings() const override { return text_; }

 private:
  RangeSession& exact_;
  CollectorOptions options_;
  std::optional<RunRecord> before_;
  bool follows_ = false;
  std::string text_;
};

// --sampling --exact-undecided-count N as a phase list: SAMPLER for sampling_phase_launches
// launches, then EXACT on the kernels its samples left undecided (EXACT_OPTIONS: its budget of N
// launches each). The exact phase's device is prepared off the app's thread while the sampler
// runs, from the sampled context on: its set-up does not land on the app's thread at the hand-over.
PhaseList sampling_then_exact(std::unique_ptr<PmSamplingSession> sampler, std::unique_ptr<RangeSession> exact,
                              const CollectorOptions& exact_options);

}  // namespace limiter::detail
