#pragma once
// Offline re-evaluation of a raw data set (see collector_internal.hpp) through the CUPTI
// host API: no GPU needed, the chip name in meta.json is enough.
#include <string>

#include "limiter/record.hpp"

namespace limiter::detail {

// Every process folder under `dir` (or `dir` itself) becomes launches of one run, in order.
// Throws InputError naming the file when the set is incomplete or corrupt.
RunRecord evaluate_raw_dir(const std::string& dir);

}  // namespace limiter::detail
