#include "output_format.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>

namespace limiter::cli {

ReportFormat format_of_output_name(const std::string& output) {
  std::string extension = std::filesystem::path(output).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (extension == ".html" || extension == ".htm") return ReportFormat::html;
  if (extension == ".md" || extension == ".markdown") return ReportFormat::md;
  if (extension == ".csv") return ReportFormat::csv;
  if (extension == ".json") return ReportFormat::json;
  return ReportFormat::text;
}

ReportFormat output_format(const std::string& format, const std::string& output, const std::string& command) {
  const bool to_file = !output.empty() && output != "-";
  const ReportFormat named = to_file ? format_of_output_name(output) : ReportFormat::text;
  if (format.empty()) return named;
  const ReportFormat asked = report_format_from_string(format);
  // Text goes under any name; only another format's own extension contradicts.
  if (named != ReportFormat::text && named != asked)
    std::cerr << command << ": warning: writing " << to_string(asked) << " to '" << output << "' as --format " << format
              << " asks, though its extension names " << to_string(named) << "\n";
  return asked;
}

}  // namespace limiter::cli
