#pragma once
// The colour of each verdict, one table for every output that colours kernels: the HTML page
// (badges, charts) and the Perfetto/Chrome trace. A trace event's colour can only be one of
// chrome://tracing's reserved names (catapult's color_scheme), so the page uses those names'
// own RGB values: a kernel looks the same in both.
#include <optional>

#include "limiter/analysis.hpp"

namespace limiter {

struct VerdictColour {
  const char* fill;        // "#rrggbb", for CSS and SVG
  const char* text;        // a readable text colour on it
  const char* trace_name;  // the trace's "cname"
};

inline const VerdictColour& verdict_colour(const std::optional<Verdict>& verdict) {
  static constexpr VerdictColour kBandwidth{"#4387fd", "#ffffff", "rail_response"};
  static constexpr VerdictColour kInstruction{"#b67d8f", "#ffffff", "thread_state_uninterruptible"};
  static constexpr VerdictColour kLatency{"#ee8e00", "#1b1b1b", "rail_idle"};
  static constexpr VerdictColour kNone{"#dddddd", "#1b1b1b", "grey"};
  if (!verdict) return kNone;
  switch (*verdict) {
    case Verdict::bandwidth:
      return kBandwidth;
    case Verdict::instruction:
      return kInstruction;
    case Verdict::latency:
      return kLatency;
  }
  return kNone;
}

}  // namespace limiter
