// The SQLite export of a real recording and of the synthetic stall record, read back through the
// sqlite3 C API.
#include <gtest/gtest.h>

#include <sqlite3.h>

#include <filesystem>
#include <unistd.h>

#include "limiter/record_json.hpp"
#include "limiter/sqlite_export.hpp"

#include "sqlite_query.hpp"

namespace limiter {
namespace {

const std::string kData = LIMITER_TEST_DATA_DIR;

using testing::query;

// RECORD exported to PATH as `limiter export` does it; its summary.
RunSummary export_record(const std::string& record, const std::string& path, bool counters = true) {
  SummaryOptions options;
  options.keep_launches = false;
  SqliteExport database(path, counters);
  RunSummary summary = summarize_run_file(record, {}, options, database.batch_sink());
  database.finish(summary);
  return summary;
}

TEST(SqliteExport, TablesHoldTheRunItsLaunchesCountersAndGroups) {
  const std::string path = (std::filesystem::temp_directory_path() / "limiter_export_test.sqlite").string();
  const std::string record = kData + "/cupti/h200_pytorch_limiter.json";
  const RunSummary summary = export_record(record, path);
  ASSERT_FALSE(std::filesystem::exists(path + ".tmp"));
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  const RunRecord run = read_run_file(record);
  std::size_t counters = 0;
  for (const auto& launch : run.launches) counters += launch.counters.size();
  EXPECT_EQ(query(db, "SELECT count(*) FROM launches"), std::to_string(run.launches.size()));
  EXPECT_EQ(query(db, "SELECT count(*) FROM counters"), std::to_string(counters));
  EXPECT_EQ(query(db, "SELECT count(*) FROM groups"), std::to_string(summary.groups.size()));
  EXPECT_EQ(query(db, "SELECT value FROM run WHERE key = 'device_name'"), "NVIDIA H200");
  // The first group is the one with the most time, named as the report names it.
  EXPECT_EQ(query(db, "SELECT k.display_name FROM groups g JOIN kernels k USING (kernel_id) WHERE g.rank = 1"),
            summary.groups.front().display_name);
  // Launch durations sum to the run's total.
  EXPECT_NEAR(std::stod(query(db, "SELECT sum(duration_ns) FROM launches")), summary.total_ns, 1e-6 * summary.total_ns);
  EXPECT_EQ(query(db,
                  "SELECT count(*) FROM launches l JOIN counters c USING (sequence) "
                  "WHERE c.metric = 'gpu__time_duration.sum' AND c.value = l.duration_ns"),
            std::to_string(run.launches.size()));
  sqlite3_close(db);
  std::filesystem::remove(path);
}

// Without counters (limiter export --no-counters, Python's load): every launch and group, no counter row.
TEST(SqliteExport, WithoutCountersKeepsTheLaunchesAndLeavesCountersEmpty) {
  const std::string path = (std::filesystem::temp_directory_path() / "limiter_export_no_counters_test.sqlite").string();
  const RunSummary summary = export_record(kData + "/cupti/h200_pytorch_limiter.json", path, /*counters=*/false);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  EXPECT_EQ(query(db, "SELECT count(*) FROM launches"), std::to_string(summary.launches));
  EXPECT_EQ(query(db, "SELECT count(*) FROM groups"), std::to_string(summary.groups.size()));
  EXPECT_EQ(query(db, "SELECT count(*) FROM counters"), "0");
  sqlite3_close(db);
  std::filesystem::remove(path);
}

// The stalls and hot_pcs tables, on the synthetic stall record (tests/data/stalls/).
const std::string kStallFixture = kData + "/stalls/synthetic_stalls_run.json";

class StallExport : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() / ("limiter_stalls_" + std::to_string(::getpid()) + ".sqlite"))
                .string();
    SummaryOptions options;
    options.keep_launches = false;
    {
      SqliteExport database(path_);
      const RunSummary summary = summarize_run_file(kStallFixture, {}, options, database.batch_sink());
      database.add_stalls(*read_run_file(kStallFixture).stalls);
      database.finish(summary);
    }
    ASSERT_EQ(sqlite3_open_v2(path_.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  }
  void TearDown() override {
    sqlite3_close(db_);
    std::filesystem::remove(path_);
  }
  std::string path_;
  sqlite3* db_ = nullptr;
};

TEST_F(StallExport, StallsHoldEveryKernelsReasonsWithTheirShares) {
  EXPECT_EQ(query(db_, "SELECT count(DISTINCT kernel) FROM stalls"), "5");  // the kernel without launches too
  EXPECT_EQ(query(db_, "SELECT samples FROM stalls WHERE kernel LIKE 'pointer_chase%' AND reason = 'long_scoreboard'"),
            "6300");
  EXPECT_EQ(query(db_, "SELECT title FROM stalls WHERE reason = 'mio_throttle'"), "Stall MIO Throttle");
  EXPECT_EQ(query(db_, "SELECT round(share, 4) FROM stalls WHERE kernel LIKE 'pointer_chase%' AND reason = 'selected'"),
            "0.0875");
  EXPECT_EQ(
      query(db_, "SELECT round(stall_share, 4) FROM stalls WHERE kernel LIKE 'block_reduce%' AND reason = 'barrier'"),
      "0.7358");
  // Joined to the launches by name, as the report joins them.
  EXPECT_EQ(query(db_, "SELECT count(*) FROM stalls s JOIN kernels k ON k.name = s.kernel WHERE s.reason = 'selected'"),
            "4");
  EXPECT_EQ(query(db_, "SELECT value FROM run WHERE key = 'stall_dropped_samples'"), "120");
}

TEST_F(StallExport, HotPcsHoldTheirLineSassAndDominantReason) {
  EXPECT_EQ(query(db_, "SELECT count(*) FROM hot_pcs"), "10");
  EXPECT_EQ(query(db_, "SELECT file || ':' || line || ' ' || sass || ' ' || reason FROM hot_pcs ORDER BY samples DESC"),
            "probe.cu:41 LDG.E R2, [R2.64] long_scoreboard");
  EXPECT_EQ(query(db_, "SELECT count(*) FROM hot_pcs WHERE file IS NULL AND line IS NULL"), "1");  // EXIT: no line info
}

}  // namespace
}  // namespace limiter
