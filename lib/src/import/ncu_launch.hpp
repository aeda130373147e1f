#pragma once
// An Nsight Compute CSV import's launch while it is read (ncu_csv.cpp): its metrics with the unit
// and row each came from, and the checks and conversions of the values (numbers, whole numbers,
// launch dimensions), whose messages name the file, the line and the column.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "limiter/record.hpp"

namespace limiter::detail::ncu {

extern const char* const kExportHint;

struct PendingLaunch {
  KernelLaunch launch;
  std::size_t line = 0;                      // first row of the launch, for messages
  std::map<std::string, std::size_t> lines;  // metric → row it came from
  std::map<std::string, std::string> units;  // metric → unit as written
  std::map<std::string, std::string> texts;  // metrics whose value is text (device name...)
  std::string device_column;                 // "Device": an index, or a name in some exports
  std::string cc_column;                     // "CC": "9.0"
  bool grid_from_column = false;
  bool block_from_column = false;
};

// Where a value was read, for error messages.
struct Cell {
  const std::string& origin;
  std::size_t line;
  std::size_t column;        // 0-based
  const std::string& title;  // header of that column
};

[[noreturn]] void fail_at(const std::string& origin, std::size_t line, const std::string& message);
[[noreturn]] void fail_cell(const Cell& cell, const std::string& message);

// Stores one metric value. Text values are kept aside when the metric has no unit (ncu's
// text metrics: device name, cache config, scheduling policy); a text value where a quantity
// is expected is an error. A second, different value under the same name goes under
// `conflict_name` when one is given (details pages repeat labels across sections).
void add_metric(PendingLaunch& pending, const std::string& metric, std::string_view unit, std::string_view value_text,
                const Cell& cell, const std::string& conflict_name = {});

std::optional<std::uint64_t> whole_number(double value);
// A counter that must be a whole number (a size, a count, an id), if present.
std::optional<std::uint64_t> whole_counter(const PendingLaunch& pending, const std::string& metric,
                                           const std::string& origin);
std::uint32_t to_dimension(std::uint64_t value, const std::string& origin, std::size_t line, const std::string& what);
// "(256, 1, 1)" → Dim3.
Dim3 parse_dim3(std::string_view text, const Cell& cell);
std::optional<std::uint64_t> parse_id(std::string_view text, const Cell& cell);

}  // namespace limiter::detail::ncu
