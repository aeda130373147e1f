// The stream reader on every layout a valid record can have — a launch per line as `limiter run`
// writes it, indented, all on one line, launches before the device — against the DOM reader
// (run_from_json): the same RunRecord from every committed record, the same launches rejected
// with the same words, truncated records refused, and text cut anywhere by the read buffer.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "limiter/error.hpp"
#include "limiter/record_json.hpp"
#include "limiter/record_stream.hpp"
#include "limiter/run_summary.hpp"
#include "model/gzip_input.hpp"
#include "record_layout.hpp"

namespace limiter {
namespace {

const std::string kData = LIMITER_TEST_DATA_DIR;
const std::string kProbe = kData + "/cupti/h200_probe_run.json";

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

RunRecord read(const std::string& text) { return testing::read_streamed(text); }

std::string message_of(const std::string& text) {
  try {
    read(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

// The probe's record in the layout of `limiter run`'s records: the fields, then a launch per line.
std::string probe_as_written() { return testing::as_written_lines(read_run_file(kProbe)); }

// TEXT's record in the other layouts: one line (as `jq -c` writes it), indented by 1 and by 2.
std::vector<std::string> other_layouts(const std::string& text) {
  const auto json = nlohmann::ordered_json::parse(text);
  return {json.dump(), json.dump(1), json.dump(2)};
}

TEST(RecordLayouts, EveryCommittedRecordReadsAsTheDomReaderReadsItInEveryLayout) {
  std::size_t records = 0, launches = 0;
  for (const char* folder : {"cupti", "kernels", "nothing_lost"}) {
    for (const auto& entry : std::filesystem::directory_iterator(kData + "/" + folder)) {
      const std::string path = entry.path().string();
      if (!path.ends_with(".json") && !path.ends_with(".json.gz")) continue;
      const std::string text = text_of(path);
      const auto dom = nlohmann::json::parse(text, nullptr, false);
      if (dom.is_discarded() || dom.value("kind", "") != "limiter-run") continue;
      SCOPED_TRACE(path);
      const RunRecord expected = run_from_json(dom);
      EXPECT_EQ(read_run_file(path), expected);
      for (const std::string& layout : other_layouts(text)) EXPECT_EQ(read(layout), expected);
      EXPECT_EQ(read(testing::as_written_lines(expected)), expected);
      ++records;
      launches += expected.launches.size();
    }
  }
  EXPECT_GE(records, 10u);
  EXPECT_GE(launches, 10000u);  // the 10,071-launch PyTorch recording among them
}

// A stream that cannot seek back, as a pipe or a gzip file.
class OneWayBuffer : public std::streambuf {
 public:
  explicit OneWayBuffer(std::string text) : text_(std::move(text)) {
    setg(text_.data(), text_.data(), text_.data() + text_.size());
  }

 private:
  std::string text_;
};

// Launches before the run's fields (keys sorted, as nlohmann::json and `jq -S` write them, or the
// launches first): the fields are read first where the stream can seek, else the launches held.
TEST(RecordLayouts, LaunchesBeforeTheFieldsWaitForThem) {
  const RunRecord run = read_run_file(kProbe);
  nlohmann::ordered_json reordered;
  const auto json = to_json(run);
  reordered["launches"] = json["launches"];
  for (const auto& [key, value] : json.items())
    if (key != "launches") reordered[key] = value;
  const nlohmann::json sorted = json;
  for (const std::string& text : {reordered.dump(), reordered.dump(1), sorted.dump(), sorted.dump(2)}) {
    EXPECT_EQ(read(text), run);
    OneWayBuffer one_way(text);
    std::istream in(&one_way);
    RunRecord streamed;
    read_run_stream(
        in, "<pipe>", [&](const RunRecord& header) { streamed = header; },
        [&](KernelLaunch&& launch) { streamed.launches.push_back(std::move(launch)); });
    EXPECT_EQ(streamed, run);
  }
}

TEST(RecordLayouts, UnknownFieldsAnywhereAreIgnored) {
  std::string text = probe_as_written();
  const auto at = text.find("{\"sequence\":1,");
  ASSERT_NE(at, std::string::npos);
  text.insert(at + 1, R"("extra":{"a":[1,{"b":null,"c":"}]\"{"}]},)");
  const auto end = text.rfind(']');
  text.insert(end + 1, R"(, "later": {"x": [1, 2]})");
  EXPECT_EQ(read(text), read_run_file(kProbe));
  for (const std::string& layout : other_layouts(text)) EXPECT_EQ(read(layout), read_run_file(kProbe));
}

