#pragma once
// Every session's backend faked (collect/session_backends.hpp), handed to sessions_for as a run
// hands CUPTI's: a test builds a mode's phase list through the real path and drives it as the
// subscriber does (Phases' events), without a GPU.
#include <memory>
#include <vector>

#include "collect/session_backends.hpp"
#include "fake_activity_backend.hpp"
#include "fake_pc_sampling_backend.hpp"
#include "fake_pm_sampling_backend.hpp"
#include "fake_range_backend.hpp"

namespace limiter::test {

class FakeBackends final : public detail::SessionBackends {
 public:
  FakeRangeBackend range_backend;
  FakePmSamplingBackend pm_backend;
  FakeActivityBackend activity_backend;
  // The PC sampling backends handed out, in order (each owned by its session).
  std::vector<FakePcSamplingBackend*> pc_backends;

  detail::RangeBackend& range() override { return range_backend; }
  detail::PmSamplingBackend& pm_sampling() override { return pm_backend; }
  detail::ActivityBackend& activity() override { return activity_backend; }
  std::unique_ptr<detail::PcSamplingBackend> pc_sampling() override {
    auto backend = std::make_unique<FakePcSamplingBackend>();
    pc_backends.push_back(backend.get());
    return backend;
  }
};

}  // namespace limiter::test
