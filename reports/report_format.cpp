// The format names of --format and the dispatch to each renderer.
#include <ostream>

#include "limiter/error.hpp"
#include "limiter/reports.hpp"

namespace limiter {

ReportFormat report_format_from_string(const std::string& name) {
  if (name == "text") return ReportFormat::text;
  if (name == "md" || name == "markdown") return ReportFormat::md;
  if (name == "csv") return ReportFormat::csv;
  if (name == "json") return ReportFormat::json;
  if (name == "html") return ReportFormat::html;
  throw InputError("unknown --format '" + name + "' (expected text, md, csv, json or html)");
}

std::string to_string(ReportFormat format) {
  switch (format) {
    case ReportFormat::text:
      return "text";
    case ReportFormat::md:
      return "md";
    case ReportFormat::csv:
      return "csv";
    case ReportFormat::json:
      return "json";
    case ReportFormat::html:
      return "html";
  }
  return "text";
}

bool ReportOptions::grouped(const RunSummary& summary) const {
  // A timeline's kernel times are per group: a record with them reads grouped however often it profiled each.
  if (view == ReportView::automatic)
    return summary.has_repeated_launches() || summary.launches_dropped || summary.timeline_kernels.has_value();
  return view == ReportView::grouped;
}

void write_report(const RunSummary& summary, ReportFormat format, std::ostream& out, const ReportOptions& options) {
  switch (format) {
    case ReportFormat::text:
      write_text_report(summary, out, options);
      return;
    case ReportFormat::md:
      write_markdown_report(summary, out, options);
      return;
    case ReportFormat::csv:
      write_csv_report(summary, out, options);
      return;
    case ReportFormat::json:
      write_json_report(summary, out, options);
      return;
    case ReportFormat::html:
      write_html_report(summary, out, options);
      return;
  }
}

void write_report(const RankSummary& summary, ReportFormat format, std::ostream& out, const ReportOptions& options) {
  switch (format) {
    case ReportFormat::text:
      write_rank_text_report(summary, out, options);
      return;
    case ReportFormat::md:
      write_rank_markdown_report(summary, out, options);
      return;
    case ReportFormat::csv:
      write_rank_csv_report(summary, out, options);
      return;
    case ReportFormat::json:
      write_rank_json_report(summary, out, options);
      return;
    case ReportFormat::html:
      write_rank_html_report(summary, out, options);
      return;
  }
}

void write_text_report(const RunAnalysis& analysis, std::ostream& out, const ReportOptions& options) {
  write_text_report(summarize(analysis), out, options);
}

void write_report(const RunAnalysis& analysis, ReportFormat format, std::ostream& out, const ReportOptions& options) {
  write_report(summarize(analysis), format, out, options);
}

void write_comparison(const RunComparison& comparison, ReportFormat format, std::ostream& out,
                      const ComparisonOptions& options) {
  switch (format) {
    case ReportFormat::text:
      write_text_comparison(comparison, out, options);
      return;
    case ReportFormat::md:
      write_markdown_comparison(comparison, out, options);
      return;
    case ReportFormat::csv:
      write_csv_comparison(comparison, out, options);
      return;
    case ReportFormat::json:
      write_json_comparison(comparison, out, options);
      return;
    case ReportFormat::html:
      write_html_comparison(comparison, out, options);
      return;
  }
}

}  // namespace limiter
