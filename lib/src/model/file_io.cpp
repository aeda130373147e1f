#include "limiter/file_io.hpp"

#include <filesystem>
#include <fstream>

#include "limiter/error.hpp"

namespace limiter {

void write_file_atomically(const std::string& path, std::string_view content) {
  write_file_atomically(
      path, [&](std::ostream& out) { out.write(content.data(), static_cast<std::streamsize>(content.size())); });
}

void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  const std::filesystem::path target(path);
  const std::filesystem::path temporary = target.string() + ".tmp";
  std::ofstream out(temporary, std::ios::binary);
  if (!out) throw InputError("cannot write '" + path + "': check that the folder exists and is writable");
  try {
    write(out);
    out.close();
    if (!out) throw SystemError("writing '" + temporary.string() + "' failed (disk full?)");
    std::error_code ec;
    std::filesystem::rename(temporary, target, ec);
    if (ec) throw SystemError("cannot rename '" + temporary.string() + "' to '" + path + "': " + ec.message());
  } catch (...) {
    // A writer that throws half-way (bad input found while rendering) leaves no temp file.
    out.close();
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw;
  }
}

}  // namespace limiter
