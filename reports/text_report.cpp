// The terminal table: most expensive kernels first, then each kernel's reason and advice.
#include <algorithm>
#include <numeric>
#include <ostream>
#include <sstream>

#include "limiter/format.hpp"
#include "limiter/reports.hpp"

namespace limiter {
namespace {

std::string shorten(const std::string& text, std::size_t width) {
  if (text.size() <= width) return text;
  return text.substr(0, width - 3) + "...";
}

// The kernel name without its argument list, as ncu prints it: "copy(const float*, ...)" -> "copy".
std::string short_name(const std::string& name) {
  int depth = 0;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '<') ++depth;
    if (name[i] == '>') --depth;
    if (name[i] == '(' && depth == 0 && i > 0) return name.substr(0, i);
  }
  return name;
}

// Pads to a width in characters, not bytes ("—" is three bytes of UTF-8).
std::string pad(const std::string& text, std::size_t width, bool left_align = false) {
  std::size_t characters = 0;
  for (unsigned char byte : text) characters += (byte & 0xC0) != 0x80;
  const std::string fill(width > characters ? width - characters : 0, ' ');
  return left_align ? text + fill : fill + text;
}

std::string verdict_label(const KernelAnalysis& k) {
  if (!k.verdict) return "no verdict";
  std::string label = to_string(*k.verdict);
  if (k.balanced) label += " (bal.)";
  return label;
}

const char* verdict_color(const KernelAnalysis& k) {
  if (!k.verdict) return "\033[2m";
  switch (*k.verdict) {
    case Verdict::bandwidth: return "\033[36m";
    case Verdict::instruction: return "\033[35m";
    case Verdict::latency: return "\033[33m";
  }
  return "";
}

}  // namespace

void write_text_report(const RunAnalysis& analysis, std::ostream& out, const TextReportOptions& options) {
  const auto& device = analysis.device;
  out << "limiter report — " << (device.name.empty() ? "unknown GPU" : device.name);
  if (!device.arch.empty()) out << " (" << device.arch << ", " << device.sm_count << " SMs)";
  out << "\nsource: " << (analysis.source.empty() ? "?" : analysis.source) << ", "
      << to_string(analysis.counter_model) << " counters; peaks: " << to_string(analysis.peaks) << " ("
      << analysis.peaks_origin << ")\n";

  std::vector<std::size_t> order(analysis.kernels.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return analysis.kernels[a].duration_ns.value_or(-1) > analysis.kernels[b].duration_ns.value_or(-1);
  });
  const double total_ns = std::accumulate(analysis.kernels.begin(), analysis.kernels.end(), 0.0,
                                          [](double sum, const KernelAnalysis& k) { return sum + k.duration_ns.value_or(0); });

  out << "\n" << pad("#", 4, true) << pad("kernel", 34, true) << pad("time", 11) << pad("time%", 7) << "  "
      << pad("verdict", 18, true) << pad("issue", 7) << pad("L2", 7) << pad("DRAM", 7) << pad("LMEM-L2", 9)
      << pad("LMEM-inst", 10) << pad("occ.", 7) << "\n";
  out << std::string(121, '-') << "\n";
  for (std::size_t index : order) {
    const auto& k = analysis.kernels[index];
    const auto occupancy = k.occupancy.theoretical ? std::optional<double>(k.occupancy.theoretical->occupancy)
                                                   : std::nullopt;
    out << pad(std::to_string(k.sequence), 4, true) << pad(shorten(short_name(k.name), 33), 34, true)
        << pad(k.duration_ns ? format_duration_ns(*k.duration_ns) : "—", 11)
        << pad(k.duration_ns && total_ns > 0 ? format_percent(*k.duration_ns / total_ns, 0) : "—", 7) << "  ";
    if (options.color) out << verdict_color(k);
    out << pad(verdict_label(k), 18, true);
    if (options.color) out << "\033[0m";
    out << pad(format_percent(k.utilization.issue, 0), 7) << pad(format_percent(k.utilization.l2, 0), 7)
        << pad(format_percent(k.utilization.dram, 0), 7)
        << pad((k.lmem.l2_share_is_upper_bound ? "<=" : "") + format_percent(k.lmem.l2_share, 1), 9)
        << pad(format_percent(k.lmem.instruction_share, 1), 10) << pad(format_percent(occupancy, 0), 7) << "\n";
  }
  if (!options.details) return;
  for (std::size_t index : order) {
    const auto& k = analysis.kernels[index];
    out << "\n[" << k.sequence << "] " << k.name;
    if (k.block.count() > 0) {
      out << "  grid (" << k.grid.x << "," << k.grid.y << "," << k.grid.z << ") x block (" << k.block.x << ","
          << k.block.y << "," << k.block.z << ")";
    }
    if (k.registers_per_thread) out << ", " << *k.registers_per_thread << " registers";
    out << "\n  " << (k.verdict ? verdict_label(k) + "-limited: " : "no verdict: ") << k.verdict_reason << "\n";
    if (k.lmem.l2_sectors.value_or(0) > 0 || k.lmem.instruction_share.value_or(0) > 0) {
      out << "  LMEM: " << format_percent(k.lmem.l2_share) << " of L1-L2 traffic";
      if (k.lmem.l2_share_is_upper_bound) out << " (upper bound; at least " << format_percent(k.lmem.l2_share_lower_bound) << ")";
      out << ", seed estimate " << format_percent(k.lmem.l2_share_seed) << "; " << format_percent(k.lmem.instruction_share)
          << " of instructions; L1 hit rate ld " << format_percent(k.lmem.l1_load_hit_rate) << " / st "
          << format_percent(k.lmem.l1_store_hit_rate) << "\n";
    }
    for (const auto& warning : k.lmem.warnings) out << "  warning: " << warning << "\n";
    if (k.ncu_verdict) {
      out << "  ncu SOL: SM " << format_fixed(*k.ncu_sm_throughput, 1) << "%, memory "
          << format_fixed(*k.ncu_memory_throughput, 1) << "% -> " << to_string(*k.ncu_verdict)
          << (k.verdict && *k.verdict == *k.ncu_verdict ? " (agrees)" : " (DIFFERS)") << "\n";
    }
    for (const auto& advice : k.advice) out << "  - " << advice << "\n";
  }
}

}  // namespace limiter
