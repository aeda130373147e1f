// Plain `kernel,metric,value` CSV → run record: the way to bring counters of tools that
// are gone (the Fermi/Kepler command-line profiler's events) or of anything else.
//
//   # lines starting with '#' are comments; blank lines are ignored
//   kernel,metric,value                       <- optional header
//   "fwd_3D_orderX2b<4,9>",l1_local_load_miss,564332
//
// Kernel names with commas must be quoted (RFC 4180). Each kernel is one launch, in the order
// kernels first appear; a metric may appear once per kernel. Values are numbers in the
// counter's own unit (thousands separators allowed inside quotes: "564,332").
//
// The launch configuration, which old profilers did not export, may ride along as
// pseudo-metrics named like Nsight Compute's (they stay in the counters too):
//   launch__grid_size, launch__block_size        blocks, threads per block (totals)
//   launch__registers_per_thread
//   launch__shared_mem_per_block                 static + dynamic shared bytes per block
//     (or launch__shared_mem_per_block_static / launch__shared_mem_per_block_dynamic)
//   launch__local_bytes_per_thread               local memory (spills, arrays), from ptxas -v
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <istream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "import/csv_table.hpp"
#include "limiter/error.hpp"
#include "limiter/import.hpp"
#include "model/gzip_input.hpp"

