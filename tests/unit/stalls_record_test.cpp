// The stalls in a run record (stalls.hpp): written and read back by every reader and layout,
// records without them read as before, and malformed stalls named by their path.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>

#include "limiter/error.hpp"
#include "limiter/json_text.hpp"
#include "limiter/record_json.hpp"
#include "limiter/record_stream.hpp"
#include "test_data.hpp"

namespace limiter {
namespace {

namespace fs = std::filesystem;

const std::string kFixture = std::string(LIMITER_TEST_DATA_DIR) + "/stalls/synthetic_stalls_run.json";

std::string temp_path(const std::string& name) {
  return (fs::temp_directory_path() / ("limiter_stalls_" + std::to_string(::getpid()) + "_" + name)).string();
}

RunRecord run_with_stalls() {
  RunRecord run;
  run.tool_version = "test";
  run.source = "cupti";
  run.device.name = "NVIDIA H100";
  run.device.arch = "sm_90";
  run.device.sm_count = 132;
  KernelLaunch launch;
  launch.name = "stencil(float*)";
  launch.counters["gpu__time_duration.sum"] = 1000;
  run.launches.push_back(launch);
  StallInfo stalls;
  stalls.sample_period_cycles = 1024;
  stalls.samples = 110;
  stalls.dropped_samples = 4;
  stalls.hardware_buffer_full = 1;
  KernelStalls kernel;
  kernel.name = "stencil(float*)";
  kernel.mangled_name = "_Z7stencilPf";
  kernel.cubin_crc = 0xdeadbeef;
  kernel.samples = 110;
  kernel.reasons = {{"long_scoreboard", 80}, {"selected", 30}};
  kernel.hot_pcs.push_back({0x40, 70, {{"long_scoreboard", 70}}, "LDG.E R2, [R4.64]", "stencil.cu", 12});
  kernel.hot_pcs.push_back({0x80, 40, {{"selected", 30}, {"long_scoreboard", 10}}, "", std::nullopt, std::nullopt});
  stalls.kernels.push_back(kernel);
  run.stalls = stalls;
  return run;
}

RunRecord read_back(const RunRecord& run) {
  std::ostringstream text;
  write_run_json(run, text);
  const std::string path = temp_path("round_trip.json");
  std::ofstream(path) << text.str();
  RunRecord streamed = read_run_file(path);
  fs::remove(path);
  return streamed;
}

TEST(StallsRecord, DomRoundTrip) {
  const RunRecord run = run_with_stalls();
  const auto json = nlohmann::json::parse(json_text(to_json(run)));
  EXPECT_EQ(json["stalls"]["dropped_samples"], 4);
  EXPECT_EQ(json["stalls"]["kernels"][0]["reasons"]["long_scoreboard"], 80);
  EXPECT_EQ(json["stalls"]["kernels"][0]["hot_pcs"][0]["line"], 12);
  EXPECT_FALSE(json["stalls"]["kernels"][0]["hot_pcs"][1].contains("file"));  // unset: left out
  EXPECT_EQ(run_from_json(json), run);
}

// Why a kernel's hot PCs have no SASS travels with the record; a kernel whose cubin was kept has no key.
TEST(StallsRecord, WhyAKernelHasNoCubinRoundTrips) {
  RunRecord run = run_with_stalls();
  EXPECT_FALSE(nlohmann::json::parse(json_text(to_json(run)))["stalls"]["kernels"][0].contains("no_cubin"));
  run.stalls->kernels[0].no_cubin = kNoCubinLoadedBefore;
  const auto json = nlohmann::json::parse(json_text(to_json(run)));
  EXPECT_EQ(json["stalls"]["kernels"][0]["no_cubin"], kNoCubinLoadedBefore);
  EXPECT_EQ(run_from_json(json), run);
  EXPECT_EQ(read_back(run), run);
}

TEST(StallsRecord, LineLayoutPutsStallsBeforeTheLaunches) {
  const RunRecord run = run_with_stalls();
  std::ostringstream text;
  write_run_json(run, text);
  const std::string written = text.str();
  ASSERT_NE(written.find("\"stalls\""), std::string::npos);
  EXPECT_LT(written.find("\"stalls\""), written.find("\"launches\""));
  EXPECT_EQ(read_back(run), run);                      // the streaming reader
  const RunRecord header = read_run_header(kFixture);  // the header alone has them
  ASSERT_TRUE(header.stalls);
  EXPECT_EQ(header.stalls->kernels.size(), 5u);
}

TEST(StallsRecord, RecordsWithoutStallsReadAsBefore) {
  RunRecord run = run_with_stalls();
  run.stalls.reset();
  const auto json = nlohmann::json::parse(json_text(to_json(run)));
  EXPECT_FALSE(json.contains("stalls"));
  EXPECT_FALSE(run_from_json(json).stalls);
  EXPECT_FALSE(read_back(run).stalls);
}

TEST(StallsRecord, FixtureReads) {
  const RunRecord run = read_run_file(kFixture);
  ASSERT_TRUE(run.stalls);
  EXPECT_EQ(run.stalls->dropped_samples, 120u);
  const KernelStalls* chase = find_kernel_stalls(*run.stalls, "pointer_chase(unsigned int const*, int, unsigned int*)");
  ASSERT_NE(chase, nullptr);
  EXPECT_EQ(chase->reasons.at("long_scoreboard"), 6300u);
  EXPECT_EQ(chase->hot_pcs.front().sass, "LDG.E R2, [R2.64]");
  EXPECT_EQ(find_kernel_stalls(*run.stalls, "no_such_kernel()"), nullptr);
}

TEST(StallsRecord, ReasonTitlesAsNcuPrintsThem) {
  EXPECT_EQ(stall_reason_title("long_scoreboard"), "Stall Long Scoreboard");
  EXPECT_EQ(stall_reason_title("mio_throttle"), "Stall MIO Throttle");
  EXPECT_EQ(stall_reason_title("no_instructions"), "Stall No Instruction");
  EXPECT_EQ(stall_reason_title("selected"), "Selected");
  EXPECT_EQ(stall_reason_title("warpgroup_arrive"), "Stall GMMA");
  EXPECT_EQ(stall_reason_title("a_future_reason"), "a_future_reason");
}

// A reason without a title prints raw: every one CUPTI reports, and every one in the committed
// records of PC samples, must have one.
TEST(StallsRecord, EveryReasonReportedHasATitle) {
  std::set<std::string> reasons;
  for (const auto reason : cupti_stall_reasons()) reasons.insert(std::string(reason));
  EXPECT_TRUE(reasons.count("warpgroup_arrive"));  // Hopper's wgmma waits
  std::size_t records = 0;
  for (const auto& [path, header] :
       testing::committed_run_records([](const std::string& p) { return read_run_header(p); })) {
    const auto& stalls = header.stalls;
    // The synthetic fixtures hold a made-up reason on purpose (stalls/README.md): it must print raw.
    if (!stalls || (!header.command_line.empty() && header.command_line.front() == "synthetic")) continue;
    ++records;
    for (const auto& kernel : stalls->kernels)
      for (const auto& [reason, samples] : kernel.reasons) reasons.insert(reason);
  }
  EXPECT_GE(records, 2u);  // the committed PC-sampling records of real runs were found
  for (const auto& reason : reasons) EXPECT_NE(stall_reason_title(reason), reason) << reason << " has no title";
}

// Each malformed "stalls" is an InputError naming the field, by every reader.
struct Malformed {
  const char* stalls;
  const char* message;
};

class MalformedStalls : public ::testing::TestWithParam<Malformed> {};

TEST_P(MalformedStalls, IsAnInputErrorNamingTheField) {
  auto json = nlohmann::json::parse(json_text(to_json(run_with_stalls())));
  json["stalls"] = nlohmann::json::parse(GetParam().stalls);
  try {
    run_from_json(json, "run.json");
    FAIL() << "accepted " << GetParam().stalls;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(GetParam().message), std::string::npos) << e.what();
  }
  const std::string path = temp_path("malformed.json");
  std::ofstream(path) << json.dump();
  EXPECT_THROW(read_run_file(path), InputError);
  EXPECT_THROW(read_run_header(path), InputError);
  fs::remove(path);
}

INSTANTIATE_TEST_SUITE_P(
    StallsRecord, MalformedStalls,
    ::testing::Values(
        Malformed{"5", "stalls: must be an object"},
        Malformed{R"({"samples": -1})", "stalls: \"samples\" must be a whole number"},
        Malformed{R"({"dropped_samples": 1.5})", "\"dropped_samples\" must be a whole number"},
        Malformed{R"({"collection": 3})", "\"collection\" must be a string"},
        Malformed{R"({"kernels": {}})", "stalls.kernels: must be an array"},
        Malformed{R"({"kernels": [7]})", "stalls.kernels[0]: must be an object"},
        Malformed{R"({"kernels": [{"samples": 1}]})", "stalls.kernels[0]: no \"name\""},
        Malformed{R"({"kernels": [{"name": "k", "reasons": []}]})", "stalls.kernels[0].reasons: must be an object"},
        Malformed{R"({"kernels": [{"name": "k", "reasons": {"barrier": "many"}}]})",
                  "stalls.kernels[0].reasons: \"barrier\" must be a whole number"},
        Malformed{R"({"kernels": [{"name": "k", "reasons": {"": 1}}]})", "a reason has an empty name"},
        Malformed{R"({"kernels": [{"name": "k", "hot_pcs": [{"samples": 3}]}]})",
                  "stalls.kernels[0].hot_pcs[0]: no \"pc_offset\""},
        Malformed{R"({"kernels": [{"name": "k", "hot_pcs": [{"pc_offset": 0, "line": 4294967296}]}]})",
                  "\"line\" must be a whole number from 0 to 4294967295"},
        Malformed{R"({"kernels": [{"name": "k", "hot_pcs": [{"pc_offset": 0, "file": ["a.cu"]}]}]})",
                  "\"file\" must be a string"},
        Malformed{R"({"kernels": [{"name": "k", "hot_pcs": "hot"}]})", "stalls.kernels[0].hot_pcs: must be an array"}));

TEST(StallsRecord, FinishedPartialRunCarriesTheStalls) {
  RunRecord run = run_with_stalls();
  const std::string partial = temp_path("partial.jsonl"), output = temp_path("finished.json");
  {
    std::ofstream out(partial);
    RunRecord header = run;
    header.launches.clear();
    header.stalls.reset();
    out << partial_run_header(header) << "\n" << json_text(launch_json(run.launches.front())) << "\n";
  }
  EXPECT_EQ(finish_partial_run(partial, output, "exit", nullptr, &*run.stalls), 1u);
  const RunRecord finished = read_run_file(output);
  ASSERT_TRUE(finished.stalls);
  EXPECT_EQ(*finished.stalls, *run.stalls);
  fs::remove(partial);
  fs::remove(output);
}

// The default run: a finished sampling phase's stalls and the phases' windows go to the partial
// file as a status line when the phase ends; a process killed later still has them in its record.
TEST(StallsRecord, AStatusLineKeepsAFinishedPhasesStallsAndTheWindows) {
  RunRecord run = run_with_stalls();
  const std::string partial = temp_path("phases.jsonl"), output = temp_path("phases.json");
  RunRecord status;
  status.stalls = run.stalls;
  status.phases = {{"counters", 10, 20, 5, "budgets spent"},
                   {"samples", 20, 30, 7, "window of 5 ms over"},
                   {"timeline", 30, 0, 0, ""}};
  RunRecord later;  // the windows at the signal: no stalls, so the earlier line's stay
  later.phases = status.phases;
  later.phases[2] = {"timeline", 30, 45, 3, "the app ended by signal SIGTERM"};
  {
    std::ofstream out(partial);
    RunRecord header = run;
    header.launches.clear();
    header.stalls.reset();
    out << partial_run_header(header) << "\n"
        << json_text(launch_json(run.launches.front())) << "\n"
        << partial_status_line(status) << "\n"
        << partial_status_line(later) << "\n";
  }
  const RunRecord read = read_partial_run(partial);
  ASSERT_TRUE(read.stalls);
  EXPECT_EQ(*read.stalls, *run.stalls);
  EXPECT_EQ(read.phases, later.phases);
  EXPECT_EQ(finish_partial_run(partial, output, "signal SIGTERM"), 1u);
  const RunRecord finished = read_run_file(output);
  ASSERT_TRUE(finished.stalls);
  EXPECT_EQ(*finished.stalls, *run.stalls);
  EXPECT_EQ(finished.phases, later.phases);
  EXPECT_EQ(finished.launches.size(), 1u);
  fs::remove(partial);
  fs::remove(output);
}

}  // namespace
}  // namespace limiter
