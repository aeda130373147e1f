#include "output_guard.hpp"

#include <filesystem>
#include <system_error>

#include "limiter/error.hpp"

namespace limiter::cli {
namespace {

namespace fs = std::filesystem;

// Same device and inode (stat through symlinks); false when either side does not exist.
bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  return fs::equivalent(a, b, ec);
}

[[noreturn]] void refuse(const std::string& option, const std::string& output, const std::string& input) {
  throw InputError(option + " '" + output + "' is the input '" + input +
                   "' (the same file): writing it would destroy the input; choose another output path");
}

}  // namespace

void refuse_folder_output(const std::string& output, const std::string& option) {
  std::error_code ec;
  if (output.empty() || output == "-" || !fs::is_directory(output, ec)) return;
  throw InputError(option + " '" + output + "' is a folder: name a file in it, e.g. " + option + " " +
                   (fs::path(output) / "FILE").string());
}

void refuse_output_over_input(const std::string& output, const std::vector<std::string>& inputs,
                              const std::string& option) {
  if (output.empty() || output == "-") return;
  refuse_folder_output(output, option);
  std::error_code ec;
  if (!fs::exists(output, ec)) return;  // a new file overwrites nothing
  for (const auto& input : inputs) {
    if (same_file(output, input)) refuse(option, output, input);
    if (!fs::is_directory(input, ec)) continue;
    for (const auto& entry : fs::directory_iterator(input, ec))
      if (same_file(output, entry.path())) refuse(option, output, entry.path().string());
  }
}

}  // namespace limiter::cli
