#pragma once
// Human-readable numbers shared by the analysis evidence and the reports.
#include <optional>
#include <string>

namespace limiter {

std::string format_percent(std::optional<double> fraction, int decimals = 1);  // 0.4081 -> "40.8%", empty -> "—"
std::string format_duration_ns(double nanoseconds);                            // 264480 -> "264.5 us"
std::string format_bytes(double bytes);                                        // 1.05e9 -> "1.05 GB"
std::string format_rate(double bytes_per_second);                              // 3.98e12 -> "3.98 TB/s"
std::string format_count(double count);                                        // 72234496 -> "72.23 M"
std::string format_fixed(double value, int decimals);

}  // namespace limiter
