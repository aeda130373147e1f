#include "render_helpers.hpp"
#include "stall_render.hpp"
#include "timeline_render.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>
#include <numeric>
#include <string_view>
#include <unordered_set>

#include "limiter/format.hpp"

namespace limiter::render {

bool has_verdict_time(const std::vector<VerdictTime>& time_by_verdict) {
  return std::any_of(time_by_verdict.begin(), time_by_verdict.end(),
                     [](const VerdictTime& t) { return t.launches > 0; });
}

std::string device_text(const DeviceDescription& device) {
  std::string text = device.name.empty() ? "unknown GPU" : device.name;
  if (!device.arch.empty()) text += " (" + device.arch + ", " + std::to_string(device.sm_count) + " SMs)";
  return text;
}

std::string dim3_text(const Dim3& dim) {
  return "(" + std::to_string(dim.x) + "," + std::to_string(dim.y) + "," + std::to_string(dim.z) + ")";
}

std::string launch_configuration_text(const Dim3& grid, const Dim3& block) {
  if (block.count() == 0) return "";
  return "grid " + dim3_text(grid) + " x block " + dim3_text(block);
}

std::string verdict_label(const std::optional<Verdict>& verdict, bool balanced) {
  if (!verdict) return "no verdict";
  return to_string(*verdict) + (balanced ? " (bal.)" : "");
}

std::string verdict_label(const KernelAnalysis& kernel) { return verdict_label(kernel.verdict, kernel.balanced); }
std::string verdict_label(const ComparedLaunch& launch) { return verdict_label(launch.verdict, launch.balanced); }

std::string verdict_key(const std::optional<Verdict>& verdict) { return verdict ? to_string(*verdict) : "none"; }

std::string verdict_mix_text(const VerdictCounts& counts) {
  std::string text;
  const auto add = [&](std::size_t count, const char* label) {
    if (count == 0) return;
    if (!text.empty()) text += ", ";
    text += std::to_string(count) + " " + label;
  };
  add(counts.bandwidth, "bandwidth");
  add(counts.instruction, "instruction");
  add(counts.latency, "latency");
  add(counts.none, "no verdict");
  return text;
}

std::string change_percent_text(const std::optional<double>& change) {
  if (!change) return "—";
  const std::string magnitude = format_fixed(std::fabs(*change) * 100.0, 1);
  if (magnitude == "0.0") return "0.0%";
  return (*change > 0 ? "+" : "-") + magnitude + "%";
}

std::string speed_factor_text(const std::optional<double>& ratio) {
  if (!ratio || *ratio <= 0) return "—";
  if (format_fixed(*ratio, 2) == "1.00") return "same";
  if (*ratio > 1) return format_fixed(*ratio, 2) + "x slower";
  return format_fixed(1.0 / *ratio, 2) + "x faster";
}

std::string change_kind(const KernelComparison& comparison) {
  if (!comparison.time.change) return "unknown";
  if (comparison.within_noise) return "noise";
  if (speed_factor_text(comparison.time.ratio) == "same") return "same";
  return *comparison.time.change > 0 ? "slower" : "faster";
}

std::string duration_text(const std::optional<double>& nanoseconds) {
  return nanoseconds ? format_duration_ns(*nanoseconds) : "—";
}

std::string precise_duration_text(const std::optional<double>& nanoseconds) {
  if (!nanoseconds) return "—";
  static const char* const units[] = {"ns", "us", "ms", "s"};
  double value = *nanoseconds;
  std::size_t unit = 0;
  while (std::fabs(value) >= 1000.0 && unit + 1 < std::size(units)) {
    value /= 1000.0;
    ++unit;
  }
  const double magnitude = std::fabs(value);
  const int decimals = magnitude >= 99.95 ? 0 : magnitude >= 9.995 ? 1 : 2;
  return format_fixed(value, decimals) + " " + units[unit];
}

std::string before_after_text(const std::string& before, const std::string& after, const std::string& arrow) {
  return before == after ? before : before + arrow + after;
}

std::string plain_number(const std::optional<double>& value) {
  if (!value || !std::isfinite(*value)) return "";
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, *value);
  return std::string(buffer, result.ptr);
}

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string markdown_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      // '<' and '>' as entities: GitHub would otherwise read "<lower percent>" as an HTML tag.
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '\\':
      case '`':
      case '*':
      case '_':
      case '[':
      case ']':
      case '|':
        out += '\\';
        out += c;
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string markdown_code(const std::string& text) {
  // Inside a code span only '|' needs care (a GFM table would split the cell) and backticks.
  std::string body;
  for (char c : text) {
    if (c == '|') body += '\\';
    body += c;
  }
  const std::string fence = text.find('`') == std::string::npos ? "`" : "`` ";
  const std::string closing = fence == "`" ? "`" : " ``";
  return fence + body + closing;
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string csv_row(const std::vector<std::string>& fields) {
  std::string row;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) row += ',';
    row += csv_field(fields[i]);
  }
  return row + "\r\n";
}

std::size_t display_width(const std::string& text) {
  std::size_t characters = 0;
  for (unsigned char byte : text) characters += (byte & 0xC0) != 0x80;
  return characters;
}

