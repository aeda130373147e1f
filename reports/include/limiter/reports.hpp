#pragma once
// Renderers: plain analysis structs in, text on a std::ostream out. No GPU, no CUDA.
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "limiter/analysis.hpp"
#include "limiter/compare.hpp"

namespace limiter {

inline constexpr int kReportSchemaVersion = 1;

inline constexpr int kComparisonSchemaVersion = 1;

// The formats of `limiter report` and `limiter compare`.
enum class ReportFormat { text, md, csv, json, html };
ReportFormat report_format_from_string(const std::string& name);  // throws InputError naming the choices
std::string to_string(ReportFormat format);

struct TextReportOptions {
  bool color = false;        // ANSI colours for verdicts (only when writing to a terminal)
  bool details = true;       // per-kernel reasons, evidence summary and advice under the table
  bool rollups = true;       // time by verdict, grouped launches and what to fix first
};

// A table, most expensive kernels first, the roll-ups, then each kernel's reason and advice.
void write_text_report(const RunAnalysis& analysis, std::ostream& out, const TextReportOptions& options = {});

// For pull-request comments (GitHub-flavoured Markdown): roll-ups, the table, details folded.
void write_markdown_report(const RunAnalysis& analysis, std::ostream& out);

// One row per kernel launch in launch order; columns in kCsvReportColumns (README: "CSV columns").
extern const std::vector<std::string> kCsvReportColumns;
void write_csv_report(const RunAnalysis& analysis, std::ostream& out);

// The report schema: schema_version, device, thresholds, `kernels` in launch order, `rollup`.
nlohmann::ordered_json report_json(const RunAnalysis& analysis);
void write_json_report(const RunAnalysis& analysis, std::ostream& out);

// One self-contained HTML file (inline CSS and SVG, no script, no network).
void write_html_report(const RunAnalysis& analysis, std::ostream& out);

// Dispatch on the format; `color` only affects text.
void write_report(const RunAnalysis& analysis, ReportFormat format, std::ostream& out, bool color = false);

// The comparison of two runs in each format.
void write_text_comparison(const RunComparison& comparison, std::ostream& out, bool color = false);
void write_markdown_comparison(const RunComparison& comparison, std::ostream& out);
extern const std::vector<std::string> kCsvComparisonColumns;
void write_csv_comparison(const RunComparison& comparison, std::ostream& out);
nlohmann::ordered_json comparison_json(const RunComparison& comparison);
void write_json_comparison(const RunComparison& comparison, std::ostream& out);
void write_html_comparison(const RunComparison& comparison, std::ostream& out);
void write_comparison(const RunComparison& comparison, ReportFormat format, std::ostream& out, bool color = false);

}  // namespace limiter
