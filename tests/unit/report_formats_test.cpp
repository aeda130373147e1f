// The roll-ups and the md, csv and html reports: golden files of the committed H200 probe
// recording (7 launches) and of the synthetic ncu export (a kernel launched twice), plus the
// properties each format promises. After an intended change, regenerate with
//   LIMITER_UPDATE_GOLDEN=1 build/tests/limiter_unit_tests --gtest_filter='ReportFormat*:Rollup*'
// and review the diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "limiter/analysis.hpp"
#include "test_data.hpp"
#include "limiter/error.hpp"
#include "limiter/import.hpp"
#include "limiter/reports.hpp"
#include "limiter/rollup.hpp"

namespace limiter {
namespace {

using testing::expect_golden;

const std::string kData = LIMITER_TEST_DATA_DIR;

using testing::analysis_of;

RunAnalysis probe_analysis() { return analysis_of("ncu/h200_probe_raw.csv"); }
RunAnalysis synthetic_analysis() { return analysis_of("ncu/synthetic_raw.csv"); }

using SummaryWriter = void (*)(const RunSummary&, std::ostream&, const ReportOptions&);

std::string render(const RunAnalysis& analysis, SummaryWriter writer, const ReportOptions& options = {}) {
  std::ostringstream out;
  writer(summarize(analysis), out, options);
  return out.str();
}

// A small RFC 4180 reader for checking the CSV: quoted fields, doubled quotes, CRLF rows.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(field);
      field.clear();
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      row.push_back(field);
      field.clear();
      rows.push_back(row);
      row.clear();
      ++i;
    } else {
      field += c;
    }
  }
  EXPECT_TRUE(row.empty() && field.empty()) << "the last row must end with CRLF";
  return rows;
}

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++count;
  return count;
}

// ---- roll-ups ----

TEST(Rollup, ProbeGroupsTimeByVerdictAndFixFirst) {
  const auto analysis = probe_analysis();
  const auto rollup = rollup_run(analysis);
  EXPECT_EQ(rollup.launches, 7u);
  EXPECT_EQ(rollup.timed_launches, 7u);
  // Every launch has its own name or configuration (fma_ilp twice, with grids 1056 and 16).
  EXPECT_EQ(rollup.groups.size(), 7u);
  EXPECT_FALSE(rollup.has_repeated_launches());
  EXPECT_EQ(rollup.groups.front().name.substr(0, 14), "spill_pressure");
  for (std::size_t i = 1; i < rollup.groups.size(); ++i)
    EXPECT_GE(*rollup.groups[i - 1].durations.total_ns, *rollup.groups[i].durations.total_ns);

  ASSERT_EQ(rollup.time_by_verdict.size(), 4u);
  double share_sum = 0;
  std::size_t launch_sum = 0;
  for (const auto& entry : rollup.time_by_verdict) {
    share_sum += entry.time_share.value_or(0);
    launch_sum += entry.launches;
  }
  EXPECT_NEAR(share_sum, 1.0, 1e-12);
  EXPECT_EQ(launch_sum, 7u);
  EXPECT_EQ(rollup.time_by_verdict[0].verdict, Verdict::bandwidth);
  EXPECT_EQ(rollup.time_by_verdict[0].launches, 4u);  // stream_copy, l2_resident_read, local_array_2k, spill_pressure
  EXPECT_EQ(rollup.time_by_verdict[1].launches, 1u);  // fma_ilp, full grid
  EXPECT_EQ(rollup.time_by_verdict[2].launches, 2u);  // pointer_chase, fma_ilp small grid
  EXPECT_EQ(rollup.time_by_verdict[3].launches, 0u);

  ASSERT_EQ(rollup.fix_first.size(), kFixFirstLimit);
  EXPECT_EQ(analysis.kernels[rollup.fix_first[0].representative].sequence, 6u);
  EXPECT_EQ(rollup.fix_first[0].headline,
            "Local memory is 98.6% of the traffic between L1 and L2, enough on its own to keep L2 busy: "
            "raise the register cap");
  EXPECT_EQ(analysis.kernels[rollup.fix_first[2].representative].sequence, 4u);
  EXPECT_EQ(rollup.fix_first[2].headline, "The grid is too small to fill the GPU: launch more blocks");
}

