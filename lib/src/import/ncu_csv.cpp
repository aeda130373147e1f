// Nsight Compute CSV → run record. Two forms, told apart by the header:
//  - details page (`ncu --csv`): one row per metric, columns "Metric Name", "Metric Unit",
//    "Metric Value"; metric names are section labels ("Duration") unless --metrics named raw
//    metrics; rule rows (empty metric name) and trailing rule columns are ignored.
//  - raw page (`ncu --csv --page raw`): one row per launch, one column per raw metric, and a
//    row of units under the header.
// Both start with whatever the profiled program and ncu printed (==PROF== lines), which is
// skipped. Columns are found by name, since ncu versions add columns.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <istream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "import/csv_table.hpp"
#include "import/ncu_section_labels.hpp"
#include "import/ncu_units.hpp"
#include "limiter/error.hpp"
#include "limiter/import.hpp"

namespace limiter {
namespace {

using detail::CsvRow;
using detail::iequals;
using detail::raw_metric_name;
using detail::to_base_units;
using detail::parse_number;
using detail::trim;

constexpr const char* kExportHint =
    "export one with `ncu --csv --page raw --print-units base ./app > run.csv` "
    "(or `ncu --import report.ncu-rep --csv --page raw --print-units base > run.csv`)";

[[noreturn]] void fail_at(const std::string& origin, std::size_t line, const std::string& message) {
  throw InputError(origin + ":" + std::to_string(line) + ": " + message);
}

// ---------------------------------------------------------------------------------------
// Launches being read.

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

[[noreturn]] void fail_cell(const Cell& cell, const std::string& message) {
  fail_at(cell.origin, cell.line,
          "column " + std::to_string(cell.column + 1) + " ('" + cell.title + "'): " + message);
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

// Stores one metric value. Text values are kept aside when the metric has no unit (ncu's
// text metrics: device name, cache config, scheduling policy); a text value where a quantity
// is expected is an error. A second, different value under the same name goes under
// `conflict_name` when one is given (details pages repeat labels across sections).
void add_metric(PendingLaunch& pending, const std::string& metric, std::string_view unit,
                std::string_view value_text, const Cell& cell, const std::string& conflict_name = {}) {
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
    fail_cell(cell, "metric '" + metric + "' has the value '" + std::string(value_text) +
                        "', which is not a number" +
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

std::uint32_t to_dimension(std::uint64_t value, const std::string& origin, std::size_t line,
                           const std::string& what) {
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

// ---------------------------------------------------------------------------------------
// Columns.

struct Header {
  std::vector<std::string> titles;
  std::size_t line = 0;

  std::optional<std::size_t> find(std::string_view title) const {
    for (std::size_t i = 0; i < titles.size(); ++i) {
      if (titles[i] == title) return i;
    }
    return std::nullopt;
  }
};

struct IdentityColumns {
  std::optional<std::size_t> id, process_id, kernel_name, mangled_name, context, stream, block_size,
      grid_size, device, cc;

  explicit IdentityColumns(const Header& h)
      : id(h.find("ID")),
        process_id(h.find("Process ID")),
        kernel_name(h.find("Kernel Name")),
        mangled_name(h.find("Mangled Name") ? h.find("Mangled Name") : h.find("Function Name")),
        context(h.find("Context")),
        stream(h.find("Stream")),
        block_size(h.find("Block Size")),
        grid_size(h.find("Grid Size")),
        device(h.find("Device")),
        cc(h.find("CC")) {}

  std::size_t last_index() const {
    std::size_t last = 0;
    for (const auto& column :
         {id, process_id, kernel_name, mangled_name, context, stream, block_size, grid_size, device, cc}) {
      if (column) last = std::max(last, *column);
    }
    return last;
  }
};

// Columns of the raw page that describe the launch rather than hold a metric. Raw metric
// names never contain blanks, so any other title with one ("Kernel Time") is descriptive too.
bool is_descriptive_column(const std::string& title) {
  static const std::set<std::string_view> descriptive = {
      "ID",         "Process ID", "Process Name", "Host Name", "Kernel Name",  "Context",      "Stream",
      "Block Size", "Grid Size",  "Device",       "CC",        "Mangled Name", "Function Name"};
  return title.empty() || descriptive.contains(title) || title.find(' ') != std::string::npos;
}

void read_identity(PendingLaunch& pending, const IdentityColumns& columns, const Header& header,
                   const CsvRow& row, const std::string& origin) {
  const auto cell = [&](std::size_t column) { return Cell{origin, row.line, column, header.titles[column]}; };
  const auto text = [&](const std::optional<std::size_t>& column) -> std::string {
    return column ? std::string(trim(row.fields[*column])) : std::string();
  };
  pending.line = row.line;
  KernelLaunch& launch = pending.launch;
  launch.name = text(columns.kernel_name);
  if (launch.name.empty()) fail_at(origin, row.line, "the 'Kernel Name' column is empty");
  launch.mangled_name = text(columns.mangled_name);
  if (columns.grid_size && !text(columns.grid_size).empty()) {
    launch.grid = parse_dim3(text(columns.grid_size), cell(*columns.grid_size));
    pending.grid_from_column = true;
  }
  if (columns.block_size && !text(columns.block_size).empty()) {
    launch.block = parse_dim3(text(columns.block_size), cell(*columns.block_size));
    pending.block_from_column = true;
  }
  if (columns.stream) launch.stream_id = parse_id(text(columns.stream), cell(*columns.stream));
  if (columns.context) launch.context_id = parse_id(text(columns.context), cell(*columns.context));
  pending.device_column = text(columns.device);
  if (const auto index = parse_number(pending.device_column)) {
    const auto whole = whole_number(*index);
    if (whole && *whole <= 1024) launch.device = static_cast<int>(*whole);
  }
  pending.cc_column = text(columns.cc);
}

bool is_skipped_row(const CsvRow& row) {
  if (std::all_of(row.fields.begin(), row.fields.end(),
                  [](const std::string& f) { return trim(f).empty(); })) {
    return true;
  }
  return row.fields.size() == 1 && trim(row.fields[0]).starts_with("==");  // ==PROF== etc.
}

[[noreturn]] void fail_truncated(const std::string& origin, const CsvRow& row, std::size_t needed) {
  fail_at(origin, row.line,
          "the row has " + std::to_string(row.fields.size()) + " fields but the header needs " +
              std::to_string(needed) + " (a truncated or hand-edited row?)");
}

// ---------------------------------------------------------------------------------------
// The details page: one row per (launch, metric).

std::vector<PendingLaunch> read_details(const std::vector<CsvRow>& rows, const Header& header,
                                        const std::string& origin) {
  const IdentityColumns identity(header);
  const std::size_t metric_name = *header.find("Metric Name");
  const std::size_t metric_value = *header.find("Metric Value");
  const auto metric_unit = header.find("Metric Unit");
  const auto section = header.find("Section Name");
  // Newer ncu versions end metric rows after "Metric Value" with the rule columns left out,
  // so a row only needs to reach the last column read.
  std::size_t needed = std::max({identity.last_index(), metric_name, metric_value});
  if (metric_unit) needed = std::max(needed, *metric_unit);
  if (section) needed = std::max(needed, *section);
  ++needed;

  std::vector<PendingLaunch> launches;
  std::map<std::string, std::size_t> launch_by_key;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const CsvRow& row = rows[r];
    if (is_skipped_row(row) || row.fields == header.titles) continue;
    if (row.fields.size() < needed) fail_truncated(origin, row, needed);
    const std::string name(trim(row.fields[metric_name]));
    if (name.empty()) continue;  // a rule's message, not a metric
    const std::string section_name = section ? std::string(trim(row.fields[*section])) : std::string();
    const std::string metric = raw_metric_name(section_name, name);
    const std::string conflict_name = section_name.empty() ? std::string() : section_name + ": " + name;

    // One launch per (process, ID); without an ID column a launch ends when the kernel
    // changes or a metric repeats.
    PendingLaunch* pending = nullptr;
    if (identity.id) {
      const std::string process =
          identity.process_id ? std::string(trim(row.fields[*identity.process_id])) : "";
      const auto [it, inserted] =
          launch_by_key.emplace(process + "/" + std::string(trim(row.fields[*identity.id])), launches.size());
      if (inserted) launches.emplace_back();
      pending = &launches[it->second];
    } else {
      const std::string kernel =
          identity.kernel_name ? std::string(trim(row.fields[*identity.kernel_name])) : "";
      if (launches.empty() || launches.back().launch.name != kernel ||
          launches.back().lines.contains(metric) || launches.back().texts.contains(metric)) {
        launches.emplace_back();
      }
      pending = &launches.back();
    }
    if (pending->line == 0) read_identity(*pending, identity, header, row, origin);

    add_metric(*pending, metric,
               metric_unit ? std::string_view(row.fields[*metric_unit]) : std::string_view(),
               row.fields[metric_value], Cell{origin, row.line, metric_value, header.titles[metric_value]},
               conflict_name);
  }
  return launches;
}

// ---------------------------------------------------------------------------------------
// The raw page: one row per launch, a units row under the header.

std::vector<PendingLaunch> read_raw(const std::vector<CsvRow>& rows, const Header& header,
                                    const std::string& origin) {
  const IdentityColumns identity(header);
  const std::size_t width = header.titles.size();
  std::vector<std::string> units(width);
  std::vector<PendingLaunch> launches;
  bool expect_units = true;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const CsvRow& row = rows[r];
    if (is_skipped_row(row)) continue;
    if (row.fields == header.titles) {  // a second export appended to the first
      expect_units = true;
      continue;
    }
    if (row.fields.size() < width) fail_truncated(origin, row, width);
    for (std::size_t c = width; c < row.fields.size(); ++c) {
      if (!trim(row.fields[c]).empty()) {
        fail_at(origin, row.line,
                "the row has " + std::to_string(row.fields.size()) + " fields but the header only " +
                    std::to_string(width));
      }
    }
    // The units row leaves the launch columns (ID, Kernel Name) empty.
    const auto key_column = identity.id ? identity.id : identity.kernel_name;
    if (expect_units && key_column && trim(row.fields[*key_column]).empty()) {
      for (std::size_t c = 0; c < width; ++c) units[c] = std::string(trim(row.fields[c]));
      expect_units = false;
      continue;
    }
    expect_units = false;

    PendingLaunch& pending = launches.emplace_back();
    read_identity(pending, identity, header, row, origin);
    for (std::size_t c = 0; c < width; ++c) {
      if (is_descriptive_column(header.titles[c])) continue;
      add_metric(pending, header.titles[c], units[c], row.fields[c],
                 Cell{origin, row.line, c, header.titles[c]});
    }
  }
  return launches;
}

// ---------------------------------------------------------------------------------------
// Launch and device fields from the metrics.

void fill_launch_fields(PendingLaunch& pending, const std::string& origin) {
  KernelLaunch& launch = pending.launch;
  const auto whole = [&](const char* metric) { return whole_counter(pending, metric, origin); };
  const auto dimension = [&](const char* metric) -> std::optional<std::uint32_t> {
    const auto value = whole(metric);
    if (!value) return std::nullopt;
    return to_dimension(*value, origin, pending.lines[metric], metric);
  };
  const auto dim3_from = [&](const char* x, const char* y, const char* z,
                             const char* total) -> std::optional<Dim3> {
    if (const auto dx = dimension(x)) return Dim3{*dx, dimension(y).value_or(1), dimension(z).value_or(1)};
    if (const auto all = dimension(total)) return Dim3{*all, 1, 1};  // only the total is known
    return std::nullopt;
  };
  if (!pending.grid_from_column) {
    if (const auto grid = dim3_from("launch__grid_dim_x", "launch__grid_dim_y", "launch__grid_dim_z",
                                    "launch__grid_size")) {
      launch.grid = *grid;
    }
  }
  if (!pending.block_from_column) {
    if (const auto block = dim3_from("launch__block_dim_x", "launch__block_dim_y", "launch__block_dim_z",
                                     "launch__block_size")) {
      launch.block = *block;
    }
  }
  if (const auto registers = whole("launch__registers_per_thread")) {
    launch.registers_per_thread = static_cast<int>(std::min<std::uint64_t>(*registers, 1u << 16));
  }
  launch.static_shared_bytes = whole("launch__shared_mem_per_block_static");
  launch.dynamic_shared_bytes = whole("launch__shared_mem_per_block_dynamic");
  if (!launch.stream_id) launch.stream_id = whole("launch__stream_id");
  if (!launch.context_id) launch.context_id = whole("launch__context_id");
  if (!launch.device) {
    if (const auto device = whole("launch__device_id"); device && *device <= 1024) {
      launch.device = static_cast<int>(*device);
    }
  }
}

// "9.0" → "sm_90", "12.1" → "sm_121".
std::string arch_from_compute_capability(std::uint64_t major, std::uint64_t minor) {
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

std::optional<double> mean_counter(const std::vector<PendingLaunch>& launches, const char* metric) {
  double sum = 0;
  std::size_t count = 0;
  for (const auto& pending : launches) {
    if (const auto value = pending.launch.counter(metric)) {
      sum += *value;
      ++count;
    }
  }
  if (count == 0) return std::nullopt;
  return sum / static_cast<double>(count);
}

DeviceDescription describe_device(const std::vector<PendingLaunch>& launches, const std::string& origin) {
  DeviceDescription device;
  const PendingLaunch& first = launches.front();
  const auto whole = [&](const char* metric) { return whole_counter(first, metric, origin); };

  if (const auto it = first.texts.find("device__attribute_display_name"); it != first.texts.end()) {
    device.name = it->second;
  } else if (!first.device_column.empty() && !parse_number(first.device_column)) {
    device.name = first.device_column;  // some exports put the name in "Device"
  }
  if (!first.cc_column.empty()) {
    const std::string_view cc = first.cc_column;
    const std::size_t dot = cc.find('.');
    const auto major = parse_number(cc.substr(0, dot));
    const auto minor =
        dot == std::string_view::npos ? std::optional<double>(0) : parse_number(cc.substr(dot + 1));
    const auto major_whole = major ? whole_number(*major) : std::nullopt;
    const auto minor_whole = minor ? whole_number(*minor) : std::nullopt;
    if (!major_whole || !minor_whole || *minor_whole > 9) {
      fail_at(origin, first.line,
              "'" + first.cc_column + "' in column 'CC' is not a compute capability like 9.0");
    }
    device.arch = arch_from_compute_capability(*major_whole, *minor_whole);
  } else if (const auto major = whole("device__attribute_compute_capability_major")) {
    device.arch =
        arch_from_compute_capability(*major, whole("device__attribute_compute_capability_minor").value_or(0));
  }
  if (const auto it = first.texts.find("device__attribute_chip"); it != first.texts.end()) {
    device.chip = it->second;  // ncu 2025 writes a number here; older versions a name
  }
  const auto sm_count = whole("device__attribute_multiprocessor_count")
                            ? whole("device__attribute_multiprocessor_count")
                            : whole("launch__sm_count");
  if (sm_count) device.sm_count = static_cast<int>(std::min<std::uint64_t>(*sm_count, 1u << 20));
  device.l2_bytes = whole("device__attribute_l2_cache_size");
  device.global_memory_bytes = whole("device__attribute_total_memory");
  if (const auto width = whole("device__attribute_global_memory_bus_width")) {
    device.memory_bus_width_bits = static_cast<int>(std::min<std::uint64_t>(*width, 1u << 20));
  }
  // The clocks the counters ran at (ncu locks them to base by default), averaged over launches.
  device.sm_clock_hz = mean_counter(launches, "sm__cycles_elapsed.avg.per_second");
  if (!device.sm_clock_hz) device.sm_clock_hz = mean_counter(launches, "gpc__cycles_elapsed.avg.per_second");
  device.memory_clock_hz = mean_counter(launches, "dram__cycles_elapsed.avg.per_second");
  if (!device.memory_clock_hz) {
    if (const auto rate = first.launch.counter("device__attribute_memory_clock_rate")) {
      // A CUDA device attribute, in kHz when ncu gives it without a unit.
      const auto unit = first.units.find("device__attribute_memory_clock_rate");
      const bool in_khz = unit == first.units.end() || unit->second.empty();
      device.memory_clock_hz = in_khz ? *rate * 1000 : *rate;
    }
  }
  return device;
}

// ---------------------------------------------------------------------------------------
// Finding the header among the lines ncu and the program printed before it.

struct HeaderLocation {
  std::size_t offset = 0;  // byte offset of the header line in the text
  std::size_t line = 0;    // its 1-based line number
};

std::optional<HeaderLocation> find_header(std::string_view text, const std::string& origin) {
  std::size_t offset = 0;
  std::size_t line = 1;
  while (offset < text.size()) {
    const std::size_t end = std::min(text.find('\n', offset), text.size());
    const std::string_view candidate = text.substr(offset, end - offset);
    if (candidate.find("Kernel Name") != std::string_view::npos && !trim(candidate).starts_with("==")) {
      try {
        const auto rows = detail::parse_csv(candidate, origin, line);
        if (rows.size() == 1) {
          for (const auto& field : rows[0].fields) {
            if (trim(field) == "Kernel Name") return HeaderLocation{offset, line};
          }
        }
      } catch (const InputError&) {
        // a log line with an unbalanced quote: not the header
      }
    }
    offset = end + 1;
    ++line;
  }
  return std::nullopt;
}

}  // namespace

RunRecord import_ncu_csv(std::istream& in, const std::string& origin) {
  const std::string content = detail::read_all(in, origin);
  const std::string_view text = detail::strip_bom(content);
  const auto location = find_header(text, origin);
  if (!location) {
    throw InputError("'" + origin + "' does not look like an Nsight Compute CSV: " +
                     (trim(text).empty() ? std::string("the file is empty")
                                         : std::string("no header row with a \"Kernel Name\" column")) +
                     "; " + kExportHint +
                     ". Plain kernel,metric,value rows are imported as csv "
                     "(limiter import --from csv)");
  }
  const auto rows = detail::parse_csv(text.substr(location->offset), origin, location->line);
  Header header{{}, location->line};
  for (const auto& title : rows.front().fields) header.titles.emplace_back(trim(title));

  const bool details_page = header.find("Metric Name") && header.find("Metric Value");
  std::vector<PendingLaunch> launches =
      details_page ? read_details(rows, header, origin) : read_raw(rows, header, origin);
  if (launches.empty()) {
    throw InputError(origin + ":" + std::to_string(header.line) +
                     ": the header is followed by no kernel rows (did the profiled program launch "
                     "a kernel, and did ncu's --kernel-name/--launch-count filters match it?)");
  }

  RunRecord run;
  run.source = "ncu-csv";
  run.counter_model = CounterModel::perfworks;
  for (auto& pending : launches) fill_launch_fields(pending, origin);
  run.device = describe_device(launches, origin);
  run.launches.reserve(launches.size());
  for (auto& pending : launches) {
    pending.launch.sequence = run.launches.size();
    run.launches.push_back(std::move(pending.launch));
  }
  return run;
}

}  // namespace limiter
