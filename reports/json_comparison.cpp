// The comparison schema (kind "limiter-compare") via nlohmann ordered_json: the runs, the gate,
// the totals and every matched and unmatched launch. Written one launch at a time, so a
// comparison of 100,000s of launches never becomes one DOM.
#include <algorithm>
#include <functional>
#include <ostream>
#include <string_view>

#include "limiter/json_text.hpp"
#include "limiter/program_verdict.hpp"
#include "limiter/reports.hpp"
#include "json_values.hpp"
#include "comparison_parts.hpp"
#include "render_helpers.hpp"

namespace limiter {
namespace {

using ordered_json = nlohmann::ordered_json;

ordered_json dim3_json(const Dim3& dim) { return {dim.x, dim.y, dim.z}; }

ordered_json before_after_json(const std::optional<double>& before, const std::optional<double>& after) {
  return {{"before", optional_number(before)}, {"after", optional_number(after)}};
}

ordered_json time_change_json(const TimeChange& time) {
  return {{"before_ns", optional_number(time.before_ns)},
          {"after_ns", optional_number(time.after_ns)},
          {"ratio", optional_number(time.ratio)},
          {"change", optional_number(time.change)}};
}

ordered_json launch_spread_json(const DurationStats& durations) {
  return {{"launches", durations.timed_launches},
          {"min_ns", optional_number(durations.min_ns)},
          {"max_ns", optional_number(durations.max_ns)}};
}

ordered_json matched_json(const RunComparison& comparison, const KernelComparison& k, const render::NameLookup& names) {
  ordered_json out;
  out["name"] = std::string(k.before.name);
  out["display_name"] = names(k.before.name);
  out["grid"] = dim3_json(k.before.grid);
  out["block"] = dim3_json(k.before.block);
  out["occurrence"] = k.occurrence;
  out["before_sequence"] = k.before.sequence;
  out["after_sequence"] = k.after.sequence;
  out["time"] = time_change_json(k.time);
  out["launches"] = {{"before", launch_spread_json(comparison.before_launches(k))},
                     {"after", launch_spread_json(comparison.after_launches(k))}};
  out["within_noise"] = k.within_noise;
  out["slower_than_limit"] = k.slower_than_limit;
  out["verdict"] = {{"before", optional_verdict(k.before.verdict)},
                    {"after", optional_verdict(k.after.verdict)},
                    {"changed", k.verdict_changed}};
  out["balanced"] = {{"before", k.before.balanced}, {"after", k.after.balanced}};
  out["limiting_unit"] = {{"before", std::string(k.before.limiting_unit)},
                          {"after", std::string(k.after.limiting_unit)}};
  out["utilization"] = {{"issue", before_after_json(k.before.utilization.issue, k.after.utilization.issue)},
                        {"l2", before_after_json(k.before.utilization.l2, k.after.utilization.l2)},
                        {"dram", before_after_json(k.before.utilization.dram, k.after.utilization.dram)},
                        {"compute", before_after_json(k.before.utilization.compute, k.after.utilization.compute)},
                        {"memory", before_after_json(k.before.utilization.memory, k.after.utilization.memory)}};
  out["lmem"] = {
      {"l2_share", before_after_json(k.before.lmem.l2_share, k.after.lmem.l2_share)},
      {"instruction_share", before_after_json(k.before.lmem.instruction_share, k.after.lmem.instruction_share)}};
  return out;
}

ordered_json unmatched_json(const UnmatchedKernel& k, const render::NameLookup& names) {
  return {{"sequence", k.first.sequence},
          {"name", std::string(k.first.name)},
          {"display_name", names(k.first.name)},
          {"grid", dim3_json(k.first.grid)},
          {"block", dim3_json(k.first.block)},
          {"launches", k.launches},
          {"duration_ns", optional_number(k.total_ns)},
          {"verdict", optional_verdict(k.first.verdict)}};
}

ordered_json program_json(const std::optional<ProgramVerdict>& program) {
  if (!program) return nullptr;
  return {{"verdict", std::string(program_bound_key(program->verdict))},
          {"gpu_busy_share", program->split.busy_share()},
          {"wall_ns", program->split.wall_ns}};
}

ordered_json samples_json(const SampledKernelComparison& k, const render::NameLookup& names) {
  const auto reason = [](const std::string& key) { return key.empty() ? ordered_json(nullptr) : ordered_json(key); };
  return {{"name", k.name},
          {"display_name", names(k.name)},
          {"samples", {{"before", k.before_samples}, {"after", k.after_samples}}},
          {"share", before_after_json(k.before_share, k.after_share)},
          {"main_reason", {{"before", reason(k.before_reason)}, {"after", reason(k.after_reason)}}},
          {"main_reason_share", before_after_json(k.before_reason_share, k.after_reason_share)}};
}

ordered_json run_side_json(const std::string& label, const std::string& source, const DeviceDescription& device,
                           const std::optional<std::string>& cache_control, std::size_t launches) {
  ordered_json side = {{"label", label},
                       {"source", source},
                       {"device", {{"name", device.name}, {"arch", device.arch}, {"sm_count", device.sm_count}}}};
  if (cache_control) side["cache_control"] = *cache_control;  // absent: the record does not say
  side["launches"] = launches;
  return side;
}

// The comparison's fields but its three lists of launches (written after them, in this order).
ordered_json comparison_head(const RunComparison& comparison) {
  ordered_json out;
  out["schema_version"] = kComparisonSchemaVersion;
  out["kind"] = "limiter-compare";
  out["before"] = run_side_json(comparison.before_label, comparison.before_source, comparison.before_device,
                                comparison.before_cache_control, comparison.totals.before_launches);
  out["after"] = run_side_json(comparison.after_label, comparison.after_source, comparison.after_device,
                               comparison.after_cache_control, comparison.totals.after_launches);
  if (!comparison.cache_warning.empty()) out["cache_warning"] = comparison.cache_warning;
  if (comparison.max_slowdown) {
    ordered_json slower = ordered_json::array();
    for (const auto& k : comparison.kernels)
      if (k.slower_than_limit) slower.push_back(k.before.sequence);
    out["gate"] = {{"max_slowdown", *comparison.max_slowdown},
                   {"failed", comparison.failed()},
                   {"total_slower", comparison.totals.slower_than_limit},
                   {"slower_before_sequences", slower}};
  } else {
    out["gate"] = nullptr;
  }
  if (comparison.per_launch) {  // only then: "total" and "matched_total" are means per launch
    out["selection"] = {{"before", comparison.before_selection.description},
                        {"after", comparison.after_selection.description},
                        {"compared", "per launch"},
                        {"warning", comparison.selection_warning}};
  }
  out["rows"] = comparison.launch_rows ? "launch" : "kernel";  // what each "matched" entry is
  out["noise_rule"] = kNoiseRule;
  if (!comparison.program_warning.empty()) out["program_warning"] = comparison.program_warning;
  if (!comparison.match_warning.empty()) out["match_warning"] = comparison.match_warning;
  out["names_matched_by_key"] = comparison.names_matched_by_key;
  out["program"] = {{"before", program_json(comparison.before_program)},
                    {"after", program_json(comparison.after_program)}};
  out["total"] = time_change_json(comparison.totals.all);
  out["matched_total"] = time_change_json(comparison.totals.matched);
  return out;
}

using EntrySink = std::function<void(ordered_json)>;
using EntrySource = std::function<void(const EntrySink&)>;  // gives its entries one at a time

// Calls LIST with the key and the entries of each list of launches, in the document's order.
void for_each_launch_list(const RunComparison& comparison, const ComparisonOptions& options,
                          const render::NameLookup& names,
                          const std::function<void(const char*, const EntrySource&)>& list) {
  list("matched", [&](const EntrySink& entry) {
    for (const KernelComparison* k : render::matched_in_order(comparison, options.top))
      entry(matched_json(comparison, *k, names));
  });
  const auto unmatched = [&](const std::vector<UnmatchedKernel>& kernels, const EntrySink& entry) {
    for (std::size_t i = 0; i < render::shown_rows(kernels.size(), options.top); ++i)
      entry(unmatched_json(kernels[i], names));
  };
  list("only_before", [&](const EntrySink& entry) { unmatched(comparison.only_before, entry); });
  list("only_after", [&](const EntrySink& entry) { unmatched(comparison.only_after, entry); });
  list("samples", [&](const EntrySink& entry) {
    for (std::size_t i = 0; i < render::shown_rows(comparison.samples.size(), options.top); ++i)
      entry(samples_json(comparison.samples[i], names));
  });
}

}  // namespace

ordered_json comparison_json(const RunComparison& comparison, const ComparisonOptions& options) {
  const render::NameLookup names(comparison, options.names);
  ordered_json out = comparison_head(comparison);
  for_each_launch_list(comparison, options, names, [&](const char* key, const EntrySource& entries) {
    ordered_json list = ordered_json::array();
    entries([&](ordered_json entry) { list.push_back(std::move(entry)); });
    out[key] = std::move(list);
  });
  return out;
}

void write_json_comparison(const RunComparison& comparison, std::ostream& out, const ComparisonOptions& options) {
  // As comparison_json(...).dump(2), each launch dumped on its own: no DOM of 100,000s of them.
  const render::NameLookup names(comparison, options.names);
  const std::string head = json_text(comparison_head(comparison), 2);
  out << std::string_view(head).substr(0, head.rfind('\n'));  // without its closing brace
  for_each_launch_list(comparison, options, names, [&](const char* key, const EntrySource& entries) {
    out << ",\n  \"" << key << "\": [";
    bool first = true;
    entries([&](const ordered_json& entry) {
      out << (first ? "\n" : ",\n");
      first = false;
      const std::string text = json_text(entry, 2);
      std::size_t start = 0;
      while (start < text.size()) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        out << (start ? "\n    " : "    ") << std::string_view(text).substr(start, end - start);
        start = end + 1;
      }
    });
    out << (first ? "]" : "\n  ]");
  });
  out << "\n}\n";
}

}  // namespace limiter
