#pragma once
// Renderers: plain analysis structs in, text on a std::ostream out. No GPU, no CUDA.
#include <iosfwd>

#include <nlohmann/json.hpp>

#include "limiter/analysis.hpp"

namespace limiter {

inline constexpr int kReportSchemaVersion = 1;

struct TextReportOptions {
  bool color = false;        // ANSI colours for verdicts (only when writing to a terminal)
  bool details = true;       // per-kernel reasons, evidence summary and advice under the table
};

// A table, most expensive kernels first, then each kernel's reason and advice.
void write_text_report(const RunAnalysis& analysis, std::ostream& out, const TextReportOptions& options = {});

// The report schema: schema_version, device, thresholds, and `kernels` in launch order.
nlohmann::ordered_json report_json(const RunAnalysis& analysis);
void write_json_report(const RunAnalysis& analysis, std::ostream& out);

}  // namespace limiter
