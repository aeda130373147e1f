// The exports of the timeline on the committed recordings that have one: the Perfetto trace
// (perfetto_export.hpp) checked against the Chrome trace-event format — parsed back, every X
// event has ts, dur, pid, tid and a name, every process and track is named, kernels carry their
// verdict — and the sqlite timeline and program tables, read back.
#include <gtest/gtest.h>

#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "limiter/perfetto_export.hpp"
#include "limiter/record_stream.hpp"
#include "limiter/reports.hpp"
#include "limiter/run_summary.hpp"
#include "limiter/sqlite_export.hpp"
#include "test_data.hpp"

namespace limiter {
namespace {

PerfettoProcess process_of(const std::string& path, Timeline& timeline) {
  PerfettoProcess process;
  const RunRecord header = read_run_header(path);
  timeline = *header.timeline;
  process.timeline = &timeline;
  process.name = "rank " + std::to_string(header.rank->rank);
  SummaryOptions options;
  options.keep_launches = false;
  const RunSummary summary = summarize_run_file(path, {}, options, [&](const RunRecord&, const RunAnalysis& a) {
    for (const auto& k : a.kernels) process.kernels[k.sequence] = perfetto_kernel_args(k, k.name);
  });
  process.program = summary.program;
  return process;
}

TEST(PerfettoExport, CommittedRanksMakeAValidChromeTrace) {
  Timeline timelines[2];
  std::vector<PerfettoProcess> processes;
  for (int rank : {0, 1})
    processes.push_back(process_of(
        testing::kData + "/timeline/h100_gloo_rank" + std::to_string(rank) + "_timeline.json.gz", timelines[rank]));
  std::ostringstream out;
  const std::size_t written = write_perfetto_trace(processes, out);
  const auto trace = nlohmann::json::parse(out.str());
  ASSERT_TRUE(trace["traceEvents"].is_array());
  EXPECT_EQ(trace["displayTimeUnit"], "ns");
  std::set<int> named_processes;
  std::set<std::pair<int, int>> named_tracks, used_tracks;
  std::size_t complete = 0, kernels = 0, coloured = 0;
  std::set<std::string> categories;
  for (const auto& e : trace["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("name")) << e.dump();
    if (e["ph"] == "M") {
      if (e["name"] == "process_name") named_processes.insert(e["pid"].get<int>());
      if (e["name"] == "thread_name") named_tracks.insert({e["pid"].get<int>(), e["tid"].get<int>()});
      EXPECT_TRUE(e["args"].is_object());
      continue;
    }
    ASSERT_EQ(e["ph"], "X") << e.dump();
    ++complete;
    for (const char* key : {"ts", "dur", "pid", "tid", "name"})
      ASSERT_TRUE(e.contains(key)) << key << " in " << e.dump();
    EXPECT_TRUE(e["ts"].is_number() && e["dur"].is_number());
    EXPECT_GE(e["ts"].get<double>(), 0);
    EXPECT_GE(e["dur"].get<double>(), 0);
    EXPECT_FALSE(e["name"].get<std::string>().empty());
    used_tracks.insert({e["pid"].get<int>(), e["tid"].get<int>()});
    categories.insert(e["cat"].get<std::string>());
    if (e["cat"] == "kernel") {
      ++kernels;
      EXPECT_TRUE(e["args"].contains("verdict")) << e.dump();
      EXPECT_TRUE(e["args"].contains("lmem_l2_share")) << e.dump();
      if (e["cname"] != "grey") ++coloured;
    }
  }
  EXPECT_EQ(complete, written);
  EXPECT_EQ(complete, timelines[0].events.size() + timelines[1].events.size());
  EXPECT_EQ(kernels, 62u + 72u);
  EXPECT_EQ(coloured, kernels);  // every kernel joined to its analysis
  EXPECT_EQ(named_processes, (std::set<int>{1, 2}));
  for (const auto& track : used_tracks) EXPECT_TRUE(named_tracks.count(track)) << track.first << "/" << track.second;
  EXPECT_EQ(categories, (std::set<std::string>{"api_call", "kernel", "memcpy", "nvtx_range", "synchronization"}));
}

// RECORD exported as an SQLite database, with its timeline, to a temporary file; queried, removed.
class ExportedSqlite {
 public:
  explicit ExportedSqlite(const std::string& record)
      // One file per process: ctest runs each test in its own process, several at once.
      : path_((std::filesystem::temp_directory_path() / ("limiter_timeline_" + std::to_string(::getpid()) + ".sqlite"))
                  .string()) {
    {
      SqliteExport database(path_);
      SummaryOptions options;
      options.keep_launches = false;
      const RunSummary summary = summarize_run_file(record, {}, options, database.batch_sink());
      database.add_timeline(*read_run_header(record).timeline);
      database.finish(summary);
    }
    EXPECT_EQ(sqlite3_open(path_.c_str(), &db_), SQLITE_OK);
  }
  ~ExportedSqlite() {
    sqlite3_close(db_);
    std::filesystem::remove(path_);
  }
  std::string scalar(const char* sql) const {
    sqlite3_stmt* statement = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, sql, -1, &statement, nullptr), SQLITE_OK) << sql;
    EXPECT_EQ(sqlite3_step(statement), SQLITE_ROW) << sql;
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
    std::string value = text ? text : "NULL";
    sqlite3_finalize(statement);
    return value;
  }

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

// The sqlite export's timeline and program tables, read back.
TEST(TimelineSqlite, TimelineAndProgramTables) {
  const ExportedSqlite db(testing::kData + "/timeline/h100_gloo_rank1_timeline.json.gz");
  EXPECT_EQ(db.scalar("SELECT count(*) FROM timeline"), "302");
  EXPECT_EQ(db.scalar("SELECT count(*) FROM timeline WHERE kind = 'kernel' AND launch_sequence IS NOT NULL"), "72");
  EXPECT_EQ(db.scalar("SELECT count(*) FROM timeline t JOIN launches l ON l.sequence = t.launch_sequence"), "72");
  EXPECT_EQ(db.scalar("SELECT verdict FROM program WHERE scope = 'window'"), "sync");
  EXPECT_EQ(db.scalar("SELECT count(*) FROM program"), "3");  // the window, train_step/, train_step/forward/
  EXPECT_EQ(db.scalar("SELECT count(*) FROM program_pauses"), "0");
}

// A PyTorch record whose 5.6 s set-up is a pause: the window's row is without it, and it is listed.
TEST(TimelineSqlite, PausesSetAsideAreListed) {
  const ExportedSqlite db(testing::kData + "/trace/h100_mlp30_trace.json.gz");
  EXPECT_EQ(db.scalar("SELECT count(*) FROM program_pauses"), "1");
  EXPECT_EQ(db.scalar("SELECT round(paused_ns / 1e9, 1) FROM program WHERE scope = 'window'"), "5.6");
  EXPECT_EQ(db.scalar("SELECT round(wall_ns / 1e6) FROM program WHERE scope = 'window'"), "537.0");
  EXPECT_EQ(db.scalar("SELECT count(*) FROM program_pauses p, timeline t "
                      "WHERE t.start_ns < p.end_ns AND t.end_ns > p.start_ns AND t.kind != 'nvtx_range'"),
            "0");  // nothing recorded inside it
}

// A verdict has one colour: the trace's reserved colour name, and the HTML page's badge in that
// name's RGB (catapult's color_scheme: rail_response 67,135,253; thread_state_uninterruptible
// 182,125,143; rail_idle 238,142,0; grey 221,221,221).
TEST(PerfettoExport, VerdictColoursAreTheHtmlReports) {
  RunSummary summary;
  std::ostringstream page;
  write_report(summary, ReportFormat::html, page);
  const struct {
    std::optional<Verdict> verdict;
    const char* trace_name;
    const char* badge;
  } colours[] = {{Verdict::bandwidth, "rail_response", ".verdict.bandwidth { background: #4387fd;"},
                 {Verdict::instruction, "thread_state_uninterruptible", ".verdict.instruction { background: #b67d8f;"},
                 {Verdict::latency, "rail_idle", ".verdict.latency { background: #ee8e00;"},
                 {std::nullopt, "grey", ".verdict.none { background: #dddddd;"}};
  for (const auto& c : colours) {
    EXPECT_STREQ(perfetto_verdict_color(c.verdict), c.trace_name);
    EXPECT_NE(page.str().find(c.badge), std::string::npos) << c.badge;
  }
}

}  // namespace
}  // namespace limiter
