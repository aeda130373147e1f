// Which rank a process is, from its launcher's environment; the name its record gets; and the
// rank, host and GPU UUID a record carries through both readers.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include <unistd.h>

#include "inject/output_names.hpp"
#include "inject/rank_detection.hpp"
#include "limiter/error.hpp"
#include "limiter/record_json.hpp"
#include "limiter/record_stream.hpp"

namespace limiter::detail {
namespace {

// An environment of exactly VARIABLES.
EnvironmentLookup environment(std::map<std::string, std::string> variables) {
  return [variables = std::move(variables)](const char* name) -> const char* {
    auto it = variables.find(name);
    return it == variables.end() ? nullptr : it->second.c_str();
  };
}

TEST(RankDetection, EachLauncherItsOwnVariables) {
  const auto torchrun = detect_rank(environment({{"RANK", "3"}, {"WORLD_SIZE", "8"}, {"LOCAL_RANK", "1"}}));
  ASSERT_TRUE(torchrun);
  EXPECT_EQ(*torchrun, (RankInfo{3, 8, 1, "torchrun"}));
  EXPECT_EQ(detect_rank(environment(
                {{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "2"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}})),
            (RankInfo{1, 2, 1, "open-mpi"}));
  EXPECT_EQ(detect_rank(environment({{"PMI_RANK", "5"}, {"PMI_SIZE", "6"}})), (RankInfo{5, 6, std::nullopt, "pmi"}));
  EXPECT_EQ(detect_rank(environment({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "4"}, {"SLURM_LOCALID", "0"}})),
            (RankInfo{0, 4, 0, "slurm"}));
  EXPECT_FALSE(detect_rank(environment({})));
}

TEST(RankDetection, InnerLauncherWinsOverTheAllocation) {
  // torchrun under srun: SLURM_PROCID numbers the torchrun agents, RANK the workers.
  const auto rank =
      detect_rank(environment({{"RANK", "5"}, {"WORLD_SIZE", "8"}, {"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "2"}}));
  ASSERT_TRUE(rank);
  EXPECT_EQ(rank->launcher, "torchrun");
  EXPECT_EQ(rank->rank, 5);
  // mpirun inside a Slurm allocation inherits the batch step's SLURM_PROCID.
  EXPECT_EQ(detect_rank(environment({{"OMPI_COMM_WORLD_RANK", "3"},
                                     {"OMPI_COMM_WORLD_SIZE", "4"},
                                     {"SLURM_PROCID", "0"},
                                     {"SLURM_NTASKS", "1"}}))
                ->launcher,
            "open-mpi");
}

TEST(RankDetection, MalformedVariablesArePassedOver) {
  EXPECT_FALSE(detect_rank(environment({{"RANK", "0"}})));                       // no world size
  EXPECT_FALSE(detect_rank(environment({{"RANK", "2"}, {"WORLD_SIZE", "2"}})));  // outside its world
  EXPECT_FALSE(detect_rank(environment({{"RANK", "x"}, {"WORLD_SIZE", "2"}})));
  EXPECT_FALSE(detect_rank(environment({{"RANK", "-1"}, {"WORLD_SIZE", "2"}})));
  EXPECT_FALSE(detect_rank(environment({{"RANK", "1 "}, {"WORLD_SIZE", "2"}})));
  // A malformed torchrun set falls through to the next launcher.
  EXPECT_EQ(
      detect_rank(environment({{"RANK", "x"}, {"WORLD_SIZE", "2"}, {"PMI_RANK", "1"}, {"PMI_SIZE", "2"}}))->launcher,
      "pmi");
}

// A rank prepares its profiling ahead, a worker it started does not: the worker's parent is the
// same rank (torchrun's agent, mpirun's daemon and slurmstepd carry no rank of their own).
TEST(RankDetection, AWorkerIsStartedByItsRankARankByItsLauncher) {
  const RankInfo rank{1, 2, 1, "torchrun"};
  const auto agent = environment({{"MASTER_ADDR", "localhost"}});
  const auto same_rank = environment({{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "1"}});
  const auto other_rank = environment({{"RANK", "0"}, {"WORLD_SIZE", "2"}});
  EXPECT_FALSE(started_by_its_rank(rank, agent));
  EXPECT_TRUE(started_by_its_rank(rank, same_rank));
  EXPECT_FALSE(started_by_its_rank(rank, other_rank));
  EXPECT_FALSE(started_by_its_rank(rank, {}));  // the parent's environment unreadable: a rank
}

TEST(RankDetection, AProcesssEnvironmentIsReadFromProc) {
  setenv("LIMITER_TEST_RANK_ENV", "a=b", 1);  // after the start: not in /proc's copy
  const auto self = environment_of_process(getpid());
  EXPECT_NE(self("PATH"), nullptr);
  EXPECT_EQ(self("LIMITER_TEST_RANK_ENV"), nullptr);
  EXPECT_EQ(environment_of_process(-1)("PATH"), nullptr);
  unsetenv("LIMITER_TEST_RANK_ENV");
}

TEST(RankOutputNames, RankInTheNameAndTheDefaultNamedByRank) {
  const RankInfo rank{1, 2, 1, "torchrun"};
  EXPECT_EQ(expand_output_name("run_rank%r.json", rank), "run_rank1.json");
  EXPECT_THROW(expand_output_name("run_rank%r.json"), InputError);  // no rank: says to use %p
  EXPECT_EQ(output_pattern_for("/out/limiter_%p.json", true, rank), "/out/limiter_rank%r.json");
  EXPECT_EQ(output_pattern_for("/out/limiter_%p.json", true, std::nullopt), "/out/limiter_%p.json");
  EXPECT_EQ(output_pattern_for("/out/mine.json", false, rank), "/out/mine.json");  // the user's name stays
  EXPECT_TRUE(names_each_process("run_%p.json"));
  EXPECT_TRUE(names_each_process("run_%q{OMPI_COMM_WORLD_RANK}.json"));
  EXPECT_TRUE(names_each_process("run_%r.json"));
  EXPECT_FALSE(names_each_process("run_%h.json"));
}

TEST(RankRecord, RankHostAndUuidReadBackThroughBothReaders) {
  RunRecord run;
  run.tool_version = "0.1.0";
  run.source = "cupti";
  run.host = "node7";
  run.rank = RankInfo{1, 2, 1, "torchrun"};
  run.device.name = "NVIDIA H100 80GB HBM3";
  run.device.uuid = "GPU-5a3c9f0e-1111-2222-3333-444455556666";
  KernelLaunch launch;
  launch.name = "k";
  launch.counters["gpu__time_duration.sum"] = 1000;
  run.launches.push_back(launch);
  const std::string path = (std::filesystem::temp_directory_path() / "limiter_rank_record_test.json").string();
  write_run_file(run, path);
  EXPECT_EQ(read_run_streamed(path), run);
  EXPECT_EQ(run_from_json(nlohmann::json::parse(nlohmann::to_string(to_json(run)))), run);
  const RunRecord header = read_run_header(path);
  EXPECT_EQ(header.rank, run.rank);
  EXPECT_TRUE(header.launches.empty());
  std::filesystem::remove(path);
}

TEST(RankRecord, ARecordWithoutThemWritesNoneOfTheKeys) {
  const auto json = to_json(RunRecord{});
  EXPECT_FALSE(json.contains("rank"));
  EXPECT_FALSE(json.contains("host"));
  EXPECT_FALSE(json.at("device").contains("uuid"));
}

TEST(RankRecord, ARankOutsideItsWorldIsRefused) {
  auto json = nlohmann::json::parse(nlohmann::to_string(to_json(RunRecord{})));
  json["rank"] = {{"rank", 2}, {"world_size", 2}};
  EXPECT_THROW(run_from_json(json, "bad.json"), InputError);
}

}  // namespace
}  // namespace limiter::detail
