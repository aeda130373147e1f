#pragma once
// Reading a run from the command line: a run record, or an Nsight Compute CSV imported on the fly.
#include <string>

#include "limiter/record.hpp"

namespace limiter::cli {

RunRecord load_run(const std::string& path);

}  // namespace limiter::cli
