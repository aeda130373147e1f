// A record of the default run (three phases: counters, PC samples, timeline) in the summary and
// every report: the program judged on the timeline phase and saying so, each kernel's time from
// the timeline beside its counters' verdict, a kernel first seen after the counters phase as a
// row of its own, and a header that counts what the record holds. After an intended change to
// the synthetic record or its text report:
//   LIMITER_UPDATE_GOLDEN=1 build-host/tests/limiter_unit_tests --gtest_filter='DefaultRun*'
#include <gtest/gtest.h>

#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "limiter/error.hpp"
#include "limiter/record_json.hpp"
#include "limiter/reports.hpp"
#include "limiter/run_summary.hpp"
#include "limiter/sqlite_export.hpp"
#include "synthetic_default_run.hpp"
#include "test_data.hpp"

#include "sqlite_query.hpp"

namespace limiter {
namespace {

using testing::kLateKernel;
using testing::synthetic_default_run;

const std::string kRecordPath = testing::kData + "/default_run/synthetic_default_run.json";

RunSummary summary_of(const RunRecord& run) { return summarize_record(run, {}, {}); }

std::string written(const RunSummary& summary, ReportFormat format) {
  std::ostringstream out;
  write_report(summary, format, out);
  return out.str();
}

void expect_contains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "missing: " << part << "\n---\n" << text.substr(0, 8000);
}

const KernelSummary& group_named(const RunSummary& summary, const std::string& prefix) {
  for (const auto& g : summary.groups)
    if (g.name.starts_with(prefix)) return g;
  throw std::runtime_error("no group " + prefix);
}

TEST(DefaultRunTimeline, TimelineBetweenKeepsTheEventsOverlappingTheWindowClipped) {
  Timeline t;
  t.dropped_records = 3;
  t.events = {testing::timeline_event(ActivityKind::kernel, 100, 200, "before"),
              testing::timeline_event(ActivityKind::kernel, 150, 260, "across the start"),
              testing::timeline_event(ActivityKind::api_call, 300, 300, "instant inside"),
              testing::timeline_event(ActivityKind::kernel, 380, 450, "across the end"),
              testing::timeline_event(ActivityKind::kernel, 400, 500, "after"),
              testing::timeline_event(ActivityKind::api_call, 400, 400, "instant at the end")};
  normalize_timeline(t);
  const Timeline w = timeline_between(t, 200, 400);
  EXPECT_EQ(w.start_ns, 200u);
  EXPECT_EQ(w.end_ns, 400u);
  EXPECT_EQ(w.dropped_records, 3u);
  ASSERT_EQ(w.events.size(), 3u);
  EXPECT_EQ(w.events[0].name, "across the start");
  EXPECT_EQ(w.events[0].start_ns, 200u);
  EXPECT_EQ(w.events[0].end_ns, 260u);
  EXPECT_EQ(w.events[1].name, "instant inside");
  EXPECT_EQ(w.events[2].name, "across the end");
  EXPECT_EQ(w.events[2].end_ns, 400u);
  EXPECT_TRUE(timeline_between(t, 600, 700).events.empty());
}

TEST(DefaultRunTimeline, KernelConfigurationsRoundTripAndOlderEventsHaveNone) {
  const RunRecord run = synthetic_default_run();
  const Timeline back = timeline_from(nlohmann::json::parse(timeline_json(*run.timeline).dump()));
  EXPECT_EQ(back, *run.timeline);
  const TimelineEvent older =
      timeline_event_from(nlohmann::json::parse(R"({"kind": "kernel", "start_ns": 1, "end_ns": 2, "name": "k"})"));
  EXPECT_FALSE(older.grid);
  EXPECT_FALSE(timeline_event_json(older).contains("grid"));
  EXPECT_THROW(timeline_event_from(nlohmann::json::parse(
                   R"({"kind": "kernel", "start_ns": 1, "end_ns": 2, "name": "k", "grid": [1, -2, 1]})")),
               InputError);
}

TEST(DefaultRunProgram, IsJudgedOnTheTimelinePhaseAndSaysSo) {
  const RunRecord run = synthetic_default_run();
  const auto program = judge_run_program(run);
  ASSERT_TRUE(program);
  EXPECT_EQ(program->window_start_ns, testing::kTimelineStart);
  EXPECT_EQ(program->window_end_ns, testing::kRunEnd);
  EXPECT_EQ(program->verdict, ProgramBound::gpu);
  EXPECT_EQ(program->evidence.kernels, 19u);
  EXPECT_EQ(program->window_note,
            "judged on the timeline phase: the 300.0 ms at the app's own pace after the counters phase (3 launches, "
            "50.0 ms: kernels profiled one by one) and the PC-sampling window (400.0 ms), which are set aside");
  // The whole timeline, sampling window included, would have read otherwise.
  EXPECT_EQ(judge_program(*run.timeline).verdict, ProgramBound::host);
}

TEST(DefaultRunProgram, AnAppThatEndedWhileSampledIsJudgedOnItsWholeTimeline) {
  RunRecord run = synthetic_default_run();
  run.timeline = timeline_between(*run.timeline, testing::kSamplesStart, testing::kTimelineStart);
  run.phases[1].ended_by = "the app ended";
  run.phases[2] = {"timeline", 0, 0, 0, "never began"};
  const auto program = judge_run_program(run);
  ASSERT_TRUE(program);
  EXPECT_EQ(program->window_start_ns, testing::kSamplesStart);
  EXPECT_EQ(program->window_note,
            "the app ended before the timeline phase: judged on the whole timeline (400.0 ms), sampling's cost "
            "included");
  // Ended in the counters phase: no timeline to judge at all.
  run.timeline->events.clear();
  run.phases[1] = {"samples", 0, 0, 0, "never began"};
  EXPECT_FALSE(judge_run_program(run));
}

TEST(DefaultRunProgram, ARecordOfOnePhaseIsJudgedWholeWithoutANote) {
  RunRecord run = synthetic_default_run();
  run.phases.clear();
  const auto program = judge_run_program(run);
  ASSERT_TRUE(program);
  EXPECT_EQ(program->window_start_ns, testing::kSamplesStart);
  EXPECT_TRUE(program->window_note.empty());
  EXPECT_EQ(summary_of(run).program->window_note, "");
}

TEST(DefaultRunSummary, EachKernelGetsItsTimelineTimeAndTheCountersVerdict) {
  const RunSummary summary = summary_of(synthetic_default_run());
  ASSERT_TRUE(summary.timeline_kernels);
  EXPECT_EQ(summary.timeline_kernels->launches, 23u);
  EXPECT_EQ(summary.timeline_kernels->kernels, 3u);
  EXPECT_EQ(summary.timeline_kernels->without_counters, 1u);
  EXPECT_DOUBLE_EQ(summary.timeline_kernels->kernel_ns, 284e6);
  ASSERT_EQ(summary.groups.size(), 3u);
  // Ranked by their timeline time: stream_copy 122 ms, pointer_chase 102 ms, late_kernel 60 ms.
  const auto& copy = summary.groups[0];
  EXPECT_TRUE(copy.name.starts_with("stream_copy"));
  EXPECT_EQ(copy.launches, 2u);  // profiled
  ASSERT_TRUE(copy.timeline);
  EXPECT_EQ(copy.timeline->launches, 12u);
  EXPECT_DOUBLE_EQ(*copy.timeline->durations.total_ns, 122e6);
  EXPECT_DOUBLE_EQ(*copy.timeline->durations.min_ns, 1e6);
  EXPECT_DOUBLE_EQ(*copy.timeline->durations.max_ns, 12e6);
  EXPECT_NEAR(*copy.timeline->time_share, 122.0 / 284.0, 1e-12);
  EXPECT_EQ(copy.main_verdict, Verdict::bandwidth);
  const auto& chase = summary.groups[1];
  EXPECT_TRUE(chase.name.starts_with("pointer_chase"));
  EXPECT_EQ(chase.timeline->launches, 7u);
  EXPECT_EQ(chase.main_verdict, Verdict::latency);
  EXPECT_TRUE(chase.no_counters.empty());
  const auto& late = summary.groups[2];
  EXPECT_EQ(late.name, kLateKernel);
  EXPECT_EQ(late.launches, 0u);
  EXPECT_EQ(late.display_name, "late_kernel");
  EXPECT_FALSE(late.main_verdict);
  EXPECT_EQ(late.timeline->launches, 4u);
  EXPECT_DOUBLE_EQ(*late.timeline->durations.mean_ns, 15e6);
  EXPECT_EQ(late.no_counters,
            "no counters: first seen after the counters phase (`limiter run --every-launch` or a "
            "larger --per-kernel-count profiles it)");
  ASSERT_TRUE(late.stalls);  // its PC samples, joined by name
  EXPECT_EQ(late.stalls->samples, 3000u);
  EXPECT_EQ(summary.group_of(summary.run.kernels.front()), 0u);  // the launches find their groups in the new order
}

TEST(DefaultRunSummary, AnEventWithoutItsConfigurationJoinsItsKernelByName) {
  RunRecord run = synthetic_default_run();
  for (auto& e : run.timeline->events) {
    e.grid.reset();
    e.block.reset();
  }
  const RunSummary summary = summary_of(run);
  ASSERT_EQ(summary.groups.size(), 3u);
  EXPECT_EQ(group_named(summary, "stream_copy").timeline->launches, 12u);
  const auto& late = group_named(summary, "late_kernel");
  EXPECT_EQ(late.block.count(), 0u);  // shown as "—"
  EXPECT_FALSE(late.no_counters.empty());
}

TEST(DefaultRunSummary, ATimelineAloneCountsItsKernelsNotZeroLaunches) {
  RunRecord run = synthetic_default_run();
  run.launches.clear();
  run.phases.clear();
  run.kernels_seen.clear();
  run.stalls.reset();
  const RunSummary summary = summary_of(run);
  ASSERT_EQ(summary.groups.size(), 3u);
  EXPECT_EQ(summary.groups[0].no_counters,
            "no counters: the record holds the timeline alone (`limiter run` without --trace profiles it)");
  const std::string text = written(summary, ReportFormat::text);
  expect_contains(text,
                  "no launch with counters in the record; timeline: 23 launches of 3 kernels over 700.0 ms "
                  "(284.0 ms of kernel time), 3 kernel configurations without counters\n");
  EXPECT_EQ(text.find("0 launches of 0 kernels"), std::string::npos);
}

TEST(DefaultRunReports, TextShowsTheWindowTheTimelineTimesAndTheKernelWithoutCounters) {
  const std::string text = written(summary_of(synthetic_default_run()), ReportFormat::text);
  expect_contains(text, "3 launches profiled of 2 kernels in 2 launch configurations");
  expect_contains(text,
                  "; timeline: 23 launches of 3 kernels over 700.0 ms (284.0 ms of kernel time), 1 kernel "
                  "configuration without counters\n");
  expect_contains(text, "\nprogram: GPU-bound");
  expect_contains(text,
                  "\n  (judged on the timeline phase: the 300.0 ms at the app's own pace after the counters phase");
  expect_contains(text, "kernels by time on the timeline, grouped by name and launch configuration");
  expect_contains(text, "profiled  verdict");
  expect_contains(text, "#  time%    total  launches     mean      min      max  profiled  verdict ");
  expect_contains(text, "1    43%   122 ms        12  10.2 ms  1.00 ms  12.0 ms         2  bandwidth ");
  expect_contains(text, "3    21%  60.0 ms         4  15.0 ms  15.0 ms  15.0 ms         —  no counters ");
  expect_contains(text, "no counters");
  expect_contains(text,
                  "\nlate_kernel — no counters: first seen after the counters phase (`limiter run "
                  "--every-launch` or a larger --per-kernel-count profiles it)\n");
  expect_contains(text, "  late_kernel (#3, no counters): Stall Barrier");
  expect_contains(text, "      app.cu:77  BAR.SYNC.DEFER_BLOCKING 0x0");
}

TEST(DefaultRunReports, JsonCarriesTheNoteTheTimelineFiguresAndTheReason) {
  const auto json = nlohmann::json::parse(written(summary_of(synthetic_default_run()), ReportFormat::json));
  EXPECT_EQ(json["program"]["verdict"], "gpu");
  EXPECT_EQ(json["program"]["window"]["start_ns"], testing::kTimelineStart);
  EXPECT_TRUE(json["program"]["window_note"].get<std::string>().starts_with("judged on the timeline phase: "));
  const auto& rollup = json["rollup"];
  EXPECT_EQ(rollup["timeline"]["launches"], 23);
  EXPECT_EQ(rollup["timeline"]["without_counters"], 1);
  ASSERT_EQ(rollup["groups"].size(), 3u);
  EXPECT_EQ(rollup["groups"][0]["launches"], 2);
  EXPECT_EQ(rollup["groups"][0]["timeline"]["launches"], 12);
  EXPECT_EQ(rollup["groups"][0]["timeline"]["duration_ns"]["total"], 122e6);
  EXPECT_FALSE(rollup["groups"][0].contains("no_counters"));
  const auto& late = rollup["groups"][2];
  EXPECT_EQ(late["display_name"], "late_kernel");
  EXPECT_EQ(late["launches"], 0);
  EXPECT_TRUE(late["longest_sequence"].is_null());
  EXPECT_TRUE(late["main_verdict"].is_null());
  EXPECT_TRUE(late["no_counters"].get<std::string>().starts_with("no counters: first seen after the counters phase"));
  EXPECT_EQ(late["stalls"]["samples"], 3000);
  EXPECT_EQ(json["stalled_kernels"][1]["group"], 3);
}

TEST(DefaultRunReports, CsvMarkdownAndHtmlShowThemToo) {
  const RunSummary summary = summary_of(synthetic_default_run());
  const std::string csv = written(summary, ReportFormat::csv);
  expect_contains(csv,
                  ",stall_hot_line,group_timeline_launches,group_timeline_total_ns,group_timeline_mean_ns,"
                  "group_timeline_min_ns,group_timeline_max_ns,group_timeline_time_share,no_counters\r\n");
  expect_contains(csv, ",late_kernel,64,1,1,256,1,1,");
  expect_contains(csv, ",4,6e+07,1.5e+07,1.5e+07,1.5e+07,0.2112676056338028,no counters: first seen after");
  expect_contains(csv, "\r\n,\"late_kernel(float*, int)\",late_kernel,64,1,1,256,1,1,");  // a row without a sequence
  const std::string md = written(summary, ReportFormat::md);
  expect_contains(md, "_judged on the timeline phase: the 300.0 ms at the app's own pace");
  expect_contains(md, "### Kernels by time on the timeline, grouped by name and launch configuration");
  expect_contains(md, "| 3 | `late_kernel` | 21% | 60.0 ms | 4 | 15.0 ms | 15.0 ms | 15.0 ms | — | no counters |");
  expect_contains(md, "- `late_kernel` — no counters: first seen after the counters phase");
  expect_contains(md, "| `late_kernel` | #3 no counters | Stall Barrier");
  const std::string html = written(summary, ReportFormat::html);
  expect_contains(html, "<p class=\"note\">judged on the timeline phase: the 300.0 ms");
  expect_contains(html, "<th>profiled</th>");
  expect_contains(html, "title=\"no counters: first seen after the counters phase");
  expect_contains(html, "launches on the timeline, ");
  expect_contains(html, "<ul class=\"note\" id=\"no-counters\">");
  expect_contains(html, "<li>Warps wait at __syncthreads (Stall Barrier, 96% of the stalled samples)");
}

using testing::query;

TEST(DefaultRunReports, SqliteHasTheTimelineColumnsAndTheKernelWithoutCounters) {
  const std::string path = (std::filesystem::temp_directory_path() / "limiter_default_run_test.sqlite").string();
  const RunRecord run = synthetic_default_run();
  {
    SqliteExport database(path);
    const RunSummary summary = summarize_record(run, {}, {}, database.batch_sink());
    database.add_timeline(*run.timeline);
    database.add_stalls(*run.stalls);
    database.finish(summary);
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  EXPECT_EQ(query(db,
                  "SELECT k.display_name || ' ' || g.launches || ' ' || g.timeline_launches || ' ' || "
                  "ifnull(g.longest_sequence, 'none') FROM groups g JOIN kernels k USING (kernel_id) WHERE g.rank = 3"),
            "late_kernel 0 4 none");
  EXPECT_EQ(query(db, "SELECT substr(no_counters, 1, 48) FROM groups WHERE rank = 3"),
            "no counters: first seen after the counters phase");
  EXPECT_EQ(query(db, "SELECT count(*) FROM timeline WHERE kind = 'kernel' AND grid_x = 64 AND block_x = 256"), "4");
  EXPECT_EQ(query(db, "SELECT substr(value, 1, 29) FROM run WHERE key = 'program_window_note'"),
            "judged on the timeline phase:");
  sqlite3_close(db);
  std::filesystem::remove(path);
}

TEST(DefaultRunReports, TheCommittedRecordIsTheSyntheticOneAndItsTextReportIsGolden) {
  const RunRecord run = synthetic_default_run();
  if (std::getenv("LIMITER_UPDATE_GOLDEN")) {
    std::ofstream out(kRecordPath, std::ios::binary);
    write_run_json(run, out);
  }
  EXPECT_EQ(read_run_file(kRecordPath), run) << kRecordPath << " differs from synthetic_default_run()";
  const RunSummary summary = summarize_run_file(kRecordPath, {}, {});  // as `limiter report` reads it
  testing::expect_golden("synthetic_default_run_report.txt", written(summary, ReportFormat::text));
}

}  // namespace
}  // namespace limiter
