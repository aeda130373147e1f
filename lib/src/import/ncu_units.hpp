#pragma once
// Units of an Nsight Compute CSV ("Kbyte", "usecond", "cycle/nsecond", "%", ...) turned into
// base units: bytes, nanoseconds for durations, hertz, per second. Scales are applied to the
// decimal text, so "6.912 Kbyte" becomes exactly 6912 bytes.
#include <optional>
#include <string_view>

namespace limiter::detail {

bool iequals(std::string_view a, std::string_view b);  // ASCII, case-insensitive

// The value `text` written in `unit`, in base units; empty when the text is not a number.
std::optional<double> to_base_units(std::string_view text, std::string_view unit);

}  // namespace limiter::detail