TEST(Rollup, RepeatedLaunchesOfOneConfigurationAreGrouped) {
  const auto analysis = synthetic_analysis();  // copy_kernel twice (1.52 us, 1.5 us) around a 3-D kernel
  const auto rollup = rollup_run(analysis);
  ASSERT_EQ(rollup.groups.size(), 2u);
  EXPECT_TRUE(rollup.has_repeated_launches());
  const auto& copies = rollup.groups[1];
  EXPECT_EQ(copies.name, "copy_kernel(const float *, float *, int)");
  EXPECT_EQ(copies.launches(), 2u);
  EXPECT_EQ(copies.launch_indices, (std::vector<std::size_t>{0, 2}));
  EXPECT_NEAR(*copies.durations.total_ns, 3020, 1e-6);
  EXPECT_NEAR(*copies.durations.mean_ns, 1510, 1e-6);
  EXPECT_NEAR(*copies.durations.min_ns, 1500, 1e-6);
  EXPECT_NEAR(*copies.durations.max_ns, 1520, 1e-6);
  EXPECT_NEAR(*copies.time_share, 3020.0 / 63270.0, 1e-12);
  // The synthetic export has no counters for a verdict: the mix says so.
  EXPECT_EQ(copies.verdicts.none, 2u);
  EXPECT_FALSE(copies.main_verdict.has_value());
  EXPECT_TRUE(rollup.fix_first.empty());
}

TEST(Rollup, GroupsNeedTheSameConfiguration) {
  RunAnalysis analysis;
  KernelAnalysis a;
  a.name = "k";
  a.grid = {10, 1, 1};
  a.block = {128, 1, 1};
  a.duration_ns = 100;
  KernelAnalysis b = a;
  b.grid = {20, 1, 1};
  KernelAnalysis c = a;
  c.duration_ns = std::nullopt;  // an untimed launch still counts, but adds no time
  analysis.kernels = {a, b, c};
  const auto rollup = rollup_run(analysis);
  ASSERT_EQ(rollup.groups.size(), 2u);
  EXPECT_EQ(rollup.groups[0].launches(), 2u);
  EXPECT_EQ(rollup.groups[0].durations.timed_launches, 1u);
  EXPECT_EQ(rollup.timed_launches, 2u);
  EXPECT_DOUBLE_EQ(rollup.total_ns, 200);
}

TEST(Rollup, AdviceHeadlinesStopAtTheFirstRemedy) {
  EXPECT_EQ(advice_headline("DRAM is the busiest unit: move fewer bytes (reuse data through shared memory)."),
            "DRAM is the busiest unit: move fewer bytes");
  EXPECT_EQ(advice_headline("Occupancy is 37.5% (3 blocks per SM, limited by registers): use fewer registers "
                            "per thread (__launch_bounds__), or raise ILP."),
            "Occupancy is 37.5% (3 blocks per SM, limited by registers): use fewer registers per thread");
  EXPECT_EQ(advice_headline("No colon here. Second sentence."), "No colon here");
  EXPECT_EQ(advice_headline("Short."), "Short");
  EXPECT_FALSE(
      is_actionable_advice("Local memory is 2.0% of issued instructions: ... so the spills are not worth fixing."));
  EXPECT_FALSE(
      is_actionable_advice("Local memory is only 3.0% of L1-L2 traffic: spills are not what limits this kernel."));
  EXPECT_TRUE(is_actionable_advice("The grid is too small to fill the GPU: launch more blocks."));
}

// ---- formats ----

