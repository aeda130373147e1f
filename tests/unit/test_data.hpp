#pragma once
// Shared by the unit tests: the committed recordings and golden files under tests/data/.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "limiter/analysis.hpp"
#include "limiter/error.hpp"
#include "limiter/import.hpp"

namespace limiter::testing {

inline const std::string kData = LIMITER_TEST_DATA_DIR;

// An ncu CSV under tests/data/, imported and analysed with the default options.
inline RunAnalysis analysis_of(const std::string& relative_path) {
  std::ifstream in(kData + "/" + relative_path, std::ios::binary);
  return analyze_run(import_ncu_csv(in, relative_path.substr(relative_path.rfind('/') + 1)));
}

// Compares with tests/data/golden/NAME byte for byte. After an intended change, regenerate
// with LIMITER_UPDATE_GOLDEN=1 and review the diff.
inline void expect_golden(const std::string& name, const std::string& actual) {
  const std::string path = kData + "/golden/" + name;
  if (std::getenv("LIMITER_UPDATE_GOLDEN")) {
    std::ofstream(path, std::ios::binary) << actual;
    GTEST_SKIP() << "rewrote " << path;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "missing golden file " << path << " (set LIMITER_UPDATE_GOLDEN=1 to create it)";
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(actual, expected.str()) << "rendering of " << name
                                    << " changed: regenerate with LIMITER_UPDATE_GOLDEN=1 "
                                       "if intended";
}

// Every run record committed under tests/data/ (the malformed ones left out), read by READ
// (read_run_file, read_run_header): its path and what READ gave. Files that are no run record
// (ncu exports, golden reports) are skipped.
template <class Read>
std::vector<std::pair<std::string, RunRecord>> committed_run_records(Read read) {
  std::vector<std::pair<std::string, RunRecord>> records;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kData)) {
    const std::string path = entry.path().string();
    if (!entry.is_regular_file() || path.find("/malformed/") != std::string::npos) continue;
    if (!path.ends_with(".json") && !path.ends_with(".json.gz")) continue;
    try {
      records.emplace_back(path, read(path));
    } catch (const InputError&) {
    }
  }
  return records;
}

}  // namespace limiter::testing
