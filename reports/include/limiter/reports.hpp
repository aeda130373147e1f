#pragma once
// Renderers: plain analysis structs in, text on a std::ostream out. No GPU, no CUDA.
#include <functional>
#include <iosfwd>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "limiter/analysis.hpp"
#include "limiter/compare.hpp"
#include "limiter/rank_summary.hpp"
#include "limiter/run_summary.hpp"

namespace limiter {

// 2: display names, groups with their own figures and first/longest sequence instead of a list.
inline constexpr int kReportSchemaVersion = 2;

inline constexpr int kComparisonSchemaVersion = 1;

// The formats of `limiter report` and `limiter compare` (sqlite: `limiter export`, sqlite_export.hpp).
enum class ReportFormat { text, md, csv, json, html };
ReportFormat report_format_from_string(const std::string& name);  // throws InputError naming the choices
std::string to_string(ReportFormat format);

// Which rows a report shows. `automatic`: grouped by kernel and launch configuration when the
// run repeats one, else one row per launch (a run of distinct kernels reads best that way).
enum class ReportView { automatic, grouped, launches };

struct ReportOptions {
  bool color = false;   // text: ANSI colours for verdicts (only when writing to a terminal)
  bool details = true;  // text: reasons and advice under the tables
  ReportView view = ReportView::automatic;
  // Grouped view: the groups listed (0: all). Launch view (--launches): the launches listed,
  // most time first (0: all). csv and json: the launches written, in launch order.
  std::size_t top = 20;
  // csv and json of a summary that kept no launch (millions): calls ROW with every selected
  // launch in launch order, read and analysed again (for_each_analysed_launch, run_summary.hpp).
  std::function<void(const std::function<void(const KernelAnalysis&)>& row)> launch_rows = nullptr;
  bool grouped(const RunSummary& summary) const;  // resolves `automatic`
};

inline constexpr std::size_t kDefaultTop = 20;

// Text for a terminal: the summary first (grouped view: a table of the top groups by time,
// "what to fix first" and the advice for those), or one row per launch with every launch's advice.
void write_text_report(const RunSummary& summary, std::ostream& out, const ReportOptions& options = {});

// For pull-request comments (GitHub-flavoured Markdown): the same views, details folded.
void write_markdown_report(const RunSummary& summary, std::ostream& out, const ReportOptions& options = {});

// One row per kept launch in launch order; columns in kCsvReportColumns (docs/guide/reports.md: the csv columns).
extern const std::vector<std::string> kCsvReportColumns;
// Appended for a record whose timeline holds kernels (RunSummary::timeline_kernels): each row's
// group on the timeline, and "no_counters", the reason of a kernel seen there alone, which gets
// a row of its own after the launches (no sequence, no counters).
extern const std::vector<std::string> kCsvTimelineColumns;
void write_csv_report(const RunSummary& summary, std::ostream& out, const ReportOptions& options = {});

// The report schema: schema_version, device, thresholds, `kernels` (kept launches, launch order), `rollup`.
nlohmann::ordered_json report_json(const RunSummary& summary, const ReportOptions& options = {});
void write_json_report(const RunSummary& summary, std::ostream& out, const ReportOptions& options = {});

// One self-contained HTML file (inline CSS and SVG, no script, no network), opening on the groups.
void write_html_report(const RunSummary& summary, std::ostream& out, const ReportOptions& options = {});

// Dispatch on the format.
void write_report(const RunSummary& summary, ReportFormat format, std::ostream& out, const ReportOptions& options = {});

// The same for an analysis in memory: summarised with every launch kept and short names.
void write_text_report(const RunAnalysis& analysis, std::ostream& out, const ReportOptions& options = {});
void write_report(const RunAnalysis& analysis, ReportFormat format, std::ostream& out,
                  const ReportOptions& options = {});

// ---- the ranks of a job (rank_summary.hpp): `limiter report RECORDS...` ----
// Every format: the ranks side by side (host, GPU, kernel time, the slowest), then the kernels
// over all ranks, most time first (OPTIONS.top of them; 0: all), with the time each rank spent
// in them, the spread between the fastest and the slowest rank, and the slowest rank's verdict.
inline constexpr int kRankReportSchemaVersion = 1;
void write_rank_text_report(const RankSummary& summary, std::ostream& out, const ReportOptions& options = {});
void write_rank_markdown_report(const RankSummary& summary, std::ostream& out, const ReportOptions& options = {});
// One row per kernel and rank, and one per kernel of the PC samples alone; columns in kCsvRankReportColumns.
extern const std::vector<std::string> kCsvRankReportColumns;
void write_rank_csv_report(const RankSummary& summary, std::ostream& out, const ReportOptions& options = {});
nlohmann::ordered_json rank_report_json(const RankSummary& summary, const ReportOptions& options = {});
void write_rank_json_report(const RankSummary& summary, std::ostream& out, const ReportOptions& options = {});
void write_rank_html_report(const RankSummary& summary, std::ostream& out, const ReportOptions& options = {});
void write_report(const RankSummary& summary, ReportFormat format, std::ostream& out,
                  const ReportOptions& options = {});

// The most characters GitHub takes in a pull-request comment.
inline constexpr std::size_t kMarkdownCommentLimit = 65'536;

// How comparisons are shown.
struct ComparisonOptions {
  bool color = false;  // text only
  // Demangled name -> the name shown (--names); names not in it get their short form.
  std::unordered_map<std::string, std::string> names;
  // --top N: the N matched kernels whose time changed most (0: all). The totals and the gate
  // count every matched launch.
  std::size_t top = 0;
  // Markdown: at most this many characters (a pull-request comment's limit), rows left out from
  // the longest lists with a line that says so; 0: no limit.
  std::size_t markdown_limit = kMarkdownCommentLimit;
};

// The comparison of two runs in each format.
void write_text_comparison(const RunComparison& comparison, std::ostream& out, const ComparisonOptions& options = {});
void write_markdown_comparison(const RunComparison& comparison, std::ostream& out,
                               const ComparisonOptions& options = {});
extern const std::vector<std::string> kCsvComparisonColumns;
void write_csv_comparison(const RunComparison& comparison, std::ostream& out, const ComparisonOptions& options = {});
nlohmann::ordered_json comparison_json(const RunComparison& comparison, const ComparisonOptions& options = {});
void write_json_comparison(const RunComparison& comparison, std::ostream& out, const ComparisonOptions& options = {});
void write_html_comparison(const RunComparison& comparison, std::ostream& out, const ComparisonOptions& options = {});
void write_comparison(const RunComparison& comparison, ReportFormat format, std::ostream& out,
                      const ComparisonOptions& options = {});

}  // namespace limiter