TEST(ReportFormat, NamesRoundTripAndUnknownNamesAreRefused) {
  for (auto format : {ReportFormat::text, ReportFormat::md, ReportFormat::csv, ReportFormat::json, ReportFormat::html})
    EXPECT_EQ(report_format_from_string(to_string(format)), format);
  EXPECT_EQ(report_format_from_string("markdown"), ReportFormat::md);
  try {
    report_format_from_string("pdf");
    FAIL() << "pdf accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("expected text, md, csv, json or html"), std::string::npos);
  }
}

TEST(ReportFormat, MarkdownGolden) {
  expect_golden("h200_probe_report.md", render(probe_analysis(), write_markdown_report));
}
TEST(ReportFormat, CsvGolden) { expect_golden("h200_probe_report.csv", render(probe_analysis(), write_csv_report)); }
TEST(ReportFormat, HtmlGolden) { expect_golden("h200_probe_report.html", render(probe_analysis(), write_html_report)); }
TEST(ReportFormat, GroupedTextGolden) {
  expect_golden("synthetic_report.txt", render(synthetic_analysis(), write_text_report));
}
TEST(ReportFormat, GroupedMarkdownGolden) {
  expect_golden("synthetic_report.md", render(synthetic_analysis(), write_markdown_report));
}
TEST(ReportFormat, GroupedCsvGolden) {
  expect_golden("synthetic_report.csv", render(synthetic_analysis(), write_csv_report));
}

TEST(ReportFormat, CsvHasOneRowPerLaunchWithTheDocumentedColumns) {
  const auto analysis = probe_analysis();
  const auto rows = parse_csv(render(analysis, write_csv_report));
  ASSERT_EQ(rows.size(), 1 + analysis.kernels.size());
  EXPECT_EQ(rows[0], kCsvReportColumns);
  const auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(rows[0].begin(), rows[0].end(), name) - rows[0].begin());
  };
  for (std::size_t i = 1; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), kCsvReportColumns.size()) << "row " << i;
    EXPECT_EQ(rows[i][column("sequence")], std::to_string(i - 1)) << "launch order";
    EXPECT_EQ(rows[i][column("kernel")], analysis.kernels[i - 1].name) << "names with commas survive quoting";
    // Fractions are 0..1, never percentages; no units in any numeric cell.
    for (const char* name : {"time_share", "l2_utilization", "dram_utilization", "lmem_l2_share",
                             "lmem_instruction_share", "theoretical_occupancy", "ncu_memory_throughput"}) {
      const std::string& cell = rows[i][column(name)];
      ASSERT_FALSE(cell.empty()) << name;
      const double value = std::stod(cell);
      EXPECT_GE(value, 0.0) << name;
      EXPECT_LE(value, 1.0) << name;
    }
    EXPECT_TRUE(std::regex_match(rows[i][column("duration_ns")], std::regex("[0-9.e+]+")));
    EXPECT_TRUE(rows[i][column("balanced")] == "true" || rows[i][column("balanced")] == "false");
  }
  EXPECT_EQ(rows[7][column("verdict")], "bandwidth");  // spill_pressure
  EXPECT_EQ(rows[7][column("fix_first_rank")], "1");
  EXPECT_EQ(rows[5][column("latency_causes")], "small_grid");  // pointer_chase
}

TEST(ReportFormat, CsvLeavesUnknownCellsEmptyAndQuotesPerRfc4180) {
  RunAnalysis analysis;
  KernelAnalysis k;
  k.name = "say_\"hi\"(int, char)";
  k.grid = k.block = {0, 0, 0};  // what importers give when the source has no launch configuration
  analysis.kernels = {k};
  const std::string text = render(analysis, write_csv_report);
  EXPECT_NE(text.find("\"say_\"\"hi\"\"(int, char)\""), std::string::npos) << text;
  const auto rows = parse_csv(text);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1][1], k.name);
  const auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(rows[0].begin(), rows[0].end(), name) - rows[0].begin());
  };
  for (const char* name : {"grid_x", "block_z", "duration_ns", "time_share", "verdict", "issue_utilization",
                           "lmem_l2_share", "theoretical_occupancy", "ncu_verdict", "fix_first_rank"})
    EXPECT_EQ(rows[1][column(name)], "") << name;
}

