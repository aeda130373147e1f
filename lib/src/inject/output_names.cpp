#include "inject/output_names.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>

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
        throw InputError("output name '" + pattern +
                         "': %r, but this process is no rank of a job (no RANK, "
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

std::string per_process_name(const std::string& output, long pid) {
  const std::filesystem::path path(output);
  std::string name = path.filename().string();
  std::size_t at = name.size();
  for (const char* extension : {".json.gz", ".json"}) {
    const std::string suffix = extension;
    if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      at = name.size() - suffix.size();
      break;
    }
  }
  name.insert(at, "_" + std::to_string(pid));
  return (path.parent_path() / name).string();
}

std::string claim_output_name(const std::string& session_dir, const std::string& output) {
  if (session_dir.empty()) return output;
  // One claim file per output path; O_EXCL makes the first process to create it the owner.
  char hash[32];
  std::snprintf(hash, sizeof hash, "%016zx", std::hash<std::string>{}(output));
  const std::string claim = session_dir + "/claim-" + hash;
  const int fd = ::open(claim.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd >= 0) {
    ::close(fd);
    return output;
  }
  if (errno != EEXIST) return output;  // no session folder to claim in: as before claims existed
  return per_process_name(output, static_cast<long>(getpid()));
}

}  // namespace limiter::detail
