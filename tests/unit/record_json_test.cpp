#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "limiter/error.hpp"
#include "limiter/record_json.hpp"

namespace limiter {
namespace {

RunRecord sample_run() {
  RunRecord run;
  run.tool_version = "0.1.0";
  run.source = "cupti";
  run.created_at = "2026-11-22T01:00:00Z";
  run.command_line = {"./app", "--size", "1024"};
  run.device = {"NVIDIA H200", "sm_90", "GH100",  132,          1.98e9,
                3.2e9,         6144,    62914560, 150011559936, "GPU-00000000-0000-0000-0000-000000000001"};
  KernelLaunch copy;
  copy.sequence = 0;
  copy.name = "copy(const float*, float*, int)";
  copy.mangled_name = "_Z4copyPKfPfi";
  copy.grid = {1056, 1, 1};
  copy.block = {256, 1, 1};
  copy.registers_per_thread = 16;
  copy.static_shared_bytes = 0;
  copy.dynamic_shared_bytes = 4096;
  copy.local_bytes_per_thread = 0;
  copy.stream_id = 7;
  copy.context_id = 1;
  copy.device = 0;
  copy.counters = {{"gpu__time_duration.sum", 264480.0}, {"dram__bytes_read.sum", 536884224.0}};
  KernelLaunch chase = copy;
  chase.sequence = 1;
  chase.name = "chase";
  chase.registers_per_thread.reset();  // unknown stays unknown through the round trip
  chase.graph_id = 3;                  // a kernel node of a CUDA graph, profiled on its own
  chase.graph_node = 4;
  chase.user_range_ns = 25000.0;  // profiled in a user range, timed by the engine's active cycles
  chase.kernel_active_ns = 3600.0;
  chase.counters = {{"smsp__inst_issued.sum", 1.5e9}};
  run.launches = {copy, chase};
  return run;
}

TEST(RecordJson, RoundTripKeepsEveryField) {
  const RunRecord run = sample_run();
  const RunRecord back = run_from_json(nlohmann::json::parse(to_json(run).dump()));
  EXPECT_EQ(back, run);
}

TEST(RecordJson, HasSchemaVersionAndLaunchOrder) {
  const auto json = to_json(sample_run());
  EXPECT_EQ(json["schema_version"], kExactRunSchemaVersion);  // sampled records alone are kRunSchemaVersion
  EXPECT_EQ(json["launches"][0]["sequence"], 0);
  EXPECT_EQ(json["launches"][1]["name"], "chase");
  EXPECT_TRUE(json["launches"][1]["registers_per_thread"].is_null());
}

TEST(RecordJson, NanCounterIsDroppedNotMisread) {
  RunRecord run = sample_run();
  run.launches[0].counters["lts__t_sectors.sum"] = std::numeric_limits<double>::quiet_NaN();
  const RunRecord back = run_from_json(nlohmann::json::parse(to_json(run).dump()));
  EXPECT_FALSE(back.launches[0].counter("lts__t_sectors.sum").has_value());
}

TEST(RecordJson, FileRoundTripIsAtomic) {
  const auto path = (std::filesystem::temp_directory_path() / "limiter_record_test.json").string();
  write_run_file(sample_run(), path);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  EXPECT_EQ(read_run_file(path), sample_run());
  std::filesystem::remove(path);
}

TEST(RecordJson, TruncatedFileNamesTheFile) {
  const auto path = (std::filesystem::temp_directory_path() / "limiter_truncated.json").string();
  const std::string text = to_json(sample_run()).dump();
  std::ofstream(path) << text.substr(0, text.size() / 2);
  try {
    read_run_file(path);
    FAIL() << "truncated JSON was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("limiter_truncated.json"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos);
  }
  std::filesystem::remove(path);
}

TEST(RecordJson, RejectsNewerSchemaAndForeignJson) {
  auto json = nlohmann::json::parse(to_json(sample_run()).dump());
  json["schema_version"] = kRunSchemaVersion + 1;
  EXPECT_THROW(run_from_json(json), InputError);
  EXPECT_THROW(run_from_json(nlohmann::json::parse(R"({"kernels": []})")), InputError);
}

// What the injection library leaves behind: a header line, one launch per line, and maybe a
// torn last line. Both readers must agree, and finishing it must give the whole record.
TEST(RecordJson, PartialRunIsRecoveredAndFinishedWithoutTheTornLine) {
  const RunRecord run = sample_run();
  RunRecord header = run;
  header.launches.clear();
  const auto dir = std::filesystem::temp_directory_path();
  const std::string partial = (dir / "limiter_record_test.partial").string();
  const std::string output = (dir / "limiter_record_test_finished.json").string();
  {
    std::ofstream out(partial);
    out << partial_run_header(header) << "\n";
    for (const auto& launch : run.launches) out << launch_json(launch).dump() << "\n";
    out << "{\"sequence\": 9, \"na";  // the process died here
  }
  EXPECT_EQ(read_partial_run(partial), run);
  EXPECT_EQ(finish_partial_run(partial, output), run.launches.size());
  EXPECT_EQ(read_run_file(output), run);
  std::filesystem::remove(partial);
  std::filesystem::remove(output);
}

TEST(RecordJson, MissingFileIsAnInputError) { EXPECT_THROW(read_run_file("/nonexistent/run.json"), InputError); }

TEST(RecordJson, WrongTypeNamesTheLaunch) {
  auto json = nlohmann::json::parse(to_json(sample_run()).dump());
  json["launches"][1]["grid"] = "big";
  try {
    run_from_json(json, "'x.json'");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("launch 1"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace limiter
