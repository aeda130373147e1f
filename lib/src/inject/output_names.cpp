#include "inject/output_names.hpp"

#include <unistd.h>

#include <cstdlib>

#include "limiter/error.hpp"

namespace limiter::detail {

std::string expand_output_name(const std::string& pattern) {
  std::string name;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%' || i + 1 == pattern.size()) {
      name += pattern[i];
      continue;
    }
    const char code = pattern[++i];
    if (code == 'p') {
      name += std::to_string(getpid());
    } else if (code == 'h') {
      char host[256] = {};
      gethostname(host, sizeof host - 1);
      name += host;
    } else if (code == '%') {
      name += '%';
    } else if (code == 'q' && i + 1 < pattern.size() && pattern[i + 1] == '{') {
      const std::size_t close = pattern.find('}', i + 2);
      if (close == std::string::npos) throw InputError("output name '" + pattern + "': %q{ has no closing }");
      const std::string variable = pattern.substr(i + 2, close - i - 2);
      const char* value = std::getenv(variable.c_str());
      if (!value) throw InputError("output name '" + pattern + "': environment variable " + variable + " is not set");
      name += value;
      i = close;
    } else {
      throw InputError("output name '" + pattern + "': unknown %" + std::string(1, code) +
                       " (use %p, %h, %q{ENV} or %%)");
    }
  }
  return name;
}

}  // namespace limiter::detail
