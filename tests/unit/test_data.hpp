#pragma once
// Shared by the unit tests: the committed recordings and golden files under tests/data/.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "limiter/analysis.hpp"
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
  EXPECT_EQ(actual, expected.str()) << "rendering of " << name << " changed: regenerate with LIMITER_UPDATE_GOLDEN=1 "
                                       "if intended";
}

}  // namespace limiter::testing
