#pragma once
// Section labels of ncu's details page ("Duration", "Memory Throughput", ...) mapped to raw
// metric names, from the section files that ship with ncu 2025.3. Keyed by section, because
// labels repeat with other meanings.
#include <string>
#include <string_view>

namespace limiter::detail {

// The raw name behind a details-page metric name. Raw names (with "__") pass through; a label
// of a known section maps to its metric; in an unknown section a label maps only when no other
// section uses it; anything else keeps its label.
std::string raw_metric_name(std::string_view section, std::string_view name);

}  // namespace limiter::detail
