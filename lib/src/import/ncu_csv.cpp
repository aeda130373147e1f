// Nsight Compute CSV → run record. Two forms, told apart by the header:
//  - details page (`ncu --csv`): one row per metric, columns "Metric Name", "Metric Unit",
//    "Metric Value"; metric names are section labels ("Duration") unless --metrics named raw
//    metrics; rule rows (empty metric name) and trailing rule columns are ignored.
//  - raw page (`ncu --csv --page raw`): one row per launch, one column per raw metric, and a
//    row of units under the header.
// Both start with whatever the profiled program and ncu printed (==PROF== lines), which is
// skipped. Columns are found by name, since ncu versions add columns. Here: finding the header
// and putting the record together; the pages are read in ncu_pages.cpp, the values checked in
// ncu_launch.cpp, the launch and device fields found in ncu_device.cpp.
#include <algorithm>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "import/csv_table.hpp"
#include "import/ncu_device.hpp"
#include "import/ncu_pages.hpp"
#include "limiter/error.hpp"
#include "limiter/import.hpp"
#include "model/gzip_input.hpp"

namespace limiter {
namespace {

using detail::trim;
using namespace detail::ncu;

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

// TABLE (from its header on) without the lines after its last row that are not rows of it:
// ncu quotes every field, so a row starts with a quote; ncu's own ==PROF== lines are skipped by
// the pages anyway. WARNINGS gets one line naming the first line left out.
std::string_view without_trailing_text(std::string_view table, std::size_t header_line, const std::string& origin,
                                       std::vector<std::string>* warnings) {
  std::size_t end = table.size();
  std::size_t left_out = 0;
  std::string_view first_left_out;
  std::size_t first_left_out_offset = 0;
  while (end > 0) {
    const std::size_t start = table.rfind('\n', end - 1) == std::string_view::npos ? 0 : table.rfind('\n', end - 1) + 1;
    if (start == 0) break;  // the header itself
    const std::string_view line = trim(table.substr(start, end - start));
    if (line.starts_with("\"")) break;
    if (!line.empty() && !line.starts_with("==")) {
      ++left_out;
      first_left_out = line;
      first_left_out_offset = start;
    }
    end = start - 1;
  }
  if (left_out == 0) return table;
  if (warnings) {
    const std::string_view above = table.substr(0, first_left_out_offset);
    const std::size_t line_number =
        header_line + static_cast<std::size_t>(std::count(above.begin(), above.end(), '\n'));
    const std::string shown =
        first_left_out.size() > 60 ? std::string(first_left_out.substr(0, 57)) + "..." : std::string(first_left_out);
    warnings->push_back("'" + origin + "': " + std::to_string(left_out) + (left_out == 1 ? " line" : " lines") +
                        " after the CSV table left out, from line " + std::to_string(line_number) + ": \"" + shown +
                        "\"");
  }
  return table.substr(0, end + 1);
}

}  // namespace

RunRecord import_ncu_csv_file(const std::string& path, std::vector<std::string>* warnings) {
  detail::GzipInputBuffer buffer(path);
  std::istream in(&buffer);
  return import_ncu_csv(in, path, warnings);
}

RunRecord import_ncu_csv(std::istream& in, const std::string& origin, std::vector<std::string>* warnings) {
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
  const auto rows = detail::parse_csv(
      without_trailing_text(text.substr(location->offset), location->line, origin, warnings), origin, location->line);
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
