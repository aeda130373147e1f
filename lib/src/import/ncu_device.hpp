#pragma once
// The launch and device fields of an Nsight Compute CSV import, from the metrics read
// (launch__*, device__attribute_*) and the descriptive columns.
#include <string>
#include <vector>

#include "import/ncu_launch.hpp"
#include "limiter/record.hpp"

namespace limiter::detail::ncu {

// Grid, block, registers, shared memory, stream, context and device of the launch, where its
// columns did not give them.
void fill_launch_fields(PendingLaunch& pending, const std::string& origin);
// The device, from the first launch (the clocks averaged over all).
DeviceDescription describe_device(const std::vector<PendingLaunch>& launches, const std::string& origin);

}  // namespace limiter::detail::ncu
