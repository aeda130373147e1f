// The line reader (simdjson, a launch per line) against the DOM reader: the same RunRecord from
// every committed record written by limiter, the same launches rejected with the same words,
// and everything else left to the SAX reader.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "limiter/error.hpp"
#include "limiter/record_json.hpp"
#include "limiter/record_stream.hpp"
#include "model/gzip_input.hpp"
#include "model/record_lines.hpp"
#include "record_layout.hpp"

namespace limiter {
namespace {

const std::string kData = LIMITER_TEST_DATA_DIR;

// The record in TEXT through the line reader alone; empty when it left the text to the SAX reader.
std::optional<RunRecord> by_lines(const std::string& text) {
  std::string prefix;
  auto run = testing::read_by_lines(text, &prefix);
  if (!run) {
    EXPECT_EQ(prefix, text.substr(0, prefix.size())) << "what was read must go to the SAX reader";
  }
  return run;
}

std::string text_of(const std::string& path) {
  std::ostringstream text;
  if (detail::is_gzip_file(path)) {
    detail::GzipInputBuffer buffer(path);
    text << &buffer;
  } else {
    text << std::ifstream(path, std::ios::binary).rdbuf();
  }
  return text.str();
}

std::string message_of(const std::string& text) {
  try {
    by_lines(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

const std::string kProbe = kData + "/cupti/h200_probe_run.json";

// The probe's record (indented) in the layout of `limiter run`'s records (record_json.cpp's
// merge of the partial file): the fields, then a launch per line, sequence first.
std::string probe_as_written() { return testing::as_written_lines(read_run_file(kProbe)); }

TEST(RecordLines, EveryRecordLimiterWroteReadsAsTheDomReaderReadsIt) {
  std::size_t records = 0, launches = 0;
  for (const char* folder : {"cupti", "kernels", "nothing_lost"}) {
    if (!std::filesystem::exists(kData + "/" + folder)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(kData + "/" + folder)) {
      const std::string path = entry.path().string();
      if (!path.ends_with(".json") && !path.ends_with(".json.gz")) continue;
      const std::string text = text_of(path);
      const auto dom = nlohmann::json::parse(text, nullptr, false);
      if (dom.is_discarded() || dom.value("kind", "") != "limiter-run" || dom["launches"].empty()) continue;
      SCOPED_TRACE(path);
      const auto run = by_lines(text);
      if (!run) continue;  // indented by an older limiter: the SAX reader's (RecordStream.*)
      EXPECT_EQ(*run, run_from_json(dom));
      ++records;
      launches += run->launches.size();
    }
  }
  EXPECT_GE(records, 4u);
  EXPECT_GE(launches, 10000u);  // the 10,071-launch PyTorch recording among them
  const auto probe = by_lines(probe_as_written());
  ASSERT_TRUE(probe);
  EXPECT_EQ(*probe, read_run_file(kProbe));
}

TEST(RecordLines, OtherLayoutsAreLeftToTheSaxReaderAndReadTheSame) {
  const RunRecord run = read_run_file(kProbe);
  const auto json = to_json(run);
  for (const std::string& text : {json.dump(), json.dump(2), json.dump(1)}) {
    EXPECT_FALSE(by_lines(text));
    std::istringstream in(text);
    RunRecord streamed;
    read_run_stream(
        in, "<text>", [&](const RunRecord& header) { streamed = header; },
        [&](KernelLaunch&& launch) { streamed.launches.push_back(std::move(launch)); });
    EXPECT_EQ(streamed, run);
  }
}

TEST(RecordLines, UnknownFieldsAndFieldsAfterTheLaunchesAreIgnored) {
  std::string text = probe_as_written();
  const auto at = text.find("{\"sequence\":1,");
  ASSERT_NE(at, std::string::npos);
  text.insert(at + 1, R"("extra":{"a":[1,{"b":null}]},)");
  const auto end = text.rfind(']');
  text.insert(end + 1, R"(, "later": {"x": [1, 2]})");
  const auto run = by_lines(text);
  ASSERT_TRUE(run);
  EXPECT_EQ(*run, read_run_file(kProbe));
}

TEST(RecordLines, RejectsWithTheWordsOfTheOtherReaders) {
  const std::string text = probe_as_written();
  const auto second = text.find("{\"sequence\":1,");
  const auto replace = [&](const std::string& from, const std::string& to, std::size_t after = 0) {
    std::string changed = text;
    const auto at = changed.find(from, after);
    EXPECT_NE(at, std::string::npos) << from;
    return changed.replace(at, from.size(), to);
  };
  EXPECT_NE(message_of(replace("\"name\":", "\"nom\":", second)).find("launch 1: no \"name\""), std::string::npos);
  EXPECT_NE(message_of(replace("\"sequence\":1,", "\"sequence\":\"1\",")).find("launch 1: \"sequence\" must be a number"),
            std::string::npos);
  EXPECT_NE(message_of(replace("\"grid\":[", "\"grid\":[7,", second)).find("launch 1: expected [x, y, z] for \"grid\""),
            std::string::npos);
  EXPECT_NE(message_of(replace("\"gpu__time_duration.sum\":", "\"gpu__time_duration.sum\":\"x\",\"y\":", second))
                .find("launch 1: counter \"gpu__time_duration.sum\" is not a number"),
            std::string::npos);
  // Cut inside a launch, after one, and with the array never closed.
  for (std::size_t cut : {second + 40, second, text.rfind(']')}) {
    const std::string message = message_of(text.substr(0, cut));
    EXPECT_NE(message.find("not valid JSON (truncated or corrupt?)"), std::string::npos) << message;
  }
  const auto last = text.rfind("}}");
  std::string trailing_comma = text;
  trailing_comma.insert(last + 2, ",");
  EXPECT_NE(message_of(trailing_comma).find("not valid JSON"), std::string::npos);
  // A launch spread over two lines, once the layout has begun.
  EXPECT_NE(message_of(replace(",\"counters\":{", ",\n\"counters\":{", second)).find("not one launch per line"),
            std::string::npos);
}

TEST(RecordLines, NullCountersAreAbsentAndNullFieldsEmpty) {
  const std::string text = probe_as_written();
  std::string changed = text;
  const auto second = changed.find("{\"sequence\":1,");
  changed.replace(changed.find("\"gpu__time_duration.sum\":", second), 25, "\"gpu__time_duration.sum\":null,\"z\":");
  changed.replace(changed.find("\"registers_per_thread\":", second), 23, "\"registers_per_thread\":null,\"r\":");
  const auto run = by_lines(changed);
  ASSERT_TRUE(run);
  EXPECT_FALSE(run->launches[1].counter("gpu__time_duration.sum"));
  EXPECT_FALSE(run->launches[1].registers_per_thread);
  EXPECT_EQ(*run, run_from_json(nlohmann::json::parse(changed)));
}

}  // namespace
}  // namespace limiter