std::string pad(const std::string& text, std::size_t width, bool left_align) {
  const std::size_t characters = display_width(text);
  const std::string fill(width > characters ? width - characters : 0, ' ');
  return left_align ? text + fill : fill + text;
}

std::string count_text(std::size_t count) {
  std::string digits = std::to_string(count);
  for (int at = static_cast<int>(digits.size()) - 3; at > 0; at -= 3) digits.insert(static_cast<std::size_t>(at), ",");
  return digits;
}

std::string group_launches_text(const KernelSummary& group) {
  std::string text = count_text(group.launches);
  if (group.launches_seen && *group.launches_seen > group.launches) text += " of " + count_text(*group.launches_seen);
  return text;
}

std::string configuration_text(const Dim3& grid, const Dim3& block, const std::string& times) {
  return block.count() > 0 ? dim3_text(grid) + times + dim3_text(block) : "—";
}

std::string group_verdict_text(const KernelSummary& group) {
  if (!group.no_counters.empty())
    return "no counters";  // a kernel of the timeline alone (the reason is under the table)
  std::string text = verdict_label(group.main_verdict);
  if (!group.verdicts_differ()) return text;
  std::string others;
  for (const auto& verdict : {std::optional<Verdict>(Verdict::bandwidth), std::optional<Verdict>(Verdict::instruction),
                              std::optional<Verdict>(Verdict::latency), std::optional<Verdict>()}) {
    if (verdict == group.main_verdict || group.verdicts.of(verdict) == 0) continue;
    others +=
        (others.empty() ? "" : ", ") + ("+" + count_text(group.verdicts.of(verdict))) + " " + verdict_label(verdict);
  }
  return text + " (" + others + ")";
}

std::vector<const KernelAnalysis*> launches_by_time(const RunSummary& summary, std::size_t top) {
  std::vector<const KernelAnalysis*> order;
  for (const auto& kernel : summary.run.kernels) order.push_back(&kernel);
  std::stable_sort(order.begin(), order.end(), [](const KernelAnalysis* a, const KernelAnalysis* b) {
    return a->duration_ns.value_or(-1) > b->duration_ns.value_or(-1);
  });
  if (top > 0 && order.size() > top) order.resize(top);
  return order;
}

std::vector<const KernelAnalysis*> launches_in_order(const RunSummary& summary, std::size_t top) {
  auto chosen = launches_by_time(summary, top);
  std::sort(chosen.begin(), chosen.end());  // kept launches are stored in launch order
  return chosen;
}

void for_each_listed_launch(const RunSummary& summary, const ReportOptions& options,
                            const std::function<void(const KernelAnalysis&)>& row) {
  if (summary.run.kernels.empty() && options.launch_rows) {
    options.launch_rows([&](const KernelAnalysis& launch) {
      if (options.top == 0 || summary.longest_sequences.contains(launch.sequence)) row(launch);
    });
    return;
  }
  for (const KernelAnalysis* launch : launches_in_order(summary, options.top)) row(*launch);
}

std::size_t shown_group_count(const RunSummary& summary, std::size_t top) {
  return top > 0 ? std::min(top, summary.groups.size()) : summary.groups.size();
}

std::string cache_control_text(const std::optional<std::string>& cache_control) {
  if (!cache_control) return "";
  if (*cache_control == "all") return "L2 flushed before each launch (--cache-control all, as ncu's default)";
  return "the app's own (--cache-control " + *cache_control + ")";
}

std::vector<std::string> collection_notes(const RunSummary& summary) {
  std::vector<std::string> notes;
  const auto& run = summary.run;
  if (!run.ended.empty() && run.ended != "exit") {
    notes.push_back(run.ended == "killed"
                        ? "the process was killed before its exit handlers ran: launches since its last "
                          "synchronisation are not in the record"
                        : "the process ended by " + run.ended.substr(run.ended.find(' ') + 1) +
                              ": the record holds what was decoded before it died");
  }
  for (const auto& missed : run.missed) {
    notes.push_back("not profiled: " + count_text(missed.launches) +
                    (missed.launches == 1 ? " launch — " : " launches — ") + missed.reason +
                    (missed.fix.empty() ? "" : " (fix: " + missed.fix + ")"));
  }
  if (run.stall_sampling) {
    if (auto dropped = stall_dropped_warning(*run.stall_sampling)) notes.push_back(std::move(*dropped));
    for (auto& note : stall_cubin_notes(*run.stall_sampling)) notes.push_back(std::move(note));
  }
  return notes;
}

std::string no_timeline_hint(const RunSummary& summary) {
  return summary.program || summary.timeline_kernels ? "" : std::string("hint: ") + kNoTimelineNote;
}

