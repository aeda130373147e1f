// The sizes of a comparison's reports on committed records: Markdown within a pull-request
// comment's 65,536 characters however many kernels differ, and the HTML of 10,071 launches a
// side under 1 MB, with rows per kernel and with rows per launch.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "limiter/analysis.hpp"
#include "limiter/compare.hpp"
#include "limiter/record_json.hpp"
#include "limiter/reports.hpp"

namespace limiter {
namespace {

const std::string kData = LIMITER_TEST_DATA_DIR;
const std::string kMlp = "cupti/h100_mlp_training_limiter.json.gz";  // 10,071 launches of PyTorch
const std::string kOther = "synthetic/pytorch_jax_2k.json.gz";       // another program

ComparedRun compared(const std::string& relative_path) {
  const RunRecord record = read_run_file(kData + "/" + relative_path);
  ComparedRun run = compared_run(analyze_run(record));
  add_record_fields(run, record);
  return run;
}

std::string rendered(const RunComparison& comparison, ReportFormat format, const ComparisonOptions& options) {
  std::ostringstream out;
  write_comparison(comparison, format, out, options);
  return out.str();
}

// Every kernel shown by its full name: what makes a comment longest.
ComparisonOptions whole_names(const RunComparison& comparison, std::size_t top) {
  ComparisonOptions options;
  options.top = top;
  for (const auto& k : comparison.matched) options.names.emplace(k.before.name, k.before.name);
  for (const auto* side : {&comparison.only_before, &comparison.only_after})
    for (const auto& k : *side) options.names.emplace(k.first.name, k.first.name);
  return options;
}

TEST(CompareSizes, MarkdownFitsAPullRequestComment) {
  const auto comparison = compare_runs(compared(kMlp), compared(kOther), {"before", "after", std::nullopt, true});
  ASSERT_GT(comparison.only_before.size(), 5'000u) << "launch rows: most launches of the MLP are only before";
  const std::string md = rendered(comparison, ReportFormat::md, whole_names(comparison, 0));
  EXPECT_LT(md.size(), kMarkdownCommentLimit);
  EXPECT_NE(
      md.find("more rows left out to stay under a pull-request comment's 65,536 characters; `--top N` shows N rows"),
      std::string::npos);
  // Without the limit (--top given), every row.
  auto unlimited = whole_names(comparison, 0);
  unlimited.markdown_limit = 0;
  EXPECT_GT(rendered(comparison, ReportFormat::md, unlimited).size(), kMarkdownCommentLimit);
}

TEST(CompareSizes, TopTrimsEveryList) {
  const auto comparison = compare_runs(compared(kMlp), compared(kOther), {"before", "after", std::nullopt, true});
  const std::string text = rendered(comparison, ReportFormat::text, whole_names(comparison, 20));
  EXPECT_LT(std::count(text.begin(), text.end(), '\n'), 120);
  EXPECT_NE(text.find(" more not shown (--top 0 shows all)"), std::string::npos);
}

TEST(CompareSizes, HtmlOfTenThousandLaunchesStaysUnderAMegabyte) {
  const auto before = compared(kMlp);
  ASSERT_EQ(before.launches.size(), 10'071u);
  ComparisonOptions options;
  options.top = kDefaultTop;
  EXPECT_LT(rendered(compare_runs(before, compared(kMlp)), ReportFormat::html, options).size(), 1'000'000u);
  EXPECT_LT(rendered(compare_runs(before, compared(kMlp), {"before", "after", std::nullopt, true}), ReportFormat::html,
                     options)
                .size(),
            1'000'000u);
  EXPECT_LT(rendered(compare_runs(before, compared(kOther), {"before", "after", std::nullopt, true}),
                     ReportFormat::html, options)
                .size(),
            1'000'000u);
}

}  // namespace
}  // namespace limiter
