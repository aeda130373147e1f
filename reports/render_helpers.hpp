#pragma once
// Helpers shared by the renderers (internal to limiter::reports): names, labels, numbers and
// escaping for each output language.
#include <optional>
#include <string>
#include <vector>

#include "limiter/analysis.hpp"
#include "limiter/compare.hpp"
#include "limiter/rollup.hpp"

namespace limiter::render {

// The kernel name without its argument list, as ncu prints it: "copy(const float*, ...)" -> "copy".
std::string short_name(const std::string& name);

// "NVIDIA H200 (sm_90, 132 SMs)".
std::string device_text(const DeviceDescription& device);

// "(2112,1,1)"; "grid (2112,1,1) x block (256,1,1)" or "" when the source gave no configuration.
std::string dim3_text(const Dim3& dim);
std::string launch_configuration_text(const Dim3& grid, const Dim3& block);

// "bandwidth", "bandwidth (bal.)", "no verdict".
std::string verdict_label(const std::optional<Verdict>& verdict, bool balanced = false);
std::string verdict_label(const KernelAnalysis& kernel);
// The CSS class / key of a verdict: "bandwidth", "instruction", "latency", "none".
std::string verdict_key(const std::optional<Verdict>& verdict);

// "2 bandwidth, 1 latency".
std::string verdict_mix_text(const VerdictCounts& counts);

// Time change as a signed percentage ("+25.0%", "-20.0%") and as a factor ("1.25x slower").
std::string change_percent_text(const std::optional<double>& change);
std::string speed_factor_text(const std::optional<double>& ratio);
// "faster", "slower", "same", "noise", "unknown": how a matched kernel's time moved.
std::string change_kind(const KernelComparison& comparison);

// Indices into comparison.matched, most changed first (absolute time difference); stable.
std::vector<std::size_t> comparison_display_order(const RunComparison& comparison);

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
std::string shorten(const std::string& text, std::size_t width);

}  // namespace limiter::render
