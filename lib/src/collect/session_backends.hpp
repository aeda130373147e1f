#pragma once
// Where the sessions' CUPTI and driver calls go, one backend per kind of session: CUPTI's in a run
// (cupti_backends), fakes in unit tests. sessions_for (modes.hpp) takes them from here, so a test
// builds a mode's phase list through the same path a run does, as kineto registers its mock
// profiler through the real factory.
#include <memory>

#include "collect/cupti/activity_backend.hpp"
#include "collect/pc_sampling/pc_sampling_backend.hpp"
#include "collect/pm_sampling/pm_sampling_backend.hpp"
#include "collect/range/range_backend.hpp"

namespace limiter::detail {

class SessionBackends {
 public:
  virtual ~SessionBackends() = default;
  // The Range Profiler, for every exact session of the collector; outlives them.
  virtual RangeBackend& range() = 0;
  // PM sampling and the Activity API: process-wide in CUPTI (one buffer client at a time).
  virtual PmSamplingBackend& pm_sampling() = 0;
  virtual ActivityBackend& activity() = 0;
  // PC sampling: one per session, which owns it (its buffers and its sampled contexts).
  virtual std::unique_ptr<PcSamplingBackend> pc_sampling() = 0;
};

// CUPTI's: no CUPTI or driver call until a session makes one.
std::unique_ptr<SessionBackends> cupti_backends();

}  // namespace limiter::detail
