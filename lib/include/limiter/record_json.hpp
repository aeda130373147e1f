#pragma once
// Versioned JSON for run records (nlohmann-json). Reading checks schema_version and names
// the file and the field on any error.
#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

#include "limiter/record.hpp"

namespace limiter {

nlohmann::ordered_json to_json(const RunRecord& run);
RunRecord run_from_json(const nlohmann::json& json, const std::string& origin = "<json>");

RunRecord read_run_file(const std::string& path);              // throws InputError
void write_run_file(const RunRecord& run, const std::string& path);  // atomic: temp + rename
void write_run_json(const RunRecord& run, std::ostream& out);

}  // namespace limiter
