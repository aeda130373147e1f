#include "limiter/format.hpp"

#include <cmath>
#include <cstdio>

namespace limiter {
namespace {

std::string scaled(double value, const char* const* units, int unit_count, double step, int decimals) {
  int unit = 0;
  while (std::fabs(value) >= step && unit + 1 < unit_count) {
    value /= step;
    ++unit;
  }
  char text[64];
  std::snprintf(text, sizeof text, "%.*f %s", decimals, value, units[unit]);
  return text;
}

}  // namespace

std::string format_fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::string format_percent(std::optional<double> fraction, int decimals) {
  if (!fraction || std::isnan(*fraction)) return "—";
  return format_fixed(*fraction * 100.0, decimals) + "%";
}

std::string format_duration_ns(double nanoseconds) {
  static const char* const units[] = {"ns", "us", "ms", "s"};
  return scaled(nanoseconds, units, 4, 1000.0, 1);
}

std::string format_bytes(double bytes) {
  static const char* const units[] = {"B", "kB", "MB", "GB", "TB"};
  return scaled(bytes, units, 5, 1000.0, 2);
}

std::string format_rate(double bytes_per_second) {
  static const char* const units[] = {"B/s", "kB/s", "MB/s", "GB/s", "TB/s"};
  return scaled(bytes_per_second, units, 5, 1000.0, 2);
}

std::string format_count(double count) {
  static const char* const units[] = {"", "k", "M", "G", "T"};
  std::string text = scaled(count, units, 5, 1000.0, 2);
  if (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

}  // namespace limiter
