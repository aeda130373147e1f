#pragma once
// Files are written whole or not at all: to PATH.tmp, then renamed over PATH, so a crash or a
// full disk never leaves half a record behind.
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

namespace limiter {

// Throws InputError when PATH cannot be created (missing folder, no permission) and
// SystemError when writing or renaming fails (disk full).
void write_file_atomically(const std::string& path, std::string_view content);
// The same, for content streamed by WRITE (a file too large to build in memory first).
void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace limiter
