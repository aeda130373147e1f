#pragma once
// A kernel's name as a user reads it, from the mangled name the driver and CUPTI give.
#include <string>

namespace limiter::detail {

// MANGLED demangled (itself where it is not a mangled C++ name); WHEN_NULL for a null name.
std::string demangle(const char* mangled, const char* when_null = "");

}  // namespace limiter::detail
