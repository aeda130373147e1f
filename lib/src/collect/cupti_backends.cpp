// The sessions' backends in a run (session_backends.hpp): CUPTI's and the driver's.
#include "collect/session_backends.hpp"

namespace limiter::detail {

namespace {

class CuptiBackends final : public SessionBackends {
 public:
  RangeBackend& range() override { return *range_; }
  PmSamplingBackend& pm_sampling() override { return cupti_pm_sampling_backend(); }
  ActivityBackend& activity() override { return cupti_activity_backend(); }
  std::unique_ptr<PcSamplingBackend> pc_sampling() override { return cupti_pc_sampling_backend(); }

 private:
  std::unique_ptr<RangeBackend> range_ = cupti_range_backend();
};

}  // namespace

std::unique_ptr<SessionBackends> cupti_backends() { return std::make_unique<CuptiBackends>(); }

}  // namespace limiter::detail
