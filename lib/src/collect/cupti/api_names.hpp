#pragma once
// CUPTI's names of the driver's and the runtime's API functions, by callback id
// (cuptiGetCallbackName), looked up once per domain: the activity session chooses the calls it
// traces by name and names their records.
#include <cstdint>
#include <string>
#include <vector>

namespace limiter::detail {

const std::vector<std::string>& driver_api_names();
// PyTorch, JAX and most apps call the runtime: its cudaLaunchKernel has an API record, the driver
// call inside it none (an H100 PyTorch run gave 4 driver records for 84 launches).
const std::vector<std::string>& runtime_api_names();

}  // namespace limiter::detail
