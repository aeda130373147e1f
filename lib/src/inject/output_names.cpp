#include "inject/output_names.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "limiter/error.hpp"

namespace limiter::detail {

std::string expand_output_name(const std::string& pattern, const std::optional<RankInfo>& rank) {
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
    } else if (code == 'r') {
      if (!rank) {
        throw InputError("output name '" + pattern + "': %r, but this process is no rank of a job (no RANK, "
                         "OMPI_COMM_WORLD_RANK, PMI_RANK or SLURM_PROCID with its world size); use %p");
      }
      name += std::to_string(rank->rank);
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
                       " (use %p, %h, %r, %q{ENV} or %%)");
    }
  }
  return name;
}

std::string output_pattern_for(const std::string& pattern, bool is_default, const std::optional<RankInfo>& rank) {
  if (!is_default || !rank) return pattern;
  return (std::filesystem::path(pattern).parent_path() / kDefaultRankOutput).string();
}

bool names_each_process(const std::string& pattern) {
  for (const char* code : {"%p", "%r", "%q{"})
    if (pattern.find(code) != std::string::npos) return true;
  return false;
}

}  // namespace limiter::detail