TEST(ReportFormat, MarkdownEscapesWhatGitHubWouldInterpret) {
  const std::string md = render(probe_analysis(), write_markdown_report);
  // "__launch_bounds__" would turn bold, "<lower percent>" would vanish as an HTML tag.
  EXPECT_NE(md.find("\\_\\_launch\\_bounds\\_\\_"), std::string::npos);
  EXPECT_NE(md.find("&lt;lower percent&gt;"), std::string::npos);
  EXPECT_EQ(md.find("<lower percent>"), std::string::npos);
  // The kernel table: a header, an alignment row and one row per launch.
  EXPECT_EQ(count_of(md, "\n| "), 1u + 7u);
  EXPECT_NE(md.find("### What to fix first\n\n1. **`spill_pressure`** [6]"), std::string::npos);
  EXPECT_NE(md.find("<details>"), std::string::npos);
}

TEST(ReportFormat, HtmlIsSelfContainedAndHasTheCharts) {
  const std::string html = render(probe_analysis(), write_html_report);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("url(http"), std::string::npos);
  // The only URL is the SVG namespace, which is a name, not a fetch.
  EXPECT_EQ(count_of(html, "http"), count_of(html, "xmlns=\"http://www.w3.org/2000/svg\""));
  for (const char* id : {"utilization-map", "time-share", "lmem-shares", "time-by-verdict"})
    EXPECT_NE(html.find(std::string("<svg id=\"") + id + "\""), std::string::npos) << id;
  EXPECT_EQ(count_of(html, "<circle class=\"kernel "), 7u);
  EXPECT_EQ(count_of(html, "<circle class=\"kernel bandwidth\""), 4u);
  EXPECT_EQ(count_of(html, "<circle class=\"kernel latency\""), 2u);
  EXPECT_EQ(count_of(html, "<circle class=\"kernel instruction\""), 1u);
  EXPECT_GE(count_of(html, "class=\"threshold\""), 4u);  // 60 % and 80 % on both axes
  EXPECT_EQ(count_of(html, "<article class=\"kernel\""), 7u);
}

TEST(ReportFormat, HtmlEscapesKernelNames) {
  const std::string html = render(synthetic_analysis(), write_html_report);
  EXPECT_NE(html.find("fwd_3D_orderX2b&lt;4, 9&gt;"), std::string::npos);
  EXPECT_EQ(html.find("fwd_3D_orderX2b<4"), std::string::npos);
  // No utilisation, so nothing on the map, and the page says why.
  EXPECT_EQ(count_of(html, "<circle class=\"kernel "), 0u);
  EXPECT_NE(html.find("Not plotted"), std::string::npos);
  EXPECT_NE(html.find("<table id=\"groups\">"), std::string::npos);
}

TEST(ReportFormat, JsonCarriesTheRollup) {
  const auto json = report_json(summarize(synthetic_analysis()));
  ASSERT_TRUE(json.contains("rollup"));
  const auto& rollup = json["rollup"];
  EXPECT_EQ(rollup["launches"], 3);
  ASSERT_EQ(rollup["groups"].size(), 2u);
  EXPECT_EQ(rollup["groups"][1]["launches"], 2);
  EXPECT_EQ(rollup["groups"][1]["first_sequence"], 0);
  EXPECT_EQ(rollup["groups"][1]["display_name"], "copy_kernel");
  EXPECT_DOUBLE_EQ(rollup["groups"][1]["duration_ns"]["min"].get<double>(), 1500);
  EXPECT_EQ(rollup["groups"][1]["verdicts"]["none"], 2);
  EXPECT_TRUE(rollup["groups"][1]["main_verdict"].is_null());
  ASSERT_EQ(rollup["time_by_verdict"].size(), 4u);
  EXPECT_TRUE(rollup["time_by_verdict"][3]["verdict"].is_null());
  EXPECT_TRUE(rollup["fix_first"].empty());
}

}  // namespace
}  // namespace limiter
