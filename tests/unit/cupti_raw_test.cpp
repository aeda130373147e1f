// A raw data set recorded on an H200 (`limiter run --save-raw`, verdict_probe) re-evaluated
// here, without a GPU, through the CUPTI host API: it must give the counters the collector
// evaluated on the GPU machine, byte for byte, and the verdicts ncu's SOL gives.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "collect/cupti/raw_store.hpp"
#include "limiter/analysis.hpp"
#include "limiter/error.hpp"
#include "limiter/record_json.hpp"

namespace limiter {
namespace {

const std::string kCupti = std::string(LIMITER_TEST_DATA_DIR) + "/cupti";

TEST(CuptiRaw, OfflineEvaluationReproducesTheGpuMachine) {
  const RunRecord offline = detail::evaluate_raw_dir(kCupti + "/h200_probe_raw");
  const RunRecord on_gpu = read_run_file(kCupti + "/h200_probe_run.json");
  ASSERT_EQ(offline.launches.size(), 7u);
  ASSERT_EQ(offline.launches.size(), on_gpu.launches.size());
  EXPECT_EQ(offline.device.chip, "GH100");
  for (std::size_t i = 0; i < offline.launches.size(); ++i) {
    SCOPED_TRACE(offline.launches[i].name);
    EXPECT_EQ(offline.launches[i].name, on_gpu.launches[i].name);
    EXPECT_EQ(offline.launches[i].grid, on_gpu.launches[i].grid);
    EXPECT_EQ(offline.launches[i].counters, on_gpu.launches[i].counters);
  }
}

TEST(CuptiRaw, CollectorVerdictsMatchNcuSol) {
  // The same kernels and expected verdicts as tests/data/ncu/h200_probe_expected.csv, here
  // from limiter's own one-pass counters instead of ncu's.
  const auto analysis = analyze_run(detail::evaluate_raw_dir(kCupti + "/h200_probe_raw"));
  const Verdict expected[] = {Verdict::bandwidth, Verdict::bandwidth, Verdict::instruction, Verdict::latency,
                              Verdict::latency,   Verdict::bandwidth, Verdict::bandwidth};
  for (std::size_t i = 0; i < 7; ++i) {
    SCOPED_TRACE(analysis.kernels[i].name);
    ASSERT_TRUE(analysis.kernels[i].verdict);
    EXPECT_EQ(*analysis.kernels[i].verdict, expected[i]);
  }
  EXPECT_GT(*analysis.kernels[6].lmem.l2_share, 0.95);  // spill_pressure
}

TEST(CuptiRaw, MissingOrForeignFolderNamesTheFix) {
  EXPECT_THROW(detail::evaluate_raw_dir(kCupti + "/no_such_dir"), InputError);
  try {
    detail::evaluate_raw_dir(std::string(LIMITER_TEST_DATA_DIR) + "/ncu");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--save-raw"), std::string::npos) << e.what();
  }
}

// A copy of the committed raw data set in a fresh temporary folder, to damage.
std::filesystem::path copy_of_probe_raw(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("limiter_cupti_raw_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::copy(kCupti + "/h200_probe_raw", dir);
  return dir;
}

std::string evaluation_error(const std::filesystem::path& dir) {
  try {
    detail::evaluate_raw_dir(dir.string());
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

// meta.json says which caches the counters saw (limiter run --cache-control); a set written
// before it does not, and neither does its record.
TEST(CuptiRaw, TheCacheConditionComesFromMetaJson) {
  EXPECT_EQ(detail::evaluate_raw_dir(kCupti + "/h200_probe_raw").cache_control, std::nullopt);
  const auto dir = copy_of_probe_raw("cache_control");
  std::ifstream in(dir / "meta.json");
  nlohmann::json meta = nlohmann::json::parse(in);
  meta["cache_control"] = "all";
  std::ofstream(dir / "meta.json") << meta.dump();
  EXPECT_EQ(detail::evaluate_raw_dir(dir.string()).cache_control, "all");
  std::filesystem::remove_all(dir);
}

// fuzz_raw_dir: libnvperf_host read out of bounds (SIGSEGV) on an image cut to 4096 bytes.
TEST(CuptiRaw, TruncatedImageIsRefusedBeforeNvperfReadsIt) {
  const auto dir = copy_of_probe_raw("truncated");
  std::filesystem::resize_file(dir / "image_0.bin", 4096);
  EXPECT_NE(evaluation_error(dir).find("image_0.bin' is corrupt (size and CRC-32 4096 "), std::string::npos)
      << evaluation_error(dir);
  std::filesystem::remove(dir / "image_0.bin.crc32");  // a set written before digests: the header check
  std::filesystem::resize_file(dir / "image_0.bin", 16);
  EXPECT_NE(evaluation_error(dir).find("(16 bytes)"), std::string::npos) << evaluation_error(dir);
  std::filesystem::remove_all(dir);
}

// fuzz_raw_dir: a launch line without "range" (or with a range past the image's) escaped as
// nlohmann's out_of_range instead of an InputError naming the line.
TEST(CuptiRaw, LaunchLineWithoutOrBeyondItsRange) {
  const auto dir = copy_of_probe_raw("ranges");
  std::ofstream(dir / "launches.jsonl") << R"({"image":0,"launch":{}})"
                                        << "\n";
  EXPECT_NE(evaluation_error(dir).find("launches.jsonl':1: not a launch of a raw data set"), std::string::npos)
      << evaluation_error(dir);
  std::ifstream original(kCupti + "/h200_probe_raw/launches.jsonl");
  std::string first;
  std::getline(original, first);
  first.replace(first.find("\"range\":0"), 9, "\"range\":7");
  std::ofstream(dir / "launches.jsonl") << first << "\n";
  EXPECT_NE(evaluation_error(dir).find(":1: range 7 of image 0, which holds 7 ranges"), std::string::npos)
      << evaluation_error(dir);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace limiter
