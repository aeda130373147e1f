#pragma once
// A folder of its own under $TMPDIR (/tmp where that fails), removed with everything in it when
// it goes; path empty when it could not be made. Used for nvdisasm's raw binaries and for a
// limiter.profile() region's cubins.
#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace limiter {

struct TemporaryFolder {
  std::string path;
  explicit TemporaryFolder(const std::string& prefix) {
    if (prefix.empty()) return;
    const char* tmp = std::getenv("TMPDIR");
    for (const std::string& parent : {std::string(tmp && *tmp ? tmp : "/tmp"), std::string("/tmp")}) {
      std::string pattern = parent + "/" + prefix + "-XXXXXX";
      if (::mkdtemp(pattern.data())) {
        path = pattern;
        return;
      }
    }
  }
  ~TemporaryFolder() {
    std::error_code ignored;
    if (!path.empty()) std::filesystem::remove_all(path, ignored);
  }
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
};

}  // namespace limiter
