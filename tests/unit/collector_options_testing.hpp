#pragma once
// What the tests of limiter run's options share: an example value for every row of the table of
// flags, and validate_collector_options's refusal as text.
#include <map>
#include <string>

#include "limiter/collector_options.hpp"
#include "limiter/error.hpp"

namespace limiter::test {

// The message validate_collector_options refuses OPTIONS with, "" when it accepts them.
inline std::string refusal(const CollectorOptions& options) {
  try {
    validate_collector_options(options);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// A value other than its default for every row, as its text (the form the row's codec writes
// back). The table's tests use it for each row; a row added without one fails them
// (run_flags_test.cpp).

inline const std::map<std::string, std::string>& run_flag_examples() {
  static const std::map<std::string, std::string> examples = {
      {"kernel-regex", "gemm|conv, \"quoted\""},
      {"launch-skip", "3"},
      {"launch-count", "7"},
      {"per-kernel-count", "4"},
      {"per-kernel-skip", "1"},
      {"every-launch", "1"},
      {"stall-window", "250"},
      {"nvtx-include", R"(["train/","regex:fw.*/"])"},
      {"nvtx-exclude", R"(["eval/"])"},
      {"budget-by-range", "1"},
      {"nvtx-push-pop-scope", "process"},
      {"no-nvtx", "1"},
      {"sample-every", "2"},
      {"plan", "sol"},
      {"metrics", "sm__cycles_elapsed.avg,dram__bytes_read.sum"},
      {"save-raw", "/tmp/raw dir"},
      {"replay", "kernel"},
      {"graph-profiling", "graph"},
      {"sampling", "1"},
      {"sampling-interval", "50"},
      {"exact-undecided", "2"},
      {"sampling-phase", "900"},
      {"trace", "1"},
      {"stalls", "1"},
      {"stall-period", "9"},
      {"cache-control", "all"},
      {"timeline", "1"},
      {"capture-range", "cudaProfilerApi"},
      {"lock-timeout", "2.5"},
      {"debug", "1"},
      {"lock-dir", "/var/tmp"},
      {"ranges-per-image", "8"},
      {"filter-ranges", "auto"},
      {"range-sync", "graph"},
      {"pm-buffer-mib", "64"},
      {"pm-raw-images", "1"},
      {"api-records", "0"},
      {"stall-window-samples", "1234"},
      {"command", R"js(["python3","-c","print('a b')"])js"},
      {"cubin-dir", "/tmp/cubins here"},
      {"always-active", "1"},
  };
  return examples;
}

}  // namespace limiter::test
