#pragma once
// The format of a report or comparison: --format when given, else what the output file's
// extension names (report -o r.html writes HTML), else text.
#include <string>

#include "limiter/reports.hpp"

namespace limiter::cli {

// The format an output file's name asks for: .html/.htm, .md/.markdown, .csv, .json; text for
// any other name (.txt), for standard output ("" or "-") and for no extension.
ReportFormat format_of_output_name(const std::string& output);

// FORMAT (the --format value, empty when not given) or else OUTPUT's format. An explicit
// --format that another format's extension contradicts (-f md -o r.html) is honoured, with a
// warning on standard error from COMMAND ("limiter report").
ReportFormat output_format(const std::string& format, const std::string& output, const std::string& command);

}  // namespace limiter::cli
