#pragma once
// Helpers shared by the renderers (internal to limiter::reports): names, labels, numbers and
// escaping for each output language.
#include <functional>
#include <optional>
#include <unordered_map>
#include <string>
#include <string_view>
#include <vector>

#include "limiter/analysis.hpp"
#include "limiter/compare.hpp"
#include "limiter/rollup.hpp"
#include "limiter/reports.hpp"
#include "limiter/run_summary.hpp"

namespace limiter::render {

// True when some launch has a verdict's time to show: a record of a timeline or of PC samples
// alone has none, and its reports leave "time by verdict" out rather than print it empty.
bool has_verdict_time(const std::vector<VerdictTime>& time_by_verdict);

// "NVIDIA H200 (sm_90, 132 SMs)".
std::string device_text(const DeviceDescription& device);

// "(2112,1,1)"; "grid (2112,1,1) x block (256,1,1)" or "" when the source gave no configuration.
std::string dim3_text(const Dim3& dim);
std::string launch_configuration_text(const Dim3& grid, const Dim3& block);

// "bandwidth", "bandwidth (bal.)", "no verdict".
std::string verdict_label(const std::optional<Verdict>& verdict, bool balanced = false);
std::string verdict_label(const KernelAnalysis& kernel);
std::string verdict_label(const ComparedLaunch& launch);
// The CSS class / key of a verdict: "bandwidth", "instruction", "latency", "none".
std::string verdict_key(const std::optional<Verdict>& verdict);

// "2 bandwidth, 1 latency".
std::string verdict_mix_text(const VerdictCounts& counts);

// Time change as a signed percentage ("+25.0%", "-20.0%") and as a factor ("1.25x slower").
std::string change_percent_text(const std::optional<double>& change);
std::string speed_factor_text(const std::optional<double>& ratio);
// "faster", "slower", "same", "noise", "unknown": how a matched kernel's time moved.
std::string change_kind(const KernelComparison& comparison);

// Indices into comparison.matched, most changed first (absolute time difference); stable; at
// most TOP of them (0: all).
std::vector<std::size_t> comparison_display_order(const RunComparison& comparison, std::size_t top = 0);
// The same matched kernels in launch order (csv, json).
std::vector<const KernelComparison*> matched_in_order(const RunComparison& comparison, std::size_t top);

// "1.6 ms" or "—".
std::string duration_text(const std::optional<double>& nanoseconds);
// Three significant digits, for times that are compared: "822 us", "1.03 ms", "1.52 us".
std::string precise_duration_text(const std::optional<double>& nanoseconds);

// "98%" when both sides read the same, else "68% -> 54%" (with `arrow` between).
std::string before_after_text(const std::string& before, const std::string& after, const std::string& arrow);

// Shortest decimal that reads back as the same double (std::to_chars); "" when empty.
std::string plain_number(const std::optional<double>& value);

// Escaping: HTML text and attributes; Markdown inline text and table cells.
std::string html_escape(const std::string& text);
std::string markdown_escape(const std::string& text);
std::string markdown_code(const std::string& text);  // `text`, with a longer fence if it holds backticks

// RFC 4180: quoted when a field holds a comma, a quote, CR or LF; quotes doubled; CRLF rows.
std::string csv_field(const std::string& text);
std::string csv_row(const std::vector<std::string>& fields);

// Pads to a width in characters, not bytes ("—" is three bytes of UTF-8).
std::string pad(const std::string& text, std::size_t width, bool left_align = false);
std::size_t display_width(const std::string& text);  // characters of UTF-8 text

// ---- the grouped view (run_summary.hpp) ----

// "12,325": counts readable at a glance.
std::string count_text(std::size_t count);
// A group's launches, "3 of 1,000" where per-kernel budgets profiled 3 of the 1,000 the collector saw.
std::string group_launches_text(const KernelSummary& group);
// "(1024,1,1) x (128,1,1)", or "—" when the source gave no launch configuration.
std::string configuration_text(const Dim3& grid, const Dim3& block, const std::string& times = " x ");
// A group's verdict: "bandwidth", or with the launches that differ: "bandwidth (+50 latency)".
std::string group_verdict_text(const KernelSummary& group);
// The kept launches, most time first (stable), at most TOP of them (0: all).
std::vector<const KernelAnalysis*> launches_by_time(const RunSummary& summary, std::size_t top);
// The kept launches in launch order; with TOP > 0 only the TOP with the most time.
std::vector<const KernelAnalysis*> launches_in_order(const RunSummary& summary, std::size_t top);
// csv and json rows: the launches of launches_in_order, or, when the summary kept none and
// OPTIONS can read them again, every selected launch (the TOP longest when TOP > 0).
void for_each_listed_launch(const RunSummary& summary, const ReportOptions& options,
                            const std::function<void(const KernelAnalysis&)>& row);
// How many groups a grouped view lists.
std::size_t shown_group_count(const RunSummary& summary, std::size_t top);
// "12,325 launches of 22 kernels in 31 launch configurations, 1.23 s of kernel time" and, with
// -k, "; -k 'add': 1,200 of them selected".
std::string run_scope_text(const RunSummary& summary);
// The report's last line for a record without a timeline: how to get the program verdict; empty
// where the record has one.
std::string no_timeline_hint(const RunSummary& summary);
// The caches the counters were measured under, after "caches: ": "the app's own (--cache-control
// none)" or "L2 flushed before each launch (--cache-control all, as ncu's default)"; "" when the
// record does not say (imports, older records, records without exact counters).
std::string cache_control_text(const std::optional<std::string>& cache_control);
// What the record says is missing: launches not profiled (by reason, with the fix), a process
// that did not end normally, PC samples dropped. Empty when nothing is.
std::vector<std::string> collection_notes(const RunSummary& summary);
// The launch's first actionable advice, cut to its first remedy; "" when it has none.
std::string first_advice_headline(const KernelAnalysis& kernel);
// The theoretical occupancy of a launch, when known.
std::optional<double> occupancy_of(const KernelAnalysis& kernel);
// Names in a comparison as its reports show them: GIVEN where it has them, else short forms
// over both runs' kernels.
class NameLookup {
 public:
  NameLookup(const RunComparison& comparison, const std::unordered_map<std::string, std::string>& given);
  std::string operator()(std::string_view name) const;

 private:
  std::unordered_map<std::string, std::string> names_;
};

}  // namespace limiter::render
