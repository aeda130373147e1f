// The reports of real programs (tests/data/real_programs.txt): the grouped text report fits
// one screenful of 150 lines, every kernel is told apart by its name, and the output is golden.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "limiter/reports.hpp"
#include "limiter/run_summary.hpp"
#include "test_data.hpp"

namespace limiter {
namespace {

using testing::kData;

struct RealProgram {
  std::string record, stem;
};

void PrintTo(const RealProgram& program, std::ostream* out) { *out << program.record; }

std::vector<RealProgram> real_programs() {
  // The macro, not kData: this runs while tests are registered, before other statics are set.
  std::ifstream in(std::string(LIMITER_TEST_DATA_DIR) + "/real_programs.txt");
  std::vector<RealProgram> programs;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    RealProgram program;
    fields >> program.record >> program.stem;
    programs.push_back(program);
  }
  return programs;
}

class RealPrograms : public ::testing::TestWithParam<RealProgram> {};

RunSummary summary_of(const RealProgram& program) {
  SummaryOptions options;
  options.keep_launches_up_to = 10000;  // as limiter report does for its automatic view
  return summarize_run_file(kData + "/" + program.record, {}, options);
}

TEST_P(RealPrograms, GroupedTextReportFitsAScreenAndIsGolden) {
  const RunSummary summary = summary_of(GetParam());
  ASSERT_TRUE(summary.has_repeated_launches()) << "a real program repeats its kernels";
  std::ostringstream out;
  write_text_report(summary, out);
  const std::string text = out.str();
  EXPECT_LE(std::count(text.begin(), text.end(), '\n'), 150) << text;
  testing::expect_golden(GetParam().stem + "_report.txt", text);
}

TEST_P(RealPrograms, EveryKernelIsToldApartByItsName) {
  const RunSummary summary = summary_of(GetParam());
  std::set<std::string> names, shown;
  for (const auto& group : summary.groups) {
    names.insert(group.name);
    shown.insert(group.display_name);
    EXPECT_FALSE(group.display_name.empty());
    EXPECT_NE(group.display_name.find(kernel_base_name(group.name)), std::string::npos) << group.display_name;
  }
  EXPECT_EQ(shown.size(), names.size());
}

std::string stem_of(const ::testing::TestParamInfo<RealProgram>& program) { return program.param.stem; }

INSTANTIATE_TEST_SUITE_P(Recorded, RealPrograms, ::testing::ValuesIn(real_programs()), stem_of);

}  // namespace
}  // namespace limiter
