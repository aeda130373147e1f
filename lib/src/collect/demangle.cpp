#include "collect/demangle.hpp"

#include <cxxabi.h>

#include <cstdlib>

namespace limiter::detail {

std::string demangle(const char* mangled, const char* when_null) {
  if (!mangled) return when_null;
  int status = 0;
  char* readable = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string name = status == 0 && readable ? readable : mangled;
  std::free(readable);
  return name;
}

}  // namespace limiter::detail
