// The checks and conversions of an Nsight Compute CSV import's launch while it is read.
#include "import/ncu_launch.hpp"

#include <cmath>
#include <limits>
#include <set>

#include "import/csv_table.hpp"
#include "import/ncu_units.hpp"
#include "limiter/error.hpp"

namespace limiter::detail::ncu {
namespace {

// Metrics this importer turns into launch or device fields: their values must be numbers.
bool is_interpreted_metric(std::string_view metric) {
  static const std::set<std::string_view> interpreted = {"launch__grid_size",
                                                         "launch__block_size",
                                                         "launch__grid_dim_x",
                                                         "launch__grid_dim_y",
                                                         "launch__grid_dim_z",
                                                         "launch__block_dim_x",
                                                         "launch__block_dim_y",
                                                         "launch__block_dim_z",
                                                         "launch__registers_per_thread",
                                                         "launch__shared_mem_per_block_static",
                                                         "launch__shared_mem_per_block_dynamic",
                                                         "launch__stream_id",
                                                         "launch__context_id",
                                                         "launch__device_id",
                                                         "launch__sm_count",
                                                         "device__attribute_multiprocessor_count",
                                                         "device__attribute_compute_capability_major",
                                                         "device__attribute_compute_capability_minor",
                                                         "device__attribute_l2_cache_size",
                                                         "device__attribute_total_memory",
                                                         "device__attribute_global_memory_bus_width",
                                                         "device__attribute_memory_clock_rate",
                                                         "gpu__time_duration.sum"};
  return interpreted.contains(metric);
}

// Values that are not one number and not an error either: "n/a" for metrics ncu could not
// collect, "nan"/"inf" from empty ratios, and per-instance lists ("1;2;3", written with
// --print-metric-instances), which a scalar counter cannot hold.
bool is_skipped_value(std::string_view value) {
  if (value.empty() || value.find("n/a") != std::string_view::npos) return true;
  if (value.find(';') != std::string_view::npos) return true;
  if (!value.empty() && (value.front() == '-' || value.front() == '+')) value.remove_prefix(1);
  return iequals(value, "nan") || iequals(value, "inf") || iequals(value, "infinity");
}

}  // namespace

const char* const kExportHint =
    "export one with `ncu --csv --page raw --print-units base ./app > run.csv` "
    "(or `ncu --import report.ncu-rep --csv --page raw --print-units base > run.csv`)";

void fail_at(const std::string& origin, std::size_t line, const std::string& message) {
  throw InputError(origin + ":" + std::to_string(line) + ": " + message);
}

void fail_cell(const Cell& cell, const std::string& message) {
  fail_at(cell.origin, cell.line, "column " + std::to_string(cell.column + 1) + " ('" + cell.title + "'): " + message);
}

// Stores one metric value. Text values are kept aside when the metric has no unit (ncu's
// text metrics: device name, cache config, scheduling policy); a text value where a quantity
// is expected is an error. A second, different value under the same name goes under
// `conflict_name` when one is given (details pages repeat labels across sections).
void add_metric(PendingLaunch& pending, const std::string& metric, std::string_view unit, std::string_view value_text,
                const Cell& cell, const std::string& conflict_name) {
  value_text = trim(value_text);
  unit = trim(unit);
  if (is_skipped_value(value_text)) return;
  if (const auto converted = to_base_units(value_text, unit)) {
    const double value = *converted;
    const auto [it, inserted] = pending.launch.counters.emplace(metric, value);
    if (inserted) {
      pending.units[metric] = std::string(unit);
      pending.lines[metric] = cell.line;
    } else if (it->second != value && !conflict_name.empty()) {
      add_metric(pending, conflict_name, unit, value_text, cell);
    }
    return;
  }
  if (!unit.empty() || is_interpreted_metric(metric)) {
    fail_cell(cell, "metric '" + metric + "' has the value '" + std::string(value_text) + "', which is not a number" +
                        (unit.empty() ? std::string() : " (unit '" + std::string(unit) + "')") +
                        "; fix the value or export the CSV again (" + kExportHint + ")");
  }
  pending.texts.emplace(metric, std::string(value_text));
}

std::optional<std::uint64_t> whole_number(double value) {
  if (!(value >= 0) || value != std::floor(value) || value >= 18446744073709551616.0) {
    return std::nullopt;
  }
  return static_cast<std::uint64_t>(value);
}

// A counter that must be a whole number (a size, a count, an id), if present.
std::optional<std::uint64_t> whole_counter(const PendingLaunch& pending, const std::string& metric,
                                           const std::string& origin) {
  const auto value = pending.launch.counter(metric);
  if (!value) return std::nullopt;
  const auto whole = whole_number(*value);
  if (!whole) {
    const auto line = pending.lines.find(metric);
    fail_at(origin, line == pending.lines.end() ? pending.line : line->second,
            metric + " is " + std::to_string(*value) + ", expected a whole number >= 0");
  }
  return whole;
}

std::uint32_t to_dimension(std::uint64_t value, const std::string& origin, std::size_t line, const std::string& what) {
  if (value == 0 || value > std::numeric_limits<std::uint32_t>::max()) {
    fail_at(origin, line, what + " " + std::to_string(value) + " is not a valid launch dimension");
  }
  return static_cast<std::uint32_t>(value);
}

// "(256, 1, 1)" → Dim3.
Dim3 parse_dim3(std::string_view text, const Cell& cell) {
  std::string_view inner = trim(text);
  if (inner.starts_with('(') && inner.ends_with(')')) inner = inner.substr(1, inner.size() - 2);
  std::uint32_t parts[3] = {1, 1, 1};
  std::size_t count = 0;
  while (true) {
    const std::size_t comma = inner.find(',');
    const auto value = parse_number(inner.substr(0, comma));
    const auto whole = value ? whole_number(*value) : std::nullopt;
    if (count == 3 || !whole || *whole == 0 || *whole > std::numeric_limits<std::uint32_t>::max()) {
      fail_cell(cell, "'" + std::string(text) + "' is not a launch dimension like (256, 1, 1)");
    }
    parts[count++] = static_cast<std::uint32_t>(*whole);
    if (comma == std::string_view::npos) break;
    inner.remove_prefix(comma + 1);
  }
  return Dim3{parts[0], parts[1], parts[2]};
}

std::optional<std::uint64_t> parse_id(std::string_view text, const Cell& cell) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  const auto value = parse_number(text);
  const auto whole = value ? whole_number(*value) : std::nullopt;
  if (!whole) fail_cell(cell, "'" + std::string(text) + "' is not a whole number");
  return whole;
}

}  // namespace limiter::detail::ncu
