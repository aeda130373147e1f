#pragma once
// The CUPTI Profiler Host API as the CLI uses it, offline and without a GPU: a chip's metrics and
// pass counts (limiter metrics) and the evaluation of saved counter images (limiter analyze).
// In limiter::cupti_host, built only with the CUDA toolkit (LIMITER_CUPTI_HOST); no CUPTI type here.
#include <cstddef>
#include <string>
#include <vector>

#include "limiter/record.hpp"

namespace limiter {

// The passes the range profiler needs for METRICS on CHIP ("GH100"; 0 for no metric). An unknown
// metric is an InputError naming it and close matches; an unknown chip lists the known ones.
std::size_t metric_pass_count(const std::string& chip, const std::vector<std::string>& metrics);

// CHIP's counters, ratios and throughputs.
std::vector<std::string> chip_base_metrics(const std::string& chip);

// A raw data folder (limiter run --save-raw DIR) evaluated into a run: every process folder under
// DIR (or DIR itself) becomes launches of one run. InputError names a file missing or corrupt.
RunRecord evaluate_raw_dir(const std::string& dir);

}  // namespace limiter
