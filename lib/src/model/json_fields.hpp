#pragma once
// Small helpers shared by the record's JSON files: optionals in and out, counts, [x, y, z].
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "limiter/error.hpp"
#include "limiter/record.hpp"

namespace limiter::detail {

// Writes null for an unset optional (the launch and device fields: their keys are always there).
template <typename T>
void put_optional(nlohmann::ordered_json& out, const char* key, const std::optional<T>& value) {
  out[key] = value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

// Writes KEY only when VALUE is set (fields added later: older records read as before).
template <typename T>
void put_if_set(nlohmann::ordered_json& out, const char* key, const std::optional<T>& value) {
  if (value) out[key] = *value;
}

template <typename T>
std::optional<T> get_optional(const nlohmann::json& in, const char* key) {
  auto it = in.find(key);
  if (it == in.end() || it->is_null()) return std::nullopt;
  return it->get<T>();
}

// A whole number >= 0 at KEY, at most MAX; empty when absent or null (REQUIRED: an error). The
// type named in the user's words, and no float or negative number cast out of range.
inline std::optional<std::uint64_t> count_field(const nlohmann::json& in, const char* key, bool required,
                                                std::uint64_t max = UINT64_MAX) {
  const auto it = in.find(key);
  if (it == in.end() || it->is_null()) {
    if (required) throw InputError(std::string("no \"") + key + "\"");
    return std::nullopt;
  }
  if (!it->is_number_unsigned() || it->get<std::uint64_t>() > max)
    throw InputError(std::string("\"") + key + "\" must be a whole number from 0 to " + std::to_string(max) + ", not " +
                     (it->is_number() ? it->dump() : std::string("a ") + it->type_name()));
  return it->get<std::uint64_t>();
}

inline nlohmann::ordered_json dim3_json(const Dim3& d) { return nlohmann::ordered_json::array({d.x, d.y, d.z}); }

inline Dim3 dim3_from(const nlohmann::json& in) {
  if (!in.is_array() || in.size() != 3) throw InputError("expected [x, y, z]");
  return Dim3{in[0].get<std::uint32_t>(), in[1].get<std::uint32_t>(), in[2].get<std::uint32_t>()};
}

}  // namespace limiter::detail
