#pragma once
// Importers: other tools' exports become run records.
#include <iosfwd>
#include <string>
#include <vector>

#include "limiter/record.hpp"

namespace limiter {

// Nsight Compute CSV export, either `ncu --csv` (one row per metric) or
// `ncu --csv --page raw` (one row per kernel, a units row under the header). The form is
// detected. Values are converted to base units (bytes, nanoseconds, cycles, counts; percent
// stays percent). launch__* and device__attribute_* columns fill the launch configuration
// and the device description where present. `origin` names the input in error messages. Lines
// after the table that are not rows of it (the program's output, a note) are left out, and
// WARNINGS, when given, gets one line that says so.
RunRecord import_ncu_csv(std::istream& in, const std::string& origin, std::vector<std::string>* warnings = nullptr);
// The same from a file, plain or gzip-compressed (export.csv.gz).
RunRecord import_ncu_csv_file(const std::string& path, std::vector<std::string>* warnings = nullptr);

// Plain `kernel,metric,value` CSV in either counter model (detected from the metric names).
// Kernels appear in the order they first appear. The architecture and SM count are not in
// the file, so the caller gives them.
RunRecord import_plain_csv(std::istream& in, const std::string& origin, const std::string& arch, int sm_count);
// The same from a file, plain or gzip-compressed.
RunRecord import_plain_csv_file(const std::string& path, const std::string& arch, int sm_count);

}  // namespace limiter
