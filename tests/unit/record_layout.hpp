#pragma once
// Shared by the reader tests: a record in the layout `limiter run` writes (record_json.cpp's
// merge of the partial file): the run's fields, then "launches" with one launch per line,
// sequence first. The simdjson line reader takes this layout; any other goes to SAX.
#include <nlohmann/json.hpp>

#include <string>

#include "limiter/record_json.hpp"

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

}  // namespace limiter::testing
