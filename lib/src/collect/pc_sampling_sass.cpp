// The hot PCs' SASS through nvdisasm (limiter/stall_sass.hpp).
#include "limiter/stall_sass.hpp"

#include <elf.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cinttypes>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string_view>
#include <thread>

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

namespace {

std::string_view trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

// TEXT with each run of blanks made one space.
std::string one_spaced(std::string_view text) {
  std::string out;
  for (char c : text) {
    const bool blank = c == ' ' || c == '\t';
    if (blank && (out.empty() || out.back() == ' ')) continue;
    out += blank ? ' ' : c;
  }
  return out;
}

}  // namespace

SassListing parse_nvdisasm(const std::string& listing) {
  // A function's section starts ".text.<mangled>:"; an instruction is "/*0040*/  TEXT ;" with,
  // for some architectures or flags, its encoding after it in another comment. Read by hand:
  // std::regex took minutes over a PyTorch cubin's listing (H100, 2026-11-26).
  SassListing out;
  std::map<std::uint64_t, std::string>* function = nullptr;
  std::string_view rest(listing);
  while (!rest.empty()) {
    const auto end = rest.find('\n');
    const std::string_view line = trimmed(rest.substr(0, end));
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    if (line.starts_with(".text.") && line.ends_with(':') && line.find_first_of(" \t") == std::string_view::npos) {
      function = &out[std::string(line.substr(6, line.size() - 7))];
    } else if (function && line.starts_with("/*")) {
      const auto close = line.find("*/");
      const auto semicolon = line.find(';');
      if (close == std::string_view::npos || semicolon == std::string_view::npos || semicolon < close) continue;
      std::uint64_t offset = 0;
      const auto digits = line.substr(2, close - 2);
      if (digits.empty() || std::from_chars(digits.data(), digits.data() + digits.size(), offset, 16).ptr !=
                                digits.data() + digits.size())
        continue;
      (*function)[offset] = one_spaced(trimmed(line.substr(close + 2, semicolon - close - 2)));
    }
  }
  return out;
}