namespace limiter {
namespace {

using detail::trim;

[[noreturn]] void fail_at(const std::string& origin, std::size_t line, const std::string& message) {
  throw InputError(origin + ":" + std::to_string(line) + ": " + message);
}

// Events of the Fermi/Kepler profiler (CUPTI event API). Per-SM L1 counters count 128-byte
// transactions; L2 sub-partition counters count 32-byte sectors.
bool is_legacy_event(std::string_view metric) {
  static const std::set<std::string_view> events = {"inst_issued",
                                                    "inst_issued1",
                                                    "inst_issued2",
                                                    "inst_executed",
                                                    "thread_inst_executed",
                                                    "elapsed_cycles_sm",
                                                    "active_cycles",
                                                    "active_warps",
                                                    "warps_launched",
                                                    "threads_launched",
                                                    "sm_cta_launched",
                                                    "gld_request",
                                                    "gst_request",
                                                    "local_load",
                                                    "local_store",
                                                    "shared_load",
                                                    "shared_store",
                                                    "branch",
                                                    "divergent_branch",
                                                    "global_store_transaction",
                                                    "uncached_global_load_transaction",
                                                    "atom_count",
                                                    "gred_count",
                                                    "atom_cas_count",
                                                    "global_ld_mem_divergence_replays",
                                                    "global_st_mem_divergence_replays",
                                                    "shared_load_replay",
                                                    "shared_store_replay",
                                                    "not_predicated_off_thread_inst_executed"};
  static const std::string_view families[] = {
      "l1_local_", "l1_global_", "l1_shared_", "l2_subp",       "fb_subp",
      "fb0_subp",  "fb1_subp",   "tex0_",      "tex1_",         "tex2_",
      "tex3_",     "gld_inst_",  "gst_inst_",  "prof_trigger_", "thread_inst_executed_"};
  if (events.contains(metric)) return true;
  return std::any_of(std::begin(families), std::end(families),
                     [&](std::string_view family) { return metric.starts_with(family); });
}

bool is_launch_pseudo_metric(std::string_view metric) { return metric.starts_with("launch__"); }

bool is_perfworks_metric(std::string_view metric) {
  return metric.find("__") != std::string_view::npos && !is_launch_pseudo_metric(metric);
}

// "sm_20", "sm_90", "sm_100a": the form only; the occupancy tables decide whether it is known.
bool looks_like_arch(std::string_view arch) {
  if (!arch.starts_with("sm_")) return false;
  arch.remove_prefix(3);
  if (!arch.empty() && std::islower(static_cast<unsigned char>(arch.back()))) arch.remove_suffix(1);
  return (arch.size() == 2 || arch.size() == 3) &&
         std::all_of(arch.begin(), arch.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

bool is_header(const std::vector<std::string>& fields) {
  static const char* const names[] = {"kernel", "metric", "value"};
  if (fields.size() < 3) return false;
  for (std::size_t i = 0; i < 3; ++i) {
    std::string field(trim(fields[i]));
    std::transform(field.begin(), field.end(), field.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (field != names[i]) return false;
  }
  return true;
}

struct PendingKernel {
  KernelLaunch launch;
  std::map<std::string, std::size_t> lines;  // metric → line it came from
};

void fill_launch_fields(PendingKernel& kernel, const std::string& origin) {
  KernelLaunch& launch = kernel.launch;
  const auto whole = [&](const char* metric, std::uint64_t max) -> std::optional<std::uint64_t> {
    const auto value = launch.counter(metric);
    if (!value) return std::nullopt;
    if (!(*value >= 0) || *value != std::floor(*value) || *value > static_cast<double>(max)) {
      fail_at(origin, kernel.lines[metric],
              metric + std::string(" must be a whole number from 0 to ") + std::to_string(max));
    }
    return static_cast<std::uint64_t>(*value);
  };
  const auto dimension = [&](const char* metric) -> std::optional<std::uint32_t> {
    const auto value = whole(metric, 0xFFFFFFFFu);
    if (value && *value == 0) fail_at(origin, kernel.lines[metric], std::string(metric) + " must be at least 1");
    if (!value) return std::nullopt;
    return static_cast<std::uint32_t>(*value);
  };
  // An absent launch configuration stays 0 x 0 x 0 (unknown), so that no occupancy or
  // waves are computed from a made-up block of one thread.
  launch.grid = Dim3{0, 0, 0};
  launch.block = Dim3{0, 0, 0};
  if (const auto grid = dimension("launch__grid_size")) launch.grid = Dim3{*grid, 1, 1};
  if (const auto block = dimension("launch__block_size")) launch.block = Dim3{*block, 1, 1};
  if (const auto registers = whole("launch__registers_per_thread", 1024)) {
    launch.registers_per_thread = static_cast<int>(*registers);
  }
  constexpr std::uint64_t kMaxBytes = std::uint64_t{1} << 40;
  launch.static_shared_bytes = whole("launch__shared_mem_per_block_static", kMaxBytes);
  launch.dynamic_shared_bytes = whole("launch__shared_mem_per_block_dynamic", kMaxBytes);
  if (const auto total = whole("launch__shared_mem_per_block", kMaxBytes)) {
    if (!launch.static_shared_bytes && !launch.dynamic_shared_bytes) {
      launch.static_shared_bytes = total;  // the split is unknown; occupancy only needs the sum
    } else if (launch.total_shared_bytes() != *total) {
      fail_at(origin, kernel.lines["launch__shared_mem_per_block"],
              "launch__shared_mem_per_block (" + std::to_string(*total) +
                  ") is not the sum of the static and dynamic shared memory given");
    }
  }
  launch.local_bytes_per_thread = whole("launch__local_bytes_per_thread", kMaxBytes);
}

}  // namespace

RunRecord import_plain_csv(std::istream& in, const std::string& origin, const std::string& arch, int sm_count) {
  if (!looks_like_arch(arch)) {
    throw InputError("architecture '" + arch +
                     "' is not of the form sm_NN (e.g. sm_20 for Fermi, "
                     "sm_35 for Kepler, sm_90 for Hopper)");
  }
  if (sm_count <= 0) {
    throw InputError("the SM count must be positive, not " + std::to_string(sm_count) +
                     " (the seed's Fermi GPU had 16; an H100 SXM has 132)");
  }

  // Comment lines are blanked before CSV parsing (line numbers stay), so a quote in a comment
  // cannot open a quoted field.
  std::string text = detail::read_all(in, origin);
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view line = detail::strip_bom(std::string_view(text).substr(start, end - start));
    if (trim(line).starts_with("#")) {
      std::fill(text.begin() + static_cast<std::ptrdiff_t>(start), text.begin() + static_cast<std::ptrdiff_t>(end),
                ' ');
    }
    start = end + 1;
  }
  const auto rows = detail::parse_csv(text, origin);

  std::vector<PendingKernel> kernels;
  std::map<std::string, std::size_t> kernel_index;
  std::optional<std::pair<std::string, std::size_t>> first_legacy, first_perfworks;  // metric, line
  bool first_data_row = true;
  for (const auto& row : rows) {
    if (std::all_of(row.fields.begin(), row.fields.end(), [](const std::string& f) { return trim(f).empty(); })) {
      continue;  // blank or comment line
    }
    if (first_data_row && is_header(row.fields)) {
      first_data_row = false;
      continue;
    }
    first_data_row = false;
    // Tolerate trailing empty fields ("k,m,1,") that spreadsheets add.
    std::size_t used = row.fields.size();
    while (used > 3 && trim(row.fields[used - 1]).empty()) --used;
    if (used != 3) {
      if (std::find(row.fields.begin(), row.fields.end(), "Kernel Name") != row.fields.end() ||
          trim(row.fields[0]).starts_with("==PROF==")) {
        fail_at(origin, row.line,
                "this is an Nsight Compute CSV, not kernel,metric,value rows: import it "
                "as ncu (limiter import --from ncu)");
      }
      fail_at(origin, row.line,
              "expected 3 fields (kernel,metric,value), found " + std::to_string(used) +
                  "; quote kernel names that contain commas: \"fwd_3D_orderX2b<4,9>\",inst_issued,20412251");
    }
    const std::string kernel_name(trim(row.fields[0]));
    const std::string metric(trim(row.fields[1]));
    const std::string_view value_text = trim(row.fields[2]);
    if (kernel_name.empty()) fail_at(origin, row.line, "the kernel name is empty");
    if (metric.empty()) fail_at(origin, row.line, "the metric name is empty");
    const auto value = detail::parse_number(value_text);
    if (!value) {
      fail_at(origin, row.line,
              "the value of " + metric + " for " + kernel_name + " is '" + std::string(value_text) +
                  "', not a number (write plain numbers like 564332 or 1.5e9)");
    }

    const auto [it, inserted] = kernel_index.emplace(kernel_name, kernels.size());
    if (inserted) {
      PendingKernel& added = kernels.emplace_back();
      added.launch.name = kernel_name;
      added.launch.sequence = it->second;
    }
    PendingKernel& kernel = kernels[it->second];
    if (const auto seen = kernel.lines.find(metric); seen != kernel.lines.end()) {
      fail_at(origin, row.line,
              metric + " for " + kernel_name + " was already given on line " + std::to_string(seen->second) +
                  " (one value per kernel and metric)");
    }
    kernel.lines.emplace(metric, row.line);
    kernel.launch.counters.emplace(metric, *value);

    if (is_legacy_event(metric) && !first_legacy) first_legacy.emplace(metric, row.line);
    if (is_perfworks_metric(metric) && !first_perfworks) first_perfworks.emplace(metric, row.line);
  }

  if (kernels.empty()) {
    throw InputError("'" + origin + "' has no kernel,metric,value rows (only a header, comments or nothing)");
  }
  if (first_legacy && first_perfworks) {
    throw InputError(origin + ": mixes counter models: " + first_legacy->first + " (line " +
                     std::to_string(first_legacy->second) + ") is a Fermi/Kepler event, " + first_perfworks->first +
                     " (line " + std::to_string(first_perfworks->second) +
                     ") a PerfWorks metric; put each model's counters in its own file");
  }
  if (!first_legacy && !first_perfworks) {
    throw InputError(origin +
                     ": cannot tell the counter model: no metric is a Fermi/Kepler event "
                     "(l1_local_load_miss, inst_issued, l2_subp0_read_sector_queries, ...) or a "
                     "PerfWorks metric (a name with '__', like smsp__inst_issued.sum)");
  }

  RunRecord run;
  run.source = "plain-csv";
  run.counter_model = first_legacy ? CounterModel::legacy : CounterModel::perfworks;
  run.device.arch = arch;
  run.device.sm_count = sm_count;
  run.launches.reserve(kernels.size());
  for (auto& kernel : kernels) {
    fill_launch_fields(kernel, origin);
    run.launches.push_back(std::move(kernel.launch));
  }
  return run;
}

RunRecord import_plain_csv_file(const std::string& path, const std::string& arch, int sm_count) {
  detail::GzipInputBuffer buffer(path);
  std::istream in(&buffer);
  return import_plain_csv(in, path, arch, sm_count);
}

}  // namespace limiter
