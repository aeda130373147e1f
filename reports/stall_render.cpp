// The stall parts every report format shares (stall_render.hpp).
#include "stall_render.hpp"

#include "limiter/format.hpp"
#include "render_helpers.hpp"

namespace limiter::render {

using ordered_json = nlohmann::ordered_json;

namespace {

std::string count_of(std::uint64_t n) { return count_text(static_cast<std::size_t>(n)); }

}  // namespace

std::string stall_sampling_text(const StallSampling& s) {
  std::string text = "PC sampling: a sample every " + count_of(s.sample_period_cycles) + " cycles per SM";
  if (!s.collection.empty()) text += " (" + s.collection + ")";
  return text + ", " + count_of(s.samples) + " samples of " + count_of(s.kernels) +
         (s.kernels == 1 ? " kernel" : " kernels");
}

std::optional<std::string> stall_dropped_warning(const StallSampling& s) {
  if (s.dropped_samples == 0) return std::nullopt;
  return "PC sampling dropped " + count_of(s.dropped_samples) +
         " samples (its buffers were full; the hardware "
         "buffer " +
         count_of(s.hardware_buffer_full) + " times): the stall shares rest on the " + count_of(s.samples) +
         " kept; a longer --stall-period drops fewer";
}

std::vector<std::string> stall_cubin_notes(const StallSampling& s) {
  std::vector<std::string> notes;
  for (const auto& [why, kernels] : s.kernels_without_cubin) {
    std::string note = count_text(kernels) + (kernels == 1 ? " kernel's" : " kernels'") +
                       " hot instructions have no SASS or source line: " + why;
    if (why == kNoCubinLoadedBefore || why == kNoCubinUnread)
      note +=
          " (fix: start profiling before the process first runs those kernels: `region = limiter.profile()` "
          "before the warm-up and `with region as p:` after it, or limiter run for the whole program)";
    notes.push_back(std::move(note));
  }
  return notes;
}

std::string why_it_waits_text(const KernelStallAnalysis& stalls) {
  std::string text = dominant_stalls_text(stalls);
  text += text.empty() ? "no stalled samples" : " of stalled samples";
  text += "; " + format_percent(stalls.issued_share(), 0) + " issued; " + count_of(stalls.samples) + " samples";
  // A share of fewer samples moves by tens of points from run to run: said where the shares are.
  if (stalls.samples < kFewStallSamples) text += " (too few to trust the shares: a smaller --stall-period takes more)";
  return text;
}

HotLineCells hot_line_cells(const HotLine& line) {
  return {line.where(), line.sass.empty() ? "—" : line.sass, format_percent(line.share, 0),
          line.reason.empty() ? "" : stall_reason_title(line.reason)};
}

std::string hot_line_text(const HotLine& line) {
  const auto cells = hot_line_cells(line);
  return cells.where + "  " + cells.sass + "  " + cells.share + (cells.reason.empty() ? "" : " (" + cells.reason + ")");
}

const std::vector<std::string> kCsvStallColumns = {"stall_samples", "stall_issued_share", "stall_reason_1",
                                                   "stall_share_1", "stall_reason_2",     "stall_share_2",
                                                   "stall_hot_line"};

std::vector<std::string> stall_csv_cells(const KernelStallAnalysis* stalls) {
  std::vector<std::string> cells(kCsvStallColumns.size(), "");
  if (!stalls) return cells;
  cells[0] = std::to_string(stalls->samples);
  cells[1] = plain_number(stalls->issued_share());
  for (std::size_t i = 0; i < 2 && i < stalls->dominant.size(); ++i) {
    cells[2 + 2 * i] = stalls->dominant[i].reason;
    cells[3 + 2 * i] = plain_number(stalls->dominant[i].stall_share);
  }
  if (!stalls->hot_lines.empty()) cells[6] = hot_line_text(stalls->hot_lines.front());
  return cells;
}

ordered_json kernel_stalls_json(const KernelStallAnalysis& stalls) {
  const auto share_json = [](const StallShare& r) {
    return ordered_json{{"reason", r.reason},
                        {"title", r.title},
                        {"samples", r.samples},
                        {"share", r.share},
                        {"stall_share", r.stall_share}};
  };
  ordered_json out;
  out["samples"] = stalls.samples;
  out["stalled_samples"] = stalls.stalled_samples;
  out["issued_share"] = stalls.issued_share();
  ordered_json dominant = ordered_json::array(), reasons = ordered_json::array(), lines = ordered_json::array();
  for (const auto& r : stalls.dominant) dominant.push_back(share_json(r));
  for (const auto& r : stalls.reasons) reasons.push_back(share_json(r));
  for (const auto& l : stalls.hot_lines) {
    ordered_json line = {
        {"pc_offset", l.pc_offset}, {"samples", l.samples}, {"share", l.share}, {"reason", l.reason}, {"sass", l.sass}};
    line["file"] = l.file ? ordered_json(*l.file) : ordered_json(nullptr);
    line["line"] = l.line ? ordered_json(*l.line) : ordered_json(nullptr);
    lines.push_back(std::move(line));
  }
  out["dominant"] = std::move(dominant);
  out["reasons"] = std::move(reasons);
  out["hot_lines"] = std::move(lines);
  return out;
}

ordered_json stall_sampling_json(const StallSampling& s) {
  return {{"sample_period_cycles", s.sample_period_cycles},
          {"collection", s.collection},
          {"samples", s.samples},
          {"dropped_samples", s.dropped_samples},
          {"hardware_buffer_full", s.hardware_buffer_full},
          {"kernels", s.kernels},
          {"kernels_without_cubin", s.kernels_without_cubin}};
}

}  // namespace limiter::render
