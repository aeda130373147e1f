// The stream reader (SAX) against the DOM reader: the same RunRecord from every committed
// record, and the same files rejected.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "limiter/error.hpp"
#include "limiter/record_json.hpp"
#include "limiter/record_stream.hpp"
#include "record_layout.hpp"

namespace limiter {
namespace {

const std::string kData = LIMITER_TEST_DATA_DIR;

RunRecord streamed_from_text(const std::string& text) { return testing::read_streamed(text); }

TEST(RecordStream, EveryCommittedRecordReadsAsTheDomReaderReadsIt) {
  std::size_t records = 0;
  for (const char* folder : {"cupti", "kernels"}) {
    for (const auto& entry : std::filesystem::directory_iterator(kData + "/" + folder)) {
      if (entry.path().extension() != ".json") continue;
      SCOPED_TRACE(entry.path().string());
      std::ifstream in(entry.path());
      const nlohmann::json dom = nlohmann::json::parse(in);
      if (dom.value("kind", "") != "limiter-run") continue;
      EXPECT_EQ(read_run_streamed(entry.path().string()), run_from_json(dom));
      ++records;
    }
  }
  EXPECT_GE(records, 5u);
}

TEST(RecordStream, LaunchesBeforeTheDeviceAreHeldUntilTheHeaderIsComplete) {
  RunRecord run = read_run_file(kData + "/cupti/h200_probe_run.json");
  nlohmann::ordered_json reordered;
  const auto json = to_json(run);
  reordered["launches"] = json["launches"];
  for (const auto& [key, value] : json.items())
    if (key != "launches") reordered[key] = value;
  EXPECT_EQ(streamed_from_text(reordered.dump()), run);
}

TEST(RecordStream, UnknownFieldsAreIgnoredAsByTheDomReader) {
  RunRecord run = read_run_file(kData + "/cupti/h200_probe_run.json");
  auto json = to_json(run);
  json["extra"] = {{"nested", {1, 2, {{"deep", true}}}}};
  json["launches"][0]["extra"] = {{"a", {1, 2}}};
  EXPECT_EQ(streamed_from_text(json.dump()), run_from_json(nlohmann::json::parse(json.dump())));
}

TEST(RecordStream, RejectsWhatTheDomReaderRejects) {
  EXPECT_THROW(read_run_streamed(kData + "/truncated_run.json"), InputError);
  try {
    read_run_streamed(kData + "/truncated_run.json");
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not valid JSON (truncated or corrupt?)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(streamed_from_text("[1, 2]"), InputError);
  EXPECT_THROW(streamed_from_text(R"({"kind": "limiter-report", "launches": []})"), InputError);
  RunRecord run = read_run_file(kData + "/cupti/h200_probe_run.json");
  auto json = to_json(run);
  json["launches"][1].erase("name");
  try {
    streamed_from_text(json.dump());
    FAIL() << "a launch without a name was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("launch 1: no \"name\""), std::string::npos) << e.what();
  }
  json = to_json(run);
  json["schema_version"] = 99;
  EXPECT_THROW(streamed_from_text(json.dump()), InputError);
}

}  // namespace
}  // namespace limiter
