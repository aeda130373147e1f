#pragma once
// Shared by the compare tests (compare_matching_test.cpp, compare_output_test.cpp,
// compare_selection_test.cpp): the H200 probe against a copy in which local_array_2k takes 25 %
// longer for the same work (tests/data/compare/scale_ncu_raw.py), and runs made by hand.
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "limiter/analysis.hpp"
#include "limiter/compare.hpp"
#include "limiter/import.hpp"
#include "limiter/reports.hpp"

namespace limiter::compare_fixtures {

inline const std::string kData = LIMITER_TEST_DATA_DIR;
inline const std::string kProbe = "ncu/h200_probe_raw.csv";
inline const std::string kProbeSlower = "compare/h200_probe_local_array_slower.csv";

inline RunAnalysis analysis_of(const std::string& relative_path) {
  std::ifstream in(kData + "/" + relative_path, std::ios::binary);
  return analyze_run(import_ncu_csv(in, relative_path));
}

inline RunComparison compare_files(const std::string& before, const std::string& after,
                                   std::optional<double> max_slowdown = {}) {
  CompareOptions options;
  options.before_label = before;
  options.after_label = after;
  options.max_slowdown = max_slowdown;
  return compare_runs(analysis_of(before), analysis_of(after), options);
}

inline std::string rendered(const RunComparison& comparison, ReportFormat format) {
  std::ostringstream out;
  write_comparison(comparison, format, out);
  return out.str();
}

inline KernelAnalysis launch(const std::string& name, std::uint32_t grid_x, std::optional<double> duration_ns,
                             std::optional<Verdict> verdict = Verdict::bandwidth) {
  KernelAnalysis k;  // run_of() numbers the launches
  k.name = name;
  k.grid = {grid_x, 1, 1};
  k.block = {256, 1, 1};
  k.duration_ns = duration_ns;
  k.verdict = verdict;
  return k;
}

inline RunAnalysis run_of(std::vector<KernelAnalysis> kernels) {
  RunAnalysis run;
  for (std::size_t i = 0; i < kernels.size(); ++i) kernels[i].sequence = i;
  run.kernels = std::move(kernels);
  return run;
}

// --launches: a row per launch.
inline const CompareOptions kLaunchRows{"before", "after", std::nullopt, true};

}  // namespace limiter::compare_fixtures