// The record in IN with the fields that follow its launches (read_run_stream's ON_COMPLETED).
RunRecord read_complete(std::istream& in) {
  RunRecord run;
  std::vector<KernelLaunch> launches;
  const RunHeaderSink take = [&](const RunRecord& header) { run = header; };
  read_run_stream(
      in, "<text>", take, [&](KernelLaunch&& launch) { launches.push_back(std::move(launch)); }, nullptr, take);
  run.launches = std::move(launches);
  return run;
}

// A record's fields in any order: "rank" and "host" after the launches (a record written by hand,
// or its keys sorted) are read, in every layout, from a stream that cannot seek, and by the file
// readers, the header reader and the summary alike.
TEST(RecordLayouts, FieldsAfterTheLaunchesAreRead) {
  RunRecord run = read_run_file(kProbe);
  run.rank = RankInfo{3, 8, 3, "torchrun"};
  run.host = "node1";
  std::string text = probe_as_written();
  const auto end = text.rfind(']');
  text.insert(end + 1,
              R"(, "host": "node1", "rank": {"rank": 3, "world_size": 8, "local_rank": 3, "launcher": "torchrun"})");
  std::vector<std::string> layouts = other_layouts(text);
  layouts.push_back(text);
  for (const std::string& layout : layouts) {
    std::istringstream in(layout);
    EXPECT_EQ(read_complete(in), run);
  }
  OneWayBuffer one_way(text);
  std::istream in(&one_way);
  EXPECT_EQ(read_complete(in), run);
  const std::string path =
      (std::filesystem::temp_directory_path() / ("limiter_rank_last_" + std::to_string(::getpid()) + ".json")).string();
  std::ofstream(path) << text;
  EXPECT_EQ(read_run_file(path), run);
  EXPECT_EQ(read_run_header(path).rank, run.rank);
  const RunSummary summary = summarize_run_file(path, {}, {});
  ASSERT_TRUE(summary.run.rank);
  EXPECT_EQ(summary.run.rank->rank, 3);
  EXPECT_EQ(summary.run.host, "node1");
  std::filesystem::remove(path);
}

TEST(RecordLayouts, RejectsWithTheWordsOfTheDomReader) {
  const std::string text = probe_as_written();
  const auto second = text.find("{\"sequence\":1,");
  const auto replace = [&](const std::string& from, const std::string& to, std::size_t after = 0) {
    std::string changed = text;
    const auto at = changed.find(from, after);
    EXPECT_NE(at, std::string::npos) << from;
    return changed.replace(at, from.size(), to);
  };
  const std::pair<std::string, std::string> faults[] = {
      {replace("\"name\":", "\"nom\":", second), "launch 1: no \"name\""},
      {replace("\"sequence\":1,", "\"sequence\":\"1\","), "launch 1: \"sequence\" must be a number"},
      {replace("\"grid\":[", "\"grid\":[7,", second), "launch 1: expected [x, y, z] for \"grid\""},
      {replace("\"gpu__time_duration.sum\":", "\"gpu__time_duration.sum\":\"x\",\"y\":", second),
       "launch 1: counter \"gpu__time_duration.sum\" is not a number"},
      {replace("{\"sequence\":1,", "[\"sequence\",1],{\"sequence\":1,"), "launch 1: expected an object"}};
  for (const auto& [faulty, words] : faults) {
    SCOPED_TRACE(words);
    EXPECT_NE(message_of(faulty).find(words), std::string::npos) << message_of(faulty);
    for (const std::string& layout : other_layouts(faulty))
      EXPECT_NE(message_of(layout).find(words), std::string::npos) << message_of(layout);
  }
  // The line where the launch starts, to find it in an editor.
  const auto line = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(second), '\n') + 1;
  EXPECT_NE(message_of(faults[0].first).find("launch 1: no \"name\" (line " + std::to_string(line) + ")"),
            std::string::npos)
      << message_of(faults[0].first);
}

TEST(RecordLayouts, RefusesTruncatedAndCorruptRecordsInEveryLayout) {
  EXPECT_NE(message_of(text_of(kData + "/truncated_run.json")).find("not valid JSON (truncated or corrupt?)"),
            std::string::npos);
  const std::string lines = probe_as_written();
  for (const std::string& text : {lines, nlohmann::json::parse(lines).dump(), nlohmann::json::parse(lines).dump(1)}) {
    // Cut in the fields, inside a launch (in a string, a number, between fields), after one, and
    // with the array or the record never closed.
    const auto second = text.find("\"sequence\"", text.find("\"sequence\"") + 1);  // launch 1's
    for (std::size_t cut : {std::size_t{20}, text.find("\"device\"") + 3, second + 15, second + 40, second + 300,
                            text.find('}', second + 200), text.rfind(']'), text.rfind('}')}) {
      const std::string message = message_of(text.substr(0, cut));
      EXPECT_NE(message.find("not valid JSON (truncated or corrupt?)"), std::string::npos) << cut << ": " << message;
    }
    const auto last = text.rfind(']');
    for (const char* extra : {",", "x", "{}"}) {  // a trailing comma, garbage, a launch without its comma
      std::string changed = text;
      changed.insert(text.rfind('}', last) + 1, extra);
      EXPECT_NE(message_of(changed).find("not valid JSON"), std::string::npos) << extra << ": " << message_of(changed);
    }
    EXPECT_NE(message_of(text + "{}").find("after the record's closing"), std::string::npos);
  }
  EXPECT_NE(message_of("").find("not valid JSON (truncated or corrupt?): the file is empty"), std::string::npos);
  EXPECT_NE(message_of("[1, 2]").find("not a limiter run record"), std::string::npos);
  EXPECT_NE(message_of(R"({"kind": "limiter-report", "launches": []})").find("not a limiter run record"),
            std::string::npos);
}

