// A record's missing or mistyped field named in the user's words (model/record_faults.hpp),
// through the readers the CLI uses: no JSON library text ("[json.exception...]") reaches the user.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "limiter/error.hpp"
#include "limiter/record_json.hpp"
#include "limiter/record_stream.hpp"
#include "model/record_faults.hpp"

namespace limiter {
namespace {

using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;

// In the order limiter writes a record's fields (the reader takes the run's fields before its
// launches), so that the stream reader sees the same record as the DOM reader.
ordered_json good_record() {
  return ordered_json::parse(
      R"({"schema_version": 1, "kind": "limiter-run", "tool_version": "0.1.0", "command_line": ["./app"],
    "device": {"name": "NVIDIA H100", "arch": "sm_90", "chip": "GH100", "sm_count": 132, "l2_bytes": null},
    "launches": [{"sequence": 0, "name": "scale", "grid": [64, 1, 1], "block": [256, 1, 1],
                  "registers_per_thread": null, "counters": {"gpu__time_duration.sum": 1000, "x": null}}]})");
}

// The message of reading TEXT as a record through the stream reader (read_run_file's).
std::string stream_message(const std::string& text) {
  std::istringstream in(text);
  try {
    read_run_stream(
        in, "'run.json'", [](const RunRecord&) {}, [](KernelLaunch&&) {});
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// The message of the DOM reader (run_from_json) on RECORD.
std::string dom_message(const ordered_json& record) {
  try {
    run_from_json(json::parse(record.dump()), "'run.json'");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(RecordFaults, AGoodRecordHasNone) {
  const ordered_json record = good_record();
  EXPECT_EQ(detail::record_field_fault(json::parse(record.dump())), "");
  EXPECT_EQ(detail::launch_field_fault(json::parse(record["launches"][0].dump())), "");
  EXPECT_EQ(stream_message(record.dump()), "");
  EXPECT_EQ(dom_message(record), "");
}

TEST(RecordFaults, AMissingFieldIsNamed) {
  ordered_json record = good_record();
  record.erase("device");
  EXPECT_EQ(detail::record_field_fault(json::parse(record.dump())), "field \"device\" is missing");
  EXPECT_EQ(stream_message(record.dump()), "'run.json': field \"device\" is missing");
  EXPECT_EQ(stream_message(record.dump(1)), "'run.json': field \"device\" is missing");
  EXPECT_EQ(dom_message(record), "'run.json': field \"device\" is missing");
  record = good_record();
  record.erase("launches");
  EXPECT_EQ(dom_message(record), "'run.json': field \"launches\" is missing");
  EXPECT_EQ(stream_message(record.dump()), "'run.json': field \"launches\" is missing");
}

TEST(RecordFaults, AFieldOfTheWrongTypeIsNamedWithWhatWasFound) {
  ordered_json record = good_record();
  record["device"]["sm_count"] = "132";
  const std::string expected = "'run.json': field \"device.sm_count\" must be a number, not a string (\"132\")";
  EXPECT_EQ(stream_message(record.dump()), expected);
  EXPECT_EQ(dom_message(record), expected);
  record = good_record();
  record["device"]["l2_bytes"] = true;
  EXPECT_EQ(dom_message(record),
            "'run.json': field \"device.l2_bytes\" must be a number or null, not a boolean (true)");
  record = good_record();
  record["command_line"] = "./app --big";
  EXPECT_EQ(dom_message(record),
            "'run.json': field \"command_line\" must be an array of strings, not a string (\"./app --big\")");
  record = good_record();
  record["schema_version"] = "1";  // read before the other fields: once an internal error
  EXPECT_EQ(dom_message(record), "'run.json': field \"schema_version\" must be a number, not a string (\"1\")");
  record = good_record();
  record["kind"] = 7;
  EXPECT_NE(dom_message(record).find("not a limiter run record"), std::string::npos);
}

TEST(RecordFaults, NestedArraysNameTheElement) {
  ordered_json record = good_record();
  record["missed"] = ordered_json::array({{{"reason", "busy"}, {"launches", 3}}, {{"reason", "busy"}}});
  EXPECT_EQ(dom_message(record), "'run.json': field \"missed[1].launches\" is missing");
  record = good_record();
  record["kernels_seen"] =
      ordered_json::array({{{"name", "k"}, {"grid", {1, 1}}, {"block", {1, 1, 1}}, {"launches", 1}}});
  EXPECT_EQ(dom_message(record),
            "'run.json': field \"kernels_seen[0].grid\" must be [x, y, z] (three numbers), not an array ([1,1])");
  record = good_record();
  record["rank"] = {{"rank", 0}};
  EXPECT_EQ(dom_message(record), "'run.json': field \"rank.world_size\" is missing");
  record = good_record();
  record["sampling"] = {{"mode", "pm-sampling"}};
  EXPECT_EQ(dom_message(record), "'run.json': field \"sampling.interval_ns\" is missing");
}

TEST(RecordFaults, ALaunchFieldIsNamedByTheDomReader) {
  json launch = json::parse(good_record()["launches"][0].dump());
  launch.erase("grid");
  EXPECT_EQ(detail::launch_field_fault(launch), "field \"grid\" is missing");
  try {
    launch_from(launch);
    FAIL() << "a launch without a grid was read";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "field \"grid\" is missing");
  }
  launch = json::parse(good_record()["launches"][0].dump());
  launch["counters"]["gpu__time_duration.sum"] = "1000";
  EXPECT_EQ(detail::launch_field_fault(launch),
            "field \"counters\" must be an object of numbers (or null), not an object");
  ordered_json record = good_record();
  record["launches"][0]["name"] = 42;
  EXPECT_EQ(dom_message(record), "'run.json': launch 0: field \"name\" must be a string, not a number (42)");
}

TEST(RecordFaults, LongValuesAreCutShort) {
  ordered_json record = good_record();
  record["device"]["name"] = ordered_json::array({std::string(100, 'x')});
  const std::string message = dom_message(record);
  EXPECT_NE(message.find("must be a string, not an array ([\"xxx"), std::string::npos) << message;
  EXPECT_NE(message.find("...)"), std::string::npos) << message;
  EXPECT_LT(message.size(), 120u) << message;
}

TEST(RecordFaults, LibraryErrorsLoseTheirId) {
  json parsed;
  try {
    parsed = json::parse("{\"kind\": ");
    FAIL();
  } catch (const json::exception& e) {
    const std::string words = detail::json_error_words(e);
    EXPECT_EQ(words.find("[json.exception"), std::string::npos) << words;
    EXPECT_EQ(words.find("syntax error while parsing"), std::string::npos) << words;
    EXPECT_EQ(words.rfind("at line 1, column 10: unexpected end of input", 0), 0u) << words;
  }
  try {
    parsed = json::object().at("device");
    FAIL();
  } catch (const json::exception& e) {
    EXPECT_EQ(detail::json_error_words(e), "key 'device' not found");
  }
}

}  // namespace
}  // namespace limiter