std::string run_scope_text(const RunSummary& summary) {
  const auto plural = [](std::size_t n, const char* one, const char* many) {
    return count_text(n) + " " + (n == 1 ? one : many);
  };
  const auto& timeline = summary.timeline_kernels;
  if (summary.launches == 0 && (timeline || !summary.stalled_kernels.empty())) {  // the timeline or PC samples alone
    return "no launch with counters in the record" + (timeline ? "; " + timeline_scope_text(*timeline) : "");
  }
  // Launch configurations with counters: the timeline's others are counted in its own clause.
  const auto configurations = static_cast<std::size_t>(std::count_if(
      summary.groups.begin(), summary.groups.end(), [](const KernelSummary& g) { return g.no_counters.empty(); }));
  std::string text = plural(summary.launches, "launch", "launches") + (timeline ? " profiled" : "");
  if (summary.kernel_regex.empty()) {
    text += " of " + plural(summary.distinct_kernels, "kernel", "kernels") + " in " +
            plural(configurations, "launch configuration", "launch configurations");
  }
  text +=
      ", " + format_duration_ns(summary.total_ns) + (timeline ? " of kernel time while profiled" : " of kernel time");
  if (const auto seen = summary.run.launches_seen; seen && *seen > summary.launches) {
    // Filters or per-kernel budgets: each verdict rests on the launches counted in its row.
    text += "; the collector saw " + plural(static_cast<std::size_t>(*seen), "launch", "launches") + " and profiled " +
            count_text(summary.launches);
  }
  if (summary.estimated_total_ns && !timeline) {  // with a timeline, each kernel's time is measured there
    text += "; time shares are of all launches seen (" + format_duration_ns(*summary.estimated_total_ns) +
            " estimated: each kernel's profiled mean times its launches)";
  }
  if (!summary.kernel_regex.empty()) {
    text += "; -k '" + summary.kernel_regex + "' selects " + plural(summary.selected_launches, "launch", "launches") +
            " of " + plural(summary.distinct_kernels, "kernel", "kernels") + " in " +
            plural(configurations, "launch configuration", "launch configurations");
  }
  if (timeline) text += "; " + timeline_scope_text(*timeline);
  return text;
}

std::string first_advice_headline(const KernelAnalysis& kernel) {
  const auto advice = std::find_if(kernel.advice.begin(), kernel.advice.end(), is_actionable_advice);
  return advice == kernel.advice.end() ? "" : advice_headline(*advice);
}

std::optional<double> occupancy_of(const KernelAnalysis& kernel) {
  if (!kernel.occupancy.theoretical) return std::nullopt;
  return kernel.occupancy.theoretical->occupancy;
}

NameLookup::NameLookup(const RunComparison& comparison, const std::unordered_map<std::string, std::string>& given) {
  std::unordered_set<std::string_view> distinct;  // a name once, however many launches have it
  std::unordered_set<const char*> seen;           // launches' names view interned names: hashed by address first
  const auto add = [&](std::string_view name) {
    if (seen.insert(name.data()).second) distinct.insert(name);
  };
  for (const auto& k : comparison.matched) add(k.before.name);
  for (const auto& k : comparison.only_before) add(k.first.name);
  for (const auto& k : comparison.only_after) add(k.first.name);
  for (const auto& k : comparison.samples) add(k.name);
  names_ = short_kernel_names(std::vector<std::string>(distinct.begin(), distinct.end()));
  for (const auto& [name, shown] : given) names_[name] = shown;
}

std::string NameLookup::operator()(std::string_view name) const {
  const auto found = names_.find(std::string(name));
  return found == names_.end() ? std::string(name) : found->second;
}

// Matched kernels for display: the biggest absolute time difference first.
std::vector<std::size_t> comparison_display_order(const RunComparison& comparison, std::size_t top) {
  std::vector<std::pair<double, std::size_t>> deltas;  // -delta, index: ties in launch order
  deltas.reserve(comparison.matched.size());
  // A group row weighs its change of mean by its launches: what the change costs the run. Rows
  // whose change is noise come after every real one (their key is shifted past all of them).
  double largest = 0;
  for (const auto& k : comparison.matched) {
    const double weight = comparison.launch_rows
                              ? 1.0
                              : static_cast<double>(std::max<std::uint64_t>(1, comparison.before_counts[k.group]));
    const double delta =
        k.time.before_ns && k.time.after_ns ? std::fabs(*k.time.after_ns - *k.time.before_ns) * weight : -1.0;
    largest = std::max(largest, delta);
    deltas.emplace_back(-delta, deltas.size());
  }
  for (std::size_t i = 0; i < deltas.size(); ++i)
    if (comparison.matched[i].within_noise) deltas[i].first += 2 * largest + 1;
  // The first TOP of a million need not sort the million.
  const std::size_t shown = top > 0 ? std::min(top, deltas.size()) : deltas.size();
  std::partial_sort(deltas.begin(), deltas.begin() + static_cast<std::ptrdiff_t>(shown), deltas.end());
  std::vector<std::size_t> order(shown);
  for (std::size_t i = 0; i < shown; ++i) order[i] = deltas[i].second;
  return order;
}

}  // namespace limiter::render

namespace limiter::render {

std::vector<const KernelComparison*> matched_in_order(const RunComparison& comparison, std::size_t top) {
  auto order = comparison_display_order(comparison, top);
  std::sort(order.begin(), order.end());
  std::vector<const KernelComparison*> matched;
  for (std::size_t index : order) matched.push_back(&comparison.matched[index]);
  return matched;
}

}  // namespace limiter::render
