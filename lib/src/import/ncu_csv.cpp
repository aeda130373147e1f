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
#include "limiter/error.hpp"
#include "limiter/import.hpp"

namespace limiter {
namespace {

using detail::CsvRow;
using detail::parse_number;
using detail::trim;

constexpr const char* kExportHint =
    "export one with `ncu --csv --page raw --print-units base ./app > run.csv` "
    "(or `ncu --import report.ncu-rep --csv --page raw --print-units base > run.csv`)";

[[noreturn]] void fail_at(const std::string& origin, std::size_t line, const std::string& message) {
  throw InputError(origin + ":" + std::to_string(line) + ": " + message);
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return (x | 0x20) == (y | 0x20);  // ASCII case folding is enough for "n/a", "NaN"
         });
}

// ---------------------------------------------------------------------------------------
// Units. ncu writes values in units such as "byte", "Kbyte", "ns", "usecond", "cycle",
// "Ghz", "cycle/nsecond", "byte/s", "Tbyte/second", "register/thread", "%". Values become
// base units: bytes, nanoseconds for durations, hertz for frequencies, per second for rates.
// Scales are kept as powers of ten and applied to the decimal text, so that "6.912 Kbyte"
// becomes exactly 6912 bytes.

struct UnitScale {
  int decimal_exponent = 0;  // value × 10^decimal_exponent
  double binary_factor = 1;  // × 2^(10k) for Ki/Mi/Gi prefixes (exact in double)
};

struct UnitTerm {
  UnitScale scale;
  bool is_time = false;
};

// Unit words ncu prints. A word not listed counts things (warp, block, pass, cluster...) and
// is taken as given; prefixes are only read off words listed here, so an unknown word is
// never mis-scaled.
std::optional<UnitTerm> unit_word(std::string_view word) {
  static const std::set<std::string_view> time_words = {"second", "s", "sec"};
  static const std::set<std::string_view> plain_words = {
      "byte", "B",      "bit",     "hz",        "Hz",          "cycle",   "inst", "instruction",
      "warp", "thread", "block",   "register",  "sector",      "request", "SM",   "SMSP",
      "pass", "%",      "cluster", "wavefront", "transaction", "flop",    "op"};
  if (time_words.contains(word)) return UnitTerm{{}, true};
  if (plain_words.contains(word)) return UnitTerm{};
  return std::nullopt;
}

UnitTerm unit_term(std::string_view term) {
  term = trim(term);
  if (const auto word = unit_word(term)) return *word;
  struct Prefix {
    std::string_view text;
    UnitScale scale;
  };
  static const Prefix prefixes[] = {{"Ki", {0, 1024.0}},
                                    {"Mi", {0, 1048576.0}},
                                    {"Gi", {0, 1073741824.0}},
                                    {"Ti", {0, 1099511627776.0}},
                                    {"n", {-9, 1}},
                                    {"u", {-6, 1}},
                                    {"\xC2\xB5", {-6, 1}},
                                    {"m", {-3, 1}},
                                    {"K", {3, 1}},
                                    {"k", {3, 1}},
                                    {"M", {6, 1}},
                                    {"G", {9, 1}},
                                    {"T", {12, 1}},
                                    {"P", {15, 1}}};
  for (const auto& prefix : prefixes) {
    if (!term.starts_with(prefix.text)) continue;
    if (const auto word = unit_word(term.substr(prefix.text.size()))) {
      return UnitTerm{prefix.scale, word->is_time};
    }
  }
  return UnitTerm{};
}

// "Gbyte/second" → bytes per second; "usecond" → nanoseconds; "cycle/nsecond" → hertz.
UnitScale unit_scale(std::string_view unit) {
  unit = trim(unit);
  UnitScale scale;
  if (unit.empty()) return scale;
  std::size_t slash = unit.find('/');
  const UnitTerm numerator = unit_term(unit.substr(0, slash));
  scale = numerator.scale;
  if (numerator.is_time) scale.decimal_exponent += 9;  // durations in nanoseconds
  while (slash != std::string_view::npos) {
    const std::size_t next = unit.find('/', slash + 1);
    const UnitTerm denominator = unit_term(unit.substr(slash + 1, next - slash - 1));
    scale.decimal_exponent -= denominator.scale.decimal_exponent;  // rates per second
    scale.binary_factor /= denominator.scale.binary_factor;
    slash = next;
  }
  return scale;
}

// The value of `text` in base units, or nullopt when it is not a number.
std::optional<double> to_base_units(std::string_view text, std::string_view unit) {
  const UnitScale scale = unit_scale(unit);
  const auto value = parse_number(text, scale.decimal_exponent);
  if (!value) return std::nullopt;
  return *value * scale.binary_factor;
}

