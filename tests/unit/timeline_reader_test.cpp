// The timeline read straight with simdjson (model/timeline_reader.hpp) against the DOM reader
// (timeline_from, run_from_json): the same RunRecord from every committed record, the same words
// for every fault, and every event field kept; and written directly (model/timeline_text.hpp)
// byte for byte as through a JSON object.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <istream>
#include <iterator>

#include <simdjson.h>

#include "limiter/error.hpp"
#include "limiter/json_text.hpp"
#include "limiter/record_json.hpp"
#include "limiter/record_stream.hpp"
#include "model/gzip_input.hpp"
#include "model/timeline_reader.hpp"
#include "model/timeline_text.hpp"
#include "test_data.hpp"

namespace limiter {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string file_text(const std::string& path) {
  detail::GzipInputBuffer buffer(path);  // plain files pass through unchanged
  std::istream in(&buffer);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// What the DOM reader makes of the record at PATH: the reference every reader must match.
RunRecord dom_read(const std::string& path) { return run_from_json(json::parse(file_text(path)), "'" + path + "'"); }

std::optional<Timeline> fast_read(const json& timeline) {
  std::string text = timeline.dump();
  const std::size_t size = text.size();
  text.append(simdjson::SIMDJSON_PADDING, ' ');
  return detail::read_timeline_fast(std::string_view(text.data(), size));
}

TEST(TimelineReader, CommittedRecordsReadAsTheDomReaderReadsThem) {
  std::size_t with_timeline = 0;
  for (const auto& [path, streamed] : testing::committed_run_records(read_run_file)) {
    const RunRecord dom = dom_read(path);
    EXPECT_EQ(json_text(to_json(streamed)), json_text(to_json(dom))) << path;
    EXPECT_EQ(streamed, dom) << path;
    RunRecord header = read_run_header(path);
    EXPECT_EQ(header.timeline, dom.timeline) << path;
    if (!dom.timeline) continue;
    ++with_timeline;
    // Every committed timeline goes the fast way: none needs the DOM reader.
    const auto fast = fast_read(json::parse(file_text(path))["timeline"]);
    ASSERT_TRUE(fast.has_value()) << path;
    EXPECT_EQ(*fast, *dom.timeline) << path;
  }
  EXPECT_GE(with_timeline, 8u);  // the trace, default-run and nothing-lost records
}

TEST(TimelineReader, HeaderWithoutEventsKeepsEveryOtherField) {
  for (const auto& entry :
       testing::committed_run_records(static_cast<RunRecord (*)(const std::string&)>(read_run_header))) {
    const std::string& path = entry.first;
    RunRecord header = entry.second;
    RunRecord without = read_run_header(path, TimelineEvents::skipped);
    ASSERT_EQ(without.timeline.has_value(), header.timeline.has_value()) << path;
    if (header.timeline) {
      EXPECT_TRUE(without.timeline->events.empty()) << path;
      EXPECT_EQ(without.timeline->dropped_records, header.timeline->dropped_records) << path;
      EXPECT_EQ(without.timeline->nvtx_ranges_dropped, header.timeline->nvtx_ranges_dropped) << path;
      without.timeline.reset();
      header.timeline.reset();
    }
    EXPECT_EQ(without, header) << path;
  }
}

// A run of no launch: the timeline is all there is to read.
RunRecord small_run() {
  RunRecord run;
  run.device.name = "NVIDIA H100";
  return run;
}

// An event with every field set, none to its default: a field the fast reader drops reads back
// as its default and the comparison fails.
TimelineEvent every_field_set() {
  TimelineEvent e;
  e.kind = ActivityKind::memcpy;
  e.start_ns = 1'700'000'000'000'000'123ULL;
  e.end_ns = e.start_ns + 4'567;
  e.stream_id = 7;
  e.context_id = 3;
  e.device = 2;
  e.correlation_id = 4'000'000'000U;
  e.name = "HtoD \"quoted\" \\ \xC3\xA9";
  e.bytes = 1ULL << 40;
  e.pageable = false;
  e.thread_id = 4'000'000'001U;
  e.launch_sequence = 99;
  e.grid = Dim3{4'000'000'000U, 2, 3};
  e.block = Dim3{128, 1, 1};
  return e;
}

TEST(TimelineReader, EveryEventFieldIsKept) {
  Timeline timeline;
  timeline.events = {every_field_set()};
  timeline.events.push_back(every_field_set());
  timeline.events.back().kind = ActivityKind::kernel;
  timeline.events.back().pageable = true;
  timeline.dropped_records = 5;
  timeline.nvtx_ranges_dropped = 6;
  timeline.nvtx_ranges_unclosed = 8;
  normalize_timeline(timeline);
  const auto fast = fast_read(json::parse(json_text(timeline_json(timeline))));
  ASSERT_TRUE(fast.has_value());
  EXPECT_EQ(*fast, timeline);

  RunRecord run = small_run();
  run.timeline = timeline;
  const std::string path =
      (fs::temp_directory_path() / ("limiter_timeline_reader_" + std::to_string(::getpid()) + ".json")).string();
  write_run_file(run, path);
  EXPECT_EQ(read_run_file(path).timeline, timeline);
  EXPECT_EQ(read_run_header(path).timeline, timeline);
  fs::remove(path);
}

// The message, or "read" and the record, that a reader gives for TEXT.
template <class Read>
std::string outcome(Read read) {
  try {
    return "read " + json_text(to_json(read()));
  } catch (const InputError& e) {
    return e.what();
  }
}

// Each change to a good record's timeline, written to a file, gives the same record or the same
// message from the stream reader (the fast way where it takes it) as from the DOM reader.
TEST(TimelineReader, OddAndFaultyTimelinesGiveTheDomReadersOutcome) {
  RunRecord run = small_run();
  run.timeline = Timeline{};
  run.timeline->events = {every_field_set()};
  using ordered = nlohmann::ordered_json;
  const ordered good = to_json(run);
  const auto event = [](ordered& record) -> ordered& { return record["timeline"]["events"][0]; };
  const std::vector<std::pair<std::string, std::function<void(ordered&)>>> changes = {
      {"no kind", [&](ordered& r) { event(r).erase("kind"); }},
      {"kind a number", [&](ordered& r) { event(r)["kind"] = 3; }},
      {"unknown kind, bad start",
       [&](ordered& r) {
         event(r)["kind"] = "graph";
         event(r)["start_ns"] = "x";
       }},
      {"no start", [&](ordered& r) { event(r).erase("start_ns"); }},
      {"null end", [&](ordered& r) { event(r)["end_ns"] = nullptr; }},
      {"negative start", [&](ordered& r) { event(r)["start_ns"] = -5; }},
      {"float end", [&](ordered& r) { event(r)["end_ns"] = 2.0; }},
      {"huge end", [&](ordered& r) { event(r)["end_ns"] = 1e30; }},
      {"ends before it starts", [&](ordered& r) { event(r)["end_ns"] = 0; }},
      {"device over int", [&](ordered& r) { event(r)["device"] = 3'000'000'000ULL; }},
      {"correlation over 32 bits", [&](ordered& r) { event(r)["correlation_id"] = 1ULL << 32; }},
      {"null correlation", [&](ordered& r) { event(r)["correlation_id"] = nullptr; }},
      {"name a number", [&](ordered& r) { event(r)["name"] = 5; }},
      {"null name", [&](ordered& r) { event(r)["name"] = nullptr; }},
      {"pageable a number", [&](ordered& r) { event(r)["pageable"] = 1; }},
      {"null pageable", [&](ordered& r) { event(r)["pageable"] = nullptr; }},
      {"thread over 32 bits", [&](ordered& r) { event(r)["thread_id"] = 1ULL << 33; }},
      {"grid of two",
       [&](ordered& r) {
         event(r)["grid"] = {1, 2};
       }},
      {"block over 32 bits",
       [&](ordered& r) {
         event(r)["block"] = {1ULL << 32, 1, 1};
       }},
      {"null grid", [&](ordered& r) { event(r)["grid"] = nullptr; }},
      {"an extra field",
       [&](ordered& r) {
         event(r)["future"] = {{"a", 1}};
       }},
      {"event not an object", [&](ordered& r) { r["timeline"]["events"][0] = 5; }},
      {"events not an array", [&](ordered& r) { r["timeline"]["events"] = "none"; }},
      {"window start a string", [&](ordered& r) { r["timeline"]["start_ns"] = "0"; }},
      {"dropped negative", [&](ordered& r) { r["timeline"]["dropped_records"] = -1; }},
      {"timeline not an object", [&](ordered& r) { r["timeline"] = 5; }},
      {"null timeline", [&](ordered& r) { r["timeline"] = nullptr; }},
  };
  const std::string path =
      (fs::temp_directory_path() / ("limiter_timeline_faults_" + std::to_string(::getpid()) + ".json")).string();
  const auto check = [&](const std::string& what, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
    const std::string dom = outcome([&] { return dom_read(path); });
    EXPECT_EQ(outcome([&] { return read_run_file(path); }), dom) << what;
    EXPECT_EQ(outcome([&] { return read_run_header(path); }), dom.starts_with("read ") ? outcome([&] {
                RunRecord header = dom_read(path);
                header.launches.clear();
                return header;
              })
                                                                                       : dom)
        << what;
  };
  for (const auto& [what, change] : changes) {
    ordered bad = good;
    change(bad);
    check(what, json_text(bad));                                            // the timeline before the launches
    check(what + ", keys sorted", json_text(json::parse(json_text(bad))));  // and after them
  }
  // Texts a JSON writer does not make: -0, a number over 64 bits, a field given twice.
  const std::string text = json_text(good);
  const auto replaced = [&](const std::string& from, const std::string& to) {
    std::string changed = text;
    changed.replace(changed.find(from), from.size(), to);
    return changed;
  };
  check("-0 stream", replaced("\"stream_id\":7", "\"stream_id\":-0"));
  check("start over 64 bits", replaced("\"start_ns\":1700000000000000123", "\"start_ns\":18446744073709551616"));
  check("name twice", replaced("\"name\":\"HtoD", "\"name\":\"first\",\"name\":\"HtoD"));
  check("kind twice", replaced("\"kind\":\"memcpy\"", "\"kind\":\"graph\",\"kind\":\"memcpy\""));
  check("events twice", replaced("\"events\":", "\"events\":[{\"kind\":\"kernel\"}],\"events\":"));
  check("an escaped name", replaced("\"name\":\"HtoD", "\"name\":\"\\u0048toD"));
  fs::remove(path);
}

std::string direct_text(const TimelineEvent& event) {
  std::string text;
  detail::append_timeline_event_text(event, text);
  return text;
}

TEST(TimelineWriter, EventsAreWrittenAsTheirJsonObjectsWouldBe) {
  std::vector<TimelineEvent> events;
  for (const auto& [path, run] : testing::committed_run_records(read_run_file))
    if (run.timeline) events.insert(events.end(), run.timeline->events.begin(), run.timeline->events.end());
  ASSERT_GE(events.size(), 1000u);
  TimelineEvent every = every_field_set();
  events.push_back(every);
  for (const std::string& name : {std::string("tab\there"), std::string("nul\0in", 6), std::string("bad \xFF utf-8"),
                                  std::string("\x7F"), std::string("")}) {
    every.name = name;
    events.push_back(every);
  }
  every.pageable = true;
  every.device = 0;
  every.correlation_id = 0;
  every.stream_id = std::nullopt;
  every.grid = std::nullopt;
  events.push_back(every);
  for (const auto& event : events) ASSERT_EQ(direct_text(event), json_text(timeline_event_json(event)));
}

// Malformed events are named by the whole reader; the header without events never looks at them.
TEST(TimelineReader, AMalformedTimelineIsNamedWhereItsEventsAreRead) {
  const std::string path =
      (fs::temp_directory_path() / ("limiter_timeline_malformed_" + std::to_string(::getpid()) + ".json")).string();
  std::ofstream(path)
      << json_text(to_json(small_run())).substr(0, 1)
      << "\n\"timeline\": {\"dropped_records\": 4, \"events\": [{\"kind\": \"kernel\", \"end_ns\": tru}]},"
      << json_text(to_json(small_run())).substr(1);
  try {
    read_run_file(path);
    FAIL() << "a malformed timeline was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("\"timeline\" is malformed (line 2)"), std::string::npos) << e.what();
  }
  const RunRecord header = read_run_header(path, TimelineEvents::skipped);
  ASSERT_TRUE(header.timeline.has_value());
  EXPECT_EQ(header.timeline->dropped_records, 4u);
  EXPECT_TRUE(header.timeline->events.empty());
  fs::remove(path);
}

}  // namespace
}  // namespace limiter
