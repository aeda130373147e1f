// The details and raw pages of an Nsight Compute CSV, row by row, into launches.
#include "import/ncu_pages.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "import/ncu_section_labels.hpp"

namespace limiter::detail::ncu {
namespace {

// Columns of the raw page that describe the launch rather than hold a metric. Raw metric
// names never contain blanks, so any other title with one ("Kernel Time") is descriptive too.
bool is_descriptive_column(const std::string& title) {
  static const std::set<std::string_view> descriptive = {
      "ID",         "Process ID", "Process Name", "Host Name", "Kernel Name",  "Context",      "Stream",
      "Block Size", "Grid Size",  "Device",       "CC",        "Mangled Name", "Function Name"};
  return title.empty() || descriptive.contains(title) || title.find(' ') != std::string::npos;
}

void read_identity(PendingLaunch& pending, const IdentityColumns& columns, const Header& header, const CsvRow& row,
                   const std::string& origin) {
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
  if (std::all_of(row.fields.begin(), row.fields.end(), [](const std::string& f) { return trim(f).empty(); })) {
    return true;
  }
  return row.fields.size() == 1 && trim(row.fields[0]).starts_with("==");  // ==PROF== etc.
}

[[noreturn]] void fail_truncated(const std::string& origin, const CsvRow& row, std::size_t needed) {
  fail_at(origin, row.line,
          "the row has " + std::to_string(row.fields.size()) + " fields but the header needs " +
              std::to_string(needed) + " (a truncated or hand-edited row?)");
}

}  // namespace

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
      const std::string process = identity.process_id ? std::string(trim(row.fields[*identity.process_id])) : "";
      const auto [it, inserted] =
          launch_by_key.emplace(process + "/" + std::string(trim(row.fields[*identity.id])), launches.size());
      if (inserted) launches.emplace_back();
      pending = &launches[it->second];
    } else {
      const std::string kernel = identity.kernel_name ? std::string(trim(row.fields[*identity.kernel_name])) : "";
      if (launches.empty() || launches.back().launch.name != kernel || launches.back().lines.contains(metric) ||
          launches.back().texts.contains(metric)) {
        launches.emplace_back();
      }
      pending = &launches.back();
    }
    if (pending->line == 0) read_identity(*pending, identity, header, row, origin);

    add_metric(*pending, metric, metric_unit ? std::string_view(row.fields[*metric_unit]) : std::string_view(),
               row.fields[metric_value], Cell{origin, row.line, metric_value, header.titles[metric_value]},
               conflict_name);
  }
  return launches;
}

// The raw page: one row per launch, a units row under the header.
std::vector<PendingLaunch> read_raw(const std::vector<CsvRow>& rows, const Header& header, const std::string& origin) {
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
      add_metric(pending, header.titles[c], units[c], row.fields[c], Cell{origin, row.line, c, header.titles[c]});
    }
  }
  return launches;
}

}  // namespace limiter::detail::ncu
