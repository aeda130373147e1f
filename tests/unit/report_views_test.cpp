// Golden files of the views and selections on a real PyTorch recording (84 launches of 31
// kernels): every format in the grouped view, --launches, -k, --top and --names. After an
// intended change: LIMITER_UPDATE_GOLDEN=1 build/tests/limiter_unit_tests --gtest_filter='ReportViews*'
// and review the diff.
#include <gtest/gtest.h>

#include <sstream>

#include "limiter/reports.hpp"
#include "limiter/run_summary.hpp"
#include "test_data.hpp"

namespace limiter {
namespace {

using testing::expect_golden;
using testing::kData;

const std::string kPytorch = "/cupti/h200_pytorch_limiter.json";

std::string report(ReportFormat format, const ReportOptions& options = {}, const SummaryOptions& summary_options = {}) {
  std::ostringstream out;
  write_report(summarize_run_file(kData + kPytorch, {}, summary_options), format, out, options);
  return out.str();
}

ReportOptions top(std::size_t n, ReportView view = ReportView::automatic) {
  ReportOptions options;
  options.top = n;
  options.view = view;
  return options;
}

TEST(ReportViews, GroupedMarkdown) { expect_golden("h200_pytorch_report.md", report(ReportFormat::md)); }
TEST(ReportViews, GroupedHtml) { expect_golden("h200_pytorch_report.html", report(ReportFormat::html)); }
TEST(ReportViews, CsvTopLaunches) { expect_golden("h200_pytorch_top5.csv", report(ReportFormat::csv, top(5))); }
TEST(ReportViews, JsonTopLaunches) { expect_golden("h200_pytorch_top2.json", report(ReportFormat::json, top(2))); }
TEST(ReportViews, LaunchesTopTen) {
  expect_golden("h200_pytorch_launches_top10.txt", report(ReportFormat::text, top(10, ReportView::launches)));
}
TEST(ReportViews, TopFiveGroups) { expect_golden("h200_pytorch_top5.txt", report(ReportFormat::text, top(5))); }
TEST(ReportViews, KernelRegexWithDemangledNames) {
  SummaryOptions selection;
  selection.kernel_regex = "reduce_kernel|softmax";
  selection.names = NameStyle::demangled;
  expect_golden("h200_pytorch_k_reduce_demangled.txt", report(ReportFormat::text, {}, selection));
}
TEST(ReportViews, MangledNames) {
  SummaryOptions mangled;
  mangled.names = NameStyle::mangled;
  expect_golden("h200_pytorch_mangled_top5.md", report(ReportFormat::md, top(5), mangled));
}

TEST(ReportViews, SelectionKeepsSharesOfTheWholeRun) {
  SummaryOptions selection;
  selection.kernel_regex = "reduce_kernel";
  const RunSummary all = summarize_run_file(kData + kPytorch, {}, {});
  const RunSummary some = summarize_run_file(kData + kPytorch, {}, selection);
  EXPECT_EQ(some.launches, all.launches);
  EXPECT_DOUBLE_EQ(some.total_ns, all.total_ns);
  EXPECT_LT(some.selected_launches, all.selected_launches);
  for (const auto& group : some.groups) EXPECT_NE(group.name.find("reduce_kernel"), std::string::npos);
}

TEST(ReportViews, ManyLaunchesAreDroppedNotKeptAndTheViewIsGrouped) {
  SummaryOptions options;
  options.keep_launches_up_to = 10;
  const RunSummary summary = summarize_run_file(kData + kPytorch, {}, options);
  EXPECT_TRUE(summary.launches_dropped);
  EXPECT_TRUE(summary.run.kernels.empty());
  EXPECT_TRUE(ReportOptions{}.grouped(summary));
}

}  // namespace
}  // namespace limiter

namespace limiter {
namespace {

// The "11124void at::native::": whatever the widths, cells stay two spaces apart.
TEST(ReportViews, ColumnsNeverRunIntoEachOther) {
  RunAnalysis analysis = testing::analysis_of("ncu/h200_probe_raw.csv");
  for (auto& kernel : analysis.kernels) {
    kernel.sequence += 1000000;
    kernel.name = "void at::native::(anonymous namespace)::" + kernel.name;
  }
  ReportOptions options;
  options.view = ReportView::launches;
  std::ostringstream out;
  write_text_report(summarize(analysis), out, options);
  std::istringstream lines(out.str());
  std::string line;
  std::size_t rows = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("100000", 0) != 0) continue;
    ++rows;
    EXPECT_EQ(line.substr(7, 2), "  ") << line;  // seven-digit sequence, then the gap
  }
  EXPECT_EQ(rows, analysis.kernels.size());
}

}  // namespace
}  // namespace limiter

namespace limiter {
namespace {

// csv and json of millions of launches: the summary keeps none, the rows come from a second
// pass over the record. Both ways give the same bytes.
TEST(ReportViews, SecondPassRowsEqualKeptRows) {
  const std::string record = testing::kData + "/synthetic/pytorch_jax_2k.json.gz";
  for (std::size_t top : {std::size_t{0}, std::size_t{7}}) {
    for (ReportFormat format : {ReportFormat::csv, ReportFormat::json}) {
      ReportOptions options;
      options.top = top;
      std::ostringstream kept, streamed;
      write_report(summarize_run_file(record, {}, {}), format, kept, options);
      SummaryOptions none;
      none.keep_launches = false;
      none.longest_to_note = top;
      options.launch_rows = [&](const std::function<void(const KernelAnalysis&)>& row) {
        for_each_analysed_launch(record, {}, "", row);
      };
      write_report(summarize_run_file(record, {}, none), format, streamed, options);
      EXPECT_EQ(streamed.str(), kept.str()) << to_string(format) << " top " << top;
    }
  }
}

}  // namespace
}  // namespace limiter
