#pragma once
// Importers: other tools' exports become run records.
#include <iosfwd>
#include <string>

#include "limiter/record.hpp"

namespace limiter {

// Nsight Compute CSV export, either `ncu --csv` (one row per metric) or
// `ncu --csv --page raw` (one row per kernel, a units row under the header). The form is
// detected. Values are converted to base units (bytes, nanoseconds, cycles, counts; percent
// stays percent). launch__* and device__attribute_* columns fill the launch configuration
// and the device description where present. `origin` names the input in error messages.
RunRecord import_ncu_csv(std::istream& in, const std::string& origin);

// Plain `kernel,metric,value` CSV in either counter model (detected from the metric names).
// Kernels appear in the order they first appear. The architecture and SM count are not in
// the file, so the caller gives them.
RunRecord import_plain_csv(std::istream& in, const std::string& origin, const std::string& arch,
                           int sm_count);

}  // namespace limiter