// ---------------------------------------------------------------------------------------
// Section labels of the details page → raw metric names, from the section files that ship
// with ncu 2025.3 (SpeedOfLight, LaunchStatistics, Occupancy, WorkloadDistribution,
// MemoryWorkloadAnalysis, ComputeWorkloadAnalysis). Keyed by section because labels repeat
// with other meanings ("Memory Throughput" is a % in one section and bytes/s in another).

struct SectionLabel {
  std::string_view section;     // display name, as the "Section Name" column shows it
  std::string_view identifier;  // the section file's identifier, in case a version shows it
  std::string_view label;
  std::string_view metric;
};

constexpr std::string_view kSol = "GPU Speed Of Light Throughput";
constexpr std::string_view kLaunch = "Launch Statistics";
constexpr std::string_view kOccupancy = "Occupancy";
constexpr std::string_view kWorkload = "GPU and Memory Workload Distribution";
constexpr std::string_view kMemory = "Memory Workload Analysis";
constexpr std::string_view kCompute = "Compute Workload Analysis";

// clang-format off
constexpr SectionLabel kSectionLabels[] = {
    {kSol, "SpeedOfLight", "Compute (SM) Throughput", "sm__throughput.avg.pct_of_peak_sustained_elapsed"},
    {kSol, "SpeedOfLight", "Duration", "gpu__time_duration.sum"},
    {kSol, "SpeedOfLight", "Memory Throughput", "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"},
    {kSol, "SpeedOfLight", "Elapsed Cycles", "gpc__cycles_elapsed.max"},
    {kSol, "SpeedOfLight", "L1/TEX Cache Throughput", "l1tex__throughput.avg.pct_of_peak_sustained_active"},
    {kSol, "SpeedOfLight", "SM Active Cycles", "sm__cycles_active.avg"},
    {kSol, "SpeedOfLight", "L2 Cache Throughput", "lts__throughput.avg.pct_of_peak_sustained_elapsed"},
    {kSol, "SpeedOfLight", "SM Frequency", "gpc__cycles_elapsed.avg.per_second"},
    {kSol, "SpeedOfLight", "DRAM Throughput", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"},
    {kSol, "SpeedOfLight", "DRAM Frequency", "dram__cycles_elapsed.avg.per_second"},
    {kSol, "SpeedOfLight", "Waves Per SM", "launch__waves_per_multiprocessor"},
    {kLaunch, "LaunchStats", "Grid Size", "launch__grid_size"},
    {kLaunch, "LaunchStats", "Block Size", "launch__block_size"},
    {kLaunch, "LaunchStats", "Threads", "launch__thread_count"},
    {kLaunch, "LaunchStats", "Registers Per Thread", "launch__registers_per_thread"},
    {kLaunch, "LaunchStats", "Static Shared Memory Per Block", "launch__shared_mem_per_block_static"},
    {kLaunch, "LaunchStats", "Dynamic Shared Memory Per Block", "launch__shared_mem_per_block_dynamic"},
    {kLaunch, "LaunchStats", "Driver Shared Memory Per Block", "launch__shared_mem_per_block_driver"},
    {kLaunch, "LaunchStats", "Shared Memory Configuration Size", "launch__shared_mem_config_size"},
    {kLaunch, "LaunchStats", "Function Cache Configuration", "launch__func_cache_config"},
    {kLaunch, "LaunchStats", "Cluster Size", "launch__cluster_size"},
    {kLaunch, "LaunchStats", "Preferred Cluster Size", "launch__preferred_cluster_size"},
    {kLaunch, "LaunchStats", "Cluster Scheduling Policy", "launch__cluster_scheduling_policy"},
    {kLaunch, "LaunchStats", "Waves Per SM", "launch__waves_per_multiprocessor"},
    {kLaunch, "LaunchStats", "Uses Green Context", "launch__uses_green_context"},
    {kLaunch, "LaunchStats", "Stack Size", "launch__stack_size"},
    {kLaunch, "LaunchStats", "# SMs", "launch__sm_count"},
    {kLaunch, "LaunchStats", "# TPCs", "launch__tpc_count"},
    {kLaunch, "LaunchStats", "Enabled TPC IDs", "launch__tpc_enabled"},
    {kOccupancy, "Occupancy", "Theoretical Occupancy", "sm__maximum_warps_per_active_cycle_pct"},
    {kOccupancy, "Occupancy", "Theoretical Active Warps per SM", "sm__maximum_warps_avg_per_active_cycle"},
    {kOccupancy, "Occupancy", "Achieved Occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active"},
    {kOccupancy, "Occupancy", "Achieved Active Warps Per SM", "sm__warps_active.avg.per_cycle_active"},
    {kOccupancy, "Occupancy", "Block Limit Registers", "launch__occupancy_limit_registers"},
    {kOccupancy, "Occupancy", "Block Limit Shared Mem", "launch__occupancy_limit_shared_mem"},
    {kOccupancy, "Occupancy", "Block Limit Warps", "launch__occupancy_limit_warps"},
    {kOccupancy, "Occupancy", "Block Limit SM", "launch__occupancy_limit_blocks"},
    {kOccupancy, "Occupancy", "Block Limit Barriers", "launch__occupancy_limit_barriers"},
    {kOccupancy, "Occupancy", "Cluster Occupancy", "launch__occupancy_cluster_pct"},
    {kOccupancy, "Occupancy", "Overall GPU Occupancy", "launch__occupancy_cluster_gpu_pct"},
    {kOccupancy, "Occupancy", "Max Active Clusters", "launch__cluster_max_active"},
    {kOccupancy, "Occupancy", "Max Cluster Size", "launch__cluster_max_potential_size"},
    {kWorkload, "WorkloadDistribution", "Average SM Active Cycles", "sm__cycles_active.avg"},
    {kWorkload, "WorkloadDistribution", "Average L1 Active Cycles", "l1tex__cycles_active.avg"},
    {kWorkload, "WorkloadDistribution", "Average L2 Active Cycles", "lts__cycles_active.avg"},
    {kWorkload, "WorkloadDistribution", "Average SMSP Active Cycles", "smsp__cycles_active.avg"},
    {kWorkload, "WorkloadDistribution", "Average DRAM Active Cycles", "dram__cycles_active.avg"},
    {kWorkload, "WorkloadDistribution", "Total SM Elapsed Cycles", "sm__cycles_elapsed.sum"},
    {kWorkload, "WorkloadDistribution", "Total L1 Elapsed Cycles", "l1tex__cycles_elapsed.sum"},
    {kWorkload, "WorkloadDistribution", "Total L2 Elapsed Cycles", "lts__cycles_elapsed.sum"},
    {kWorkload, "WorkloadDistribution", "Total SMSP Elapsed Cycles", "smsp__cycles_elapsed.sum"},
    {kWorkload, "WorkloadDistribution", "Total DRAM Elapsed Cycles", "dram__cycles_elapsed.sum"},
    {kMemory, "MemoryWorkloadAnalysis", "Memory Throughput", "dram__bytes.sum.per_second"},
    {kMemory, "MemoryWorkloadAnalysis", "Mem Busy", "gpu__compute_memory_access_throughput.avg.pct_of_peak_sustained_elapsed"},
    {kMemory, "MemoryWorkloadAnalysis", "Max Bandwidth", "gpu__compute_memory_request_throughput.avg.pct_of_peak_sustained_elapsed"},
    {kMemory, "MemoryWorkloadAnalysis", "Mem Pipes Busy", "sm__memory_throughput.avg.pct_of_peak_sustained_elapsed"},
    {kMemory, "MemoryWorkloadAnalysis", "L1/TEX Hit Rate", "l1tex__t_sector_hit_rate.pct"},
    {kMemory, "MemoryWorkloadAnalysis", "L2 Hit Rate", "lts__t_sector_hit_rate.pct"},
    {kMemory, "MemoryWorkloadAnalysis", "L2 Persisting Size", "launch__persisting_l2_cache_size"},
    {kCompute, "ComputeWorkloadAnalysis", "Executed Ipc Elapsed", "sm__inst_executed.avg.per_cycle_elapsed"},
    {kCompute, "ComputeWorkloadAnalysis", "Executed Ipc Active", "sm__inst_executed.avg.per_cycle_active"},
    {kCompute, "ComputeWorkloadAnalysis", "Issued Ipc Active", "sm__inst_issued.avg.per_cycle_active"},
    {kCompute, "ComputeWorkloadAnalysis", "SM Busy", "sm__instruction_throughput.avg.pct_of_peak_sustained_elapsed"},
    {kCompute, "ComputeWorkloadAnalysis", "Issue Slots Busy", "sm__inst_issued.avg.pct_of_peak_sustained_elapsed"},
};
// clang-format on

// The raw name behind a details-page metric name. Raw names (with "__") pass through; a label
// of a known section maps to its metric; in an unknown section a label maps only when no other
// section uses it; anything else keeps its label.
std::string raw_metric_name(std::string_view section, std::string_view name) {
  if (name.find("__") != std::string_view::npos) return std::string(name);
  bool section_known = false;
  std::set<std::string_view> candidates;
  for (const auto& entry : kSectionLabels) {
    const bool in_section = entry.section == section || entry.identifier == section;
    if (entry.label == name && in_section) return std::string(entry.metric);
    section_known = section_known || in_section;
    if (entry.label == name) candidates.insert(entry.metric);
  }
  if (!section_known && candidates.size() == 1) return std::string(*candidates.begin());
  return std::string(name);
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
