#include "render_helpers.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>
#include <numeric>

#include "limiter/format.hpp"

namespace limiter::render {

std::string short_name(const std::string& name) {
  int depth = 0;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '<') ++depth;
    if (name[i] == '>') --depth;
    if (name[i] == '(' && depth == 0 && i > 0) return name.substr(0, i);
  }
  return name;
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
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
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
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '\\': case '`': case '*': case '_': case '[': case ']': case '|':
        out += '\\';
        out += c;
        break;
      default: out += c;
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

std::string pad(const std::string& text, std::size_t width, bool left_align) {
  std::size_t characters = 0;
  for (unsigned char byte : text) characters += (byte & 0xC0) != 0x80;
  const std::string fill(width > characters ? width - characters : 0, ' ');
  return left_align ? text + fill : fill + text;
}

std::string shorten(const std::string& text, std::size_t width) {
  if (text.size() <= width) return text;
  return text.substr(0, width - 3) + "...";
}

// Matched kernels for display: the biggest absolute time difference first.
std::vector<std::size_t> comparison_display_order(const RunComparison& comparison) {
  std::vector<std::size_t> order(comparison.matched.size());
  std::iota(order.begin(), order.end(), 0);
  const auto delta = [&](std::size_t index) {
    const auto& time = comparison.matched[index].time;
    return time.before_ns && time.after_ns ? std::fabs(*time.after_ns - *time.before_ns) : -1.0;
  };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return delta(a) > delta(b); });
  return order;
}

}  // namespace limiter::render
