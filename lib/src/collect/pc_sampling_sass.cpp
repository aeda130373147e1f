// The hot PCs' SASS through nvdisasm (limiter/stall_sass.hpp).
#include "limiter/stall_sass.hpp"

#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

namespace limiter {

namespace {

std::string shell_quoted(const std::string& text) {  // for /bin/sh
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The command's standard output; false when it could not run or failed.
bool run_command(const std::string& command, std::string& output) {
  std::FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return false;
  char buffer[1 << 14];
  std::size_t got = 0;
  while ((got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, got);
  return ::pclose(pipe) == 0;
}

}  // namespace

std::string cubin_file_name(std::uint64_t crc) {
  char name[32];
  std::snprintf(name, sizeof name, "%016" PRIx64 ".cubin", crc);
  return name;
}

SassListing parse_nvdisasm(const std::string& listing) {
  // A function's section starts ".text.<mangled>:"; an instruction is "/*0040*/  TEXT ;" with,
  // for some architectures or flags, its encoding after it in another comment.
  static const std::regex section(R"(^\s*\.text\.([^:\s]+):)");
  static const std::regex instruction(R"(^\s*/\*([0-9a-fA-F]+)\*/\s*(.*?)\s*;)");
  SassListing out;
  std::map<std::uint64_t, std::string>* function = nullptr;
  std::istringstream lines(listing);
  std::string line;
  std::smatch match;
  while (std::getline(lines, line)) {
    if (std::regex_search(line, match, section)) {
      function = &out[match[1].str()];
    } else if (function && std::regex_search(line, match, instruction)) {
      const std::string text = std::regex_replace(match[2].str(), std::regex(R"(\s+)"), " ");
      (*function)[std::stoull(match[1].str(), nullptr, 16)] = text;
    }
  }
  return out;
}

std::string find_nvdisasm() {
  if (const char* path = std::getenv("PATH")) {
    std::istringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
      const std::string candidate = (dir.empty() ? "." : dir) + "/nvdisasm";
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
  }
  const std::string toolkit = "/usr/local/cuda/bin/nvdisasm";
  return ::access(toolkit.c_str(), X_OK) == 0 ? toolkit : "";
}

std::string fill_sass(StallInfo& info, const std::vector<std::string>& dirs, const std::string& nvdisasm) {
  std::set<std::uint64_t> missing, failed;
  std::map<std::uint64_t, SassListing> listings;  // by CRC: each cubin disassembled once
  for (auto& kernel : info.kernels) {
    if (kernel.hot_pcs.empty()) continue;
    auto listing = listings.find(kernel.cubin_crc);
    if (listing == listings.end()) {
      std::string path;
      for (const auto& dir : dirs) {
        const auto candidate = std::filesystem::path(dir) / cubin_file_name(kernel.cubin_crc);
        if (std::filesystem::exists(candidate)) path = candidate.string();
      }
      std::string output;
      if (path.empty()) missing.insert(kernel.cubin_crc);
      else if (nvdisasm.empty() || !run_command(shell_quoted(nvdisasm) + " -c " + shell_quoted(path) + " 2>/dev/null", output))
        failed.insert(kernel.cubin_crc);
      listing = listings.emplace(kernel.cubin_crc, parse_nvdisasm(output)).first;
    }
    const auto function = listing->second.find(kernel.mangled_name);
    if (function == listing->second.end()) continue;
    for (auto& pc : kernel.hot_pcs) {
      const auto text = function->second.find(pc.pc_offset);
      if (text != function->second.end()) pc.sass = text->second;
    }
  }
  std::string note;
  if (!missing.empty())
    note += std::to_string(missing.size()) + " kernel module(s) without a kept cubin (SASS left empty)";
  if (!failed.empty()) {
    note += (note.empty() ? "" : "; ") + std::to_string(failed.size()) + " cubin(s) not disassembled" +
            (nvdisasm.empty() ? ": nvdisasm not found (install the CUDA toolkit's nvdisasm, or put it on PATH)"
                              : ": nvdisasm failed");
  }
  return note;
}

}  // namespace limiter
