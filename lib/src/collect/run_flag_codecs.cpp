// The text forms of limiter run's options (run_flag_codecs.hpp). Host-only: the CLI, the
// injection library and the unit tests share them.
#include "collect/run_flag_codecs.hpp"

#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "limiter/json_text.hpp"

namespace limiter::detail {
namespace {

// "a, b or c"
std::string alternatives(const std::vector<std::string>& choices) {
  std::string out;
  for (std::size_t i = 0; i < choices.size(); ++i)
    out += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
  return out;
}

std::optional<double> real_number(const std::string& text) {
  if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.')) return std::nullopt;
  try {
    std::size_t used = 0;
    const double value = std::stod(text, &used);
    if (used == text.size() && std::isfinite(value)) return value;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

// A double as the shortest text that reads back the same (60, 2.5).
std::string real_text(double value) {
  if (value == std::floor(value) && std::fabs(value) < 1e15) return std::to_string(static_cast<long long>(value));
  return nlohmann::json(value).dump();
}

}  // namespace

std::optional<std::uint64_t> whole_number(const std::string& text) {
  if (text.empty() || text.size() > 20) return std::nullopt;
  for (char c : text)
    if (c < '0' || c > '9') return std::nullopt;  // no sign: stoull would wrap "-1" round
  try {
    return std::stoull(text);
  } catch (const std::exception&) {
    return std::nullopt;  // out of range
  }
}

std::string range_problem(std::uint64_t min, std::optional<std::uint64_t> max, const std::string& note) {
  std::string problem = max ? "must be between " + std::to_string(min) + " and " + std::to_string(*max)
                            : "must be at least " + std::to_string(min);
  return note.empty() ? problem : problem + " (" + note + ")";
}

FlagCodec text_codec(Member<std::string> field) {
  return {[field](const CollectorOptions& o) { return o.*field; },
          [field](CollectorOptions& o, const std::string& text) {
            o.*field = text;
            return std::string();
          }};
}

FlagCodec on_off_codec(Member<bool> field, bool inverted) {
  return {[=](const CollectorOptions& o) { return std::string(o.*field != inverted ? "1" : "0"); },
          [=](CollectorOptions& o, const std::string& text) {
            for (const char* on : {"1", "true", "yes", "on"})
              if (text == on) return o.*field = !inverted, std::string();
            for (const char* off : {"0", "false", "no", "off"})
              if (text == off) return o.*field = inverted, std::string();
            return std::string("must be 1 or 0");
          }};
}

FlagCodec choice_codec(Member<std::string> field, std::vector<std::string> choices,
                       std::vector<std::pair<std::string, std::string>> old_names) {
  const auto current = [old_names](const std::string& value) {
    for (const auto& [old_name, name] : old_names)
      if (value == old_name) return name;
    return value;
  };
  return {[=](const CollectorOptions& o) { return current(o.*field); },
          [=](CollectorOptions& o, const std::string& text) {
            for (const auto& choice : choices)
              if (current(text) == choice) return o.*field = choice, std::string();
            return "must be " + alternatives(choices);
          }};
}

FlagCodec two_choice_codec(Member<bool> field, std::string off, std::string on) {
  return {[=](const CollectorOptions& o) { return o.*field ? on : off; },
          [=](CollectorOptions& o, const std::string& text) {
            if (text != on && text != off) return "must be " + off + " or " + on;
            o.*field = text == on;
            return std::string();
          }};
}

FlagCodec json_list_codec(Member<std::vector<std::string>> field) {
  return {[field](const CollectorOptions& o) {
            return (o.*field).empty() ? std::string() : json_text(nlohmann::json(o.*field));
          },
          [field](CollectorOptions& o, const std::string& text) {
            if (text.empty()) return (o.*field).clear(), std::string();
            try {
              o.*field = nlohmann::json::parse(text).get<std::vector<std::string>>();
              return std::string();
            } catch (const std::exception&) {
              return std::string("must be a JSON array of strings");
            }
          }};
}

FlagCodec comma_list_codec(Member<std::vector<std::string>> field) {
  return {[field](const CollectorOptions& o) {
            std::string out;
            for (const auto& item : o.*field) out += (out.empty() ? "" : ",") + item;
            return out;
          },
          [field](CollectorOptions& o, const std::string& text) {
            auto& items = o.*field;
            items.clear();
            for (std::size_t start = 0; start < text.size();) {
              const std::size_t comma = std::min(text.find(',', start), text.size());
              if (comma > start) items.push_back(text.substr(start, comma - start));
              start = comma + 1;
            }
            return std::string();
          }};
}

FlagCodec seconds_codec(Member<double> field) {
  return {[field](const CollectorOptions& o) { return real_text(o.*field); },
          [field](CollectorOptions& o, const std::string& text) {
            const auto seconds = real_number(text);
            if (!seconds) return std::string("must be 0 or more seconds");
            o.*field = *seconds;
            return std::string();
          }};
}

FlagCodec microseconds_codec(Member<std::uint64_t> nanoseconds, std::uint64_t min_us) {
  return {[=](const CollectorOptions& o) { return real_text(static_cast<double>(o.*nanoseconds) / 1000); },
          [=](CollectorOptions& o, const std::string& text) {
            const auto us = real_number(text);
            if (!us || *us < static_cast<double>(min_us) || *us > 1e12)
              return range_problem(min_us, std::nullopt, "microseconds");
            o.*nanoseconds = static_cast<std::uint64_t>(std::llround(*us * 1000));
            return std::string();
          }};
}

}  // namespace limiter::detail
