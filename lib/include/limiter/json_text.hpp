#pragma once
// JSON text that cannot throw on the bytes of a foreign file. Kernel names, device names and
// command lines come from CSV exports, records and applications, and may hold invalid UTF-8,
// which nlohmann's plain dump() refuses with an exception (found by tests/fuzz): here such
// bytes become U+FFFD instead.
#include <string>

#include <nlohmann/json.hpp>

namespace limiter {

template <class Json>
std::string json_text(const Json& json, int indent = -1) {
  return json.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace limiter