std::map<std::string, std::uint32_t> cubin_function_symbols(const std::string& path) {
  // A cubin is an ELF64 file: its symbol table names each function (STT_FUNC) by index, the
  // number nvdisasm's -fun (--cuda-function-index) takes.
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::map<std::string, std::uint32_t> out;
  auto fits = [&](std::uint64_t offset, std::uint64_t size) { return offset <= bytes.size() && size <= bytes.size() - offset; };
  Elf64_Ehdr header;
  if (!fits(0, sizeof header) || bytes.compare(0, SELFMAG, ELFMAG) != 0 || bytes[EI_CLASS] != ELFCLASS64) return out;
  std::memcpy(&header, bytes.data(), sizeof header);
  if (header.e_shentsize != sizeof(Elf64_Shdr) || !fits(header.e_shoff, std::uint64_t(header.e_shnum) * sizeof(Elf64_Shdr)))
    return out;
  auto section = [&](std::size_t i) {
    Elf64_Shdr s;
    std::memcpy(&s, bytes.data() + header.e_shoff + i * sizeof s, sizeof s);
    return s;
  };
  for (std::size_t i = 0; i < header.e_shnum; ++i) {
    const Elf64_Shdr symbols = section(i);
    if (symbols.sh_type != SHT_SYMTAB || symbols.sh_entsize != sizeof(Elf64_Sym) || symbols.sh_link >= header.e_shnum ||
        !fits(symbols.sh_offset, symbols.sh_size))
      continue;
    const Elf64_Shdr names = section(symbols.sh_link);
    if (!fits(names.sh_offset, names.sh_size)) continue;
    for (std::uint64_t n = 0; n < symbols.sh_size / sizeof(Elf64_Sym); ++n) {
      Elf64_Sym symbol;
      std::memcpy(&symbol, bytes.data() + symbols.sh_offset + n * sizeof symbol, sizeof symbol);
      if (ELF64_ST_TYPE(symbol.st_info) != STT_FUNC || symbol.st_name >= names.sh_size) continue;
      const char* name = bytes.data() + names.sh_offset + symbol.st_name;
      out.emplace(std::string(name, strnlen(name, names.sh_size - symbol.st_name)), static_cast<std::uint32_t>(n));
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

std::string fill_sass(StallInfo& info, const std::vector<std::string>& dirs, const std::string& nvdisasm,
                      std::chrono::milliseconds budget) {
  // The hot kernels of each cubin, so that nvdisasm disassembles only them: a PyTorch cubin
  // whole took nvdisasm over 20 s (H100, 2026-11-26).
  std::map<std::uint64_t, std::set<std::string>> wanted;
  for (const auto& kernel : info.kernels)
    if (!kernel.hot_pcs.empty()) wanted[kernel.cubin_crc].insert(kernel.mangled_name);
  // Each cubin on a thread of its own (nvdisasm still reads the whole file: ~1 s for each of a
  // PyTorch program's 20 cubins, 124 for a JAX program; H100, 2026-11-26), a few at a time.
  struct Job {
    std::uint64_t crc = 0;
    std::string path, only;
    std::string output;
    bool ok = false, started = false;
  };
  std::set<std::uint64_t> missing, failed;
  std::vector<Job> jobs;
  for (const auto& [crc, functions] : wanted) {
    std::string path;
    for (const auto& dir : dirs) {
      const auto candidate = std::filesystem::path(dir) / cubin_file_name(crc);
      if (std::filesystem::exists(candidate)) path = candidate.string();
    }
    if (path.empty()) {
      missing.insert(crc);
      continue;
    }
    std::string indices;
    const auto symbols = cubin_function_symbols(path);
    for (const auto& function : functions)
      if (const auto symbol = symbols.find(function); symbol != symbols.end())
        indices += (indices.empty() ? "" : ",") + std::to_string(symbol->second);
    // Without the symbols (not an ELF file we can read), the whole cubin.
    jobs.push_back({crc, path, indices.empty() ? "" : " -fun " + indices, "", false, false});  // --cuda-function-index
  }
  auto disassemble = [&nvdisasm](Job& job) {
    auto run = [&](const std::string& options) {
      job.output.clear();
      return !nvdisasm.empty() &&
             run_command(shell_quoted(nvdisasm) + " -c" + options + " " + shell_quoted(job.path) + " 2>/dev/null",
                         job.output);
    };
    // An nvdisasm without -fun: the whole cubin after all.
    job.ok = run(job.only) || (!job.only.empty() && run(""));
  };
  const auto deadline = std::chrono::steady_clock::now() + budget;
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> workers;
  // The cores this process may use (its affinity, not the host's count), at most 8: each
  // nvdisasm holds a whole cubin.
  cpu_set_t cpus;
  const int usable = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
  const std::size_t threads = std::min<std::size_t>({jobs.size(), std::size_t(std::max(usable, 1)), 8});
  for (std::size_t t = 0; t < threads; ++t)
    workers.emplace_back([&] {
      for (std::size_t i = next++; i < jobs.size() && std::chrono::steady_clock::now() < deadline; i = next++) {
        jobs[i].started = true;
        disassemble(jobs[i]);
      }
    });
  for (auto& worker : workers) worker.join();
  std::map<std::uint64_t, SassListing> listings;  // by CRC: each cubin disassembled once
  std::size_t late = 0;
  for (auto& job : jobs) {
    if (!job.started) {
      ++late;
      continue;
    }
    if (!job.ok) failed.insert(job.crc);
    listings.emplace(job.crc, parse_nvdisasm(job.output));
  }
  for (auto& kernel : info.kernels) {
    const auto listing = listings.find(kernel.cubin_crc);
    if (listing == listings.end()) continue;
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
  if (late > 0) {
    note += (note.empty() ? "" : "; ") + std::to_string(late) + " cubin(s) not disassembled within " +
            std::to_string(budget.count() / 1000) + " s (their hot PCs keep file:line; --save-raw DIR keeps the "
            "cubins for nvdisasm -c -fun)";
  }
  return note;
}

}  // namespace limiter
