#pragma once
// JSON values the report and comparison schemas share: null where a number or verdict is absent.
#include <optional>

#include <nlohmann/json.hpp>

#include "limiter/analysis.hpp"

namespace limiter {

inline nlohmann::ordered_json optional_number(const std::optional<double>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

inline nlohmann::ordered_json optional_verdict(const std::optional<Verdict>& verdict) {
  return verdict ? nlohmann::ordered_json(to_string(*verdict)) : nlohmann::ordered_json(nullptr);
}

}  // namespace limiter
