#pragma once
// A run record the readers could not take, in the user's words: which field is missing or of
// the wrong type, found by checking the record against the fields limiter reads, so that no
// JSON library exception text ("[json.exception.out_of_range.403] key 'device' not found")
// reaches the user. Used where the readers catch nlohmann-json's exceptions: the good path
// never runs these checks.
#include <string>

#include <nlohmann/json.hpp>

namespace limiter::detail {

// The first of the run's own fields (not its launches, only that "launches" is an array) that
// is missing or of the wrong type, e.g. `field "device.sm_count" must be a number, not a string
// ("132")`; empty when there is none.
std::string record_field_fault(const nlohmann::json& record);

// The same for one launch object: `field "grid" is missing`.
std::string launch_field_fault(const nlohmann::json& launch);

// ERROR's own words without the library's "[json.exception.type_error.302] " id: the fallback
// where no field can be named.
std::string json_error_words(const nlohmann::json::exception& error);

}  // namespace limiter::detail
