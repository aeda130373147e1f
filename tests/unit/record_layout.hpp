#pragma once
// Shared by the reader tests: a record in the layout `limiter run` writes (record_json.cpp's
// merge of the partial file): the run's fields, then "launches" with one launch per line,
// sequence first; and the reader (read_run_stream, one for every layout) run on a text alone.
#include <nlohmann/json.hpp>

#include <optional>
#include <sstream>
#include <string>

#include "limiter/record_json.hpp"
#include "limiter/record_stream.hpp"

namespace limiter::testing {

inline std::string as_written_lines(const RunRecord& run) {
  nlohmann::json header = to_json(run);
  header.erase("launches");
  std::string text = header.dump(1);
  text.resize(text.rfind('}'));
  while (text.back() == '\n') text.pop_back();
  text += ",\n \"launches\": [";
  const auto launches = to_json(run)["launches"];
  for (std::size_t i = 0; i < launches.size(); ++i) {
    nlohmann::ordered_json line;
    line["sequence"] = launches[i]["sequence"];
    for (const auto& [key, value] : launches[i].items())
      if (key != "sequence") line[key] = value;
    text += (i ? ",\n  " : "\n  ") + line.dump();
  }
  return text + "\n ]\n}\n";
}

// TEXT through the stream reader (read_run_stream).
inline RunRecord read_streamed(const std::string& text) {
  std::istringstream in(text);
  RunRecord run;
  read_run_stream(
      in, "<text>", [&](const RunRecord& header) { run = header; },
      [&](KernelLaunch&& launch) { run.launches.push_back(std::move(launch)); });
  return run;
}

// TEXT in the line layout (as_written_lines), through the same reader: once a reader of
// its own, which left other layouts to a SAX reader; always set now.
inline std::optional<RunRecord> read_by_lines(const std::string& text) { return read_streamed(text); }

}  // namespace limiter::testing