TEST(RecordLayouts, ALaunchMaySpreadOverLinesAnywhere) {
  const std::string text = probe_as_written();
  std::string changed = text;
  changed.replace(changed.find(",\"counters\":{"), 13, ",\n\"counters\" :\n {\n");
  EXPECT_EQ(read(changed), read_run_file(kProbe));
}

TEST(RecordLayouts, NullCountersAreAbsentAndNullFieldsEmpty) {
  std::string changed = probe_as_written();
  const auto second = changed.find("{\"sequence\":1,");
  changed.replace(changed.find("\"gpu__time_duration.sum\":", second), 25, "\"gpu__time_duration.sum\":null,\"z\":");
  changed.replace(changed.find("\"registers_per_thread\":", second), 23, "\"registers_per_thread\":null,\"r\":");
  const RunRecord run = read(changed);
  EXPECT_FALSE(run.launches[1].counter("gpu__time_duration.sum"));
  EXPECT_FALSE(run.launches[1].registers_per_thread);
  EXPECT_EQ(run, run_from_json(nlohmann::json::parse(changed)));
}

// Launches built in the storage of used ones (the report's pipeline hands them back): counters
// the same, fewer, more, in another order, or repeated, each launch reads as the DOM reader reads it.
TEST(RecordLayouts, LaunchesBuiltInUsedStorageReadAsNew) {
  RunRecord run = read_run_file(kProbe);
  ASSERT_GE(run.launches.size(), 6u);
  run.launches[1].counters.erase(run.launches[1].counters.begin());
  run.launches[2].counters["zzz_more"] = 1;
  run.launches[3].counters["aaa_first"] = 2;
  run.launches[4].counters.clear();
  auto json = to_json(run);
  json["launches"][5]["counters"] = {{"placeholder", 1}};
  std::string text = json.dump();
  text.replace(text.find(R"({"placeholder":1})"), 17, R"({"b":1,"a":2,"b":3,"c":null})");  // the last "b" counts
  const RunRecord expected = run_from_json(nlohmann::json::parse(text));
  ASSERT_EQ(expected.launches[5].counter("b"), 3.0);
  std::vector<KernelLaunch> spare;
  for (int round = 0; round < 3; ++round) {
    std::istringstream in(text);
    RunRecord streamed;
    read_run_stream(
        in, "<text>", [&](const RunRecord& header) { streamed = header; },
        [&](KernelLaunch&& launch) { streamed.launches.push_back(std::move(launch)); }, &spare);
    EXPECT_EQ(streamed, expected) << "round " << round;
    std::reverse(streamed.launches.begin(), streamed.launches.end());  // the last read is built in first
    for (auto& launch : streamed.launches) spare.push_back(std::move(launch));
  }
}

// Records of several read buffers (4 MB), with quotes and backslashes escaped in names, so that
// the buffer ends inside strings, between a backslash and its quote, and inside numbers.
TEST(RecordLayouts, TextCutByTheReadBufferAnywhereReadsTheSame) {
  RunRecord run = read_run_file(kProbe);
  const std::vector<KernelLaunch> probe = run.launches;
  run.launches.clear();
  for (std::size_t i = 0; run.launches.size() < 12000; ++i) {
    KernelLaunch launch = probe[i % probe.size()];
    launch.sequence = i;
    launch.name = std::string(i % 7, '\\') + "k\"" + std::string(i % 5, '"') + "{[" + std::to_string(i) + "\\";
    run.launches.push_back(std::move(launch));
  }
  const std::string lines = testing::as_written_lines(run);
  ASSERT_GT(lines.size(), std::size_t{8} << 20);
  const RunRecord expected = run_from_json(nlohmann::json::parse(lines));
  EXPECT_EQ(read(lines), expected);
  for (const std::string& layout : other_layouts(lines)) EXPECT_EQ(read(layout), expected);
}

}  // namespace
}  // namespace limiter
