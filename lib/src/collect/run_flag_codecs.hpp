#pragma once
// The text forms of run_flags.cpp's rows: a CollectorOptions field and its flag argument or
// variable value, both ways. Each codec's set checks the text ("must be ..."), so a value that
// validate_collector_options accepts is one its variable's reader accepts, and the reverse.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "limiter/run_flags.hpp"

namespace limiter::detail {

template <class Field>
using Member = Field CollectorOptions::*;

// A whole number without sign or blank, or nullopt.
std::optional<std::uint64_t> whole_number(const std::string& text);
// "must be at least MIN" / "must be between MIN and MAX", with NOTE in brackets when not empty.
std::string range_problem(std::uint64_t min, std::optional<std::uint64_t> max, const std::string& note);

FlagCodec text_codec(Member<std::string> field);
FlagCodec on_off_codec(Member<bool> field, bool inverted = false);  // 1 or 0 (also true/false, yes/no, on/off)
// One of CHOICES; OLD_NAMES are older spellings, read as their new name.
FlagCodec choice_codec(Member<std::string> field, std::vector<std::string> choices,
                       std::vector<std::pair<std::string, std::string>> old_names = {});
FlagCodec two_choice_codec(Member<bool> field, std::string off, std::string on);        // a switch spelt as two words
FlagCodec json_list_codec(Member<std::vector<std::string>> field);                      // ["a","b"]; "" when empty
FlagCodec comma_list_codec(Member<std::vector<std::string>> field);                     // a,b
FlagCodec seconds_codec(Member<double> field);                                          // 0 or more
FlagCodec microseconds_codec(Member<std::uint64_t> nanoseconds, std::uint64_t min_us);  // the field in ns

// A whole number from MIN to MAX.
template <class Number>
FlagCodec number_codec(Member<Number> field, std::uint64_t min = 0, std::string note = "",
                       std::uint64_t max = std::numeric_limits<Number>::max()) {
  return {[field](const CollectorOptions& o) { return std::to_string(o.*field); },
          [=](CollectorOptions& o, const std::string& text) -> std::string {
            const auto value = whole_number(text);
            if (!value) return "must be a whole number";
            if (*value < min || *value > max)
              return range_problem(min, max == std::numeric_limits<Number>::max() ? std::nullopt : std::optional(max),
                                   note);
            o.*field = static_cast<Number>(*value);
            return "";
          }};
}

// The same, or UNSET (the field's "not given") as "", and as its number where UNSET_AS_NUMBER.
template <class Number>
FlagCodec optional_number_codec(Member<Number> field, Number unset, std::uint64_t min = 0, std::string note = "",
                                std::uint64_t max = std::numeric_limits<Number>::max(), bool unset_as_number = false) {
  FlagCodec given = number_codec(field, min, note, max);
  return {[field, unset, get = given.get](const CollectorOptions& o) { return o.*field == unset ? "" : get(o); },
          [=, set = given.set](CollectorOptions& o, const std::string& text) -> std::string {
            if (!text.empty() && !(unset_as_number && whole_number(text) == std::optional<std::uint64_t>(unset)))
              return set(o, text);
            o.*field = unset;
            return "";
          }};
}

}  // namespace limiter::detail
