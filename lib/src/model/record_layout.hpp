#pragma once
// The line layout every record limiter writes (run_json.cpp): shared by write_run_json and
// finish_partial_run, so a record and a recovered partial file read alike.
#include <cstddef>
#include <iosfwd>

#include <nlohmann/json.hpp>

#include "limiter/record.hpp"

namespace limiter::detail {

// The run's fields but its timeline and launches, in the order every writer puts them.
nlohmann::ordered_json run_fields_json(const RunRecord& run);
// FIELDS indented, then TIMELINE (if any) an event per line, STALLS (if any) on a line, then the
// opening of "launches".
void write_line_layout_head(std::ostream& out, const nlohmann::ordered_json& fields, const Timeline* timeline,
                            const StallInfo* stalls = nullptr);
inline const char* line_layout_separator(std::size_t index) { return index ? ",\n  " : "\n  "; }
inline constexpr const char* kLineLayoutEnd = "\n ]\n}\n";

}  // namespace limiter::detail
