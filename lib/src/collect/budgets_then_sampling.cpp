// `limiter run --sampling --per-kernel-count K`: each kernel's first K launches (after the
// per-kernel skip) are profiled exactly, then PM sampling covers the rest of the run. The two
// cannot run at once (a context has one profiler), so the exact phase ends where a budget run
// would pause: after kPauseAfterUnselected launches in a row outside the budgets. Its profilers
// are finished (decoded, disabled, turn ended), and from then on the driver callbacks go to the
// sampler (driver_callbacks.cpp), which joins the exact launches to its aggregates
// (join_exact_launches). Sampling judges what the samples support; the exact launches judge
// the rest, and give every kernel its LMEM shares.
#include "collect/collector_impl.hpp"
#include "collect/sampling_mode.hpp"

namespace limiter {

void Collector::Impl::hand_over_to_sampling(bool sampling_follows) {
  if (!sampling_after_budgets || handed_to_sampling) return;
  LIMITER_TRACE("per-kernel budgets spent: exact phase over, %zu launches; sampling %s", completed.size(),
                sampling_follows ? "begins" : "never began");
  for (auto& [context, profiler] : contexts) {
    try {
      finish(*profiler);
    } catch (const std::exception& e) {  // its launches are counted as missed, with the error
      std::fprintf(stderr, "limiter: the exact phase did not end cleanly: %s\n", e.what());
    }
  }
  handed_to_sampling = true;
  sampling_after_budgets->begin_after_budgets(std::move(completed), missed, launches_seen, selector.kernels_seen(),
                                              sampling_follows);
  completed.clear();
}

}  // namespace limiter
