// The hot PCs' SASS through nvdisasm (limiter/stall_sass.hpp).
#include "limiter/stall_sass.hpp"
#include "limiter/temporary_folder.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
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

namespace {

// nvdisasm -b prints a relative branch's target as an address in the raw file; made the
// function's own offset (as its PCs are) for an instruction of the function at PC that sat AT
// in the file. Absolute targets (JMP, CALL.ABS: unrelocated in a raw binary, 0x0 where -fun
// names the callee) stay as printed.
std::string function_relative_targets(const std::string& text, std::uint64_t at, std::uint64_t pc) {
  std::string_view opcode(text);
  if (opcode.starts_with('@')) opcode.remove_prefix(std::min(opcode.size(), opcode.find(' ') + 1));
  opcode = opcode.substr(0, opcode.find(' '));
  const std::string_view base = opcode.substr(0, opcode.find('.'));
  static const std::set<std::string_view> kRelative = {"BRA", "BSSY", "SSY", "PBK", "PCNT"};
  const bool relative_call = (base == "CALL" || base == "RET") && opcode.find(".REL") != std::string_view::npos;
  if (!kRelative.count(base) && !relative_call) return text;
  std::string out;
  std::size_t from = 0;
  for (std::size_t hex; (hex = text.find("0x", from)) != std::string::npos;) {
    std::size_t end = hex + 2;
    while (end < text.size() && std::isxdigit(static_cast<unsigned char>(text[end]))) ++end;
    std::uint64_t value = 0;
    const bool operand = (hex == 0 || text[hex - 1] == ' ' || text[hex - 1] == ',') &&
                         (end == text.size() || text[end] == ' ' || text[end] == ',');
    out.append(text, from, hex - from);
    if (operand && std::from_chars(text.data() + hex + 2, text.data() + end, value, 16).ptr == text.data() + end &&
        value + pc >= at) {
      char relative[24];
      std::snprintf(relative, sizeof relative, "0x%" PRIx64, value + pc - at);
      out += relative;
    } else {
      out.append(text, hex, end - hex);
    }
    from = end;
  }
  return out + text.substr(from);
}

// Where the raw binaries start: far above any function's size, so that a backward branch of an
// instruction early in the file still prints a target above 0.
constexpr std::uint64_t kRawBase = std::uint64_t(1) << 32;

struct Piece {  // a hot instruction's place in a raw binary
  std::uint64_t crc = 0;
  std::string function;
  std::uint64_t pc = 0, at = 0;  // its offset in the function; its address in the raw binary
};

// One nvdisasm run: a raw binary of hot functions (pieces) or one cubin (-fun or whole).
struct Job {
  std::vector<std::uint64_t> crcs;  // the cubins it stands for
  std::string path, options, output;
  std::vector<Piece> pieces;  // raw: where each function is
  bool ok = false, started = false;
};

void run_jobs(std::vector<Job>& jobs, const std::string& nvdisasm, std::chrono::steady_clock::time_point deadline) {
  auto disassemble = [&nvdisasm](Job& job) {
    auto run = [&](const std::string& options) {
      job.output.clear();
      return !nvdisasm.empty() &&
             run_command(shell_quoted(nvdisasm) + " -c" + options + " " + shell_quoted(job.path) + " 2>/dev/null",
                         job.output);
    };
    // A raw binary that gave no instruction failed; an nvdisasm without -fun gets the whole cubin.
    if (!job.pieces.empty())
      job.ok = run(job.options) && job.output.find("/*") != std::string::npos;
    else
      job.ok = run(job.options) || (!job.options.empty() && run(""));
  };
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
}

// The -fun job of one cubin: its hot functions by symbol index (the whole cubin when none is known).
Job cubin_job(std::uint64_t crc, const std::string& path, const CubinFunctions& cubin,
              const std::set<std::string>& functions) {
  std::string indices;
  for (const auto& function : functions)
    if (const auto it = cubin.functions.find(function); it != cubin.functions.end())
      indices += (indices.empty() ? "" : ",") + std::to_string(it->second.symbol);
  Job job;
  job.crcs = {crc};
  job.path = path;
  job.options = indices.empty() ? "" : " -fun " + indices;  // --cuda-function-index
  return job;
}

}  // namespace

std::string fill_sass(StallInfo& info, const std::vector<std::string>& dirs, const std::string& nvdisasm,
                      std::chrono::milliseconds budget, SassRuns* runs) {
  // The hot kernels of each cubin: only they are disassembled (a PyTorch cubin whole took
  // nvdisasm over 20 s, H100, 2026-11-26).
  std::map<std::uint64_t, std::set<std::string>> wanted;
  std::map<std::pair<std::uint64_t, std::string>, std::set<std::uint64_t>> hot_pcs;  // by CRC and function
  for (const auto& kernel : info.kernels) {
    if (!kernel.hot_pcs.empty()) wanted[kernel.cubin_crc].insert(kernel.mangled_name);
    for (const auto& pc : kernel.hot_pcs) hot_pcs[{kernel.cubin_crc, kernel.mangled_name}].insert(pc.pc_offset);
  }
  std::set<std::uint64_t> missing, failed;
  std::map<std::uint64_t, std::string> paths;
  std::map<std::uint64_t, CubinFunctions> cubins;
  std::map<std::string, std::pair<std::string, std::vector<Piece>>> raw;  // by nvdisasm arch: the code, its pieces
  for (const auto& [crc, functions] : wanted) {
    for (const auto& dir : dirs) {
      const auto candidate = std::filesystem::path(dir) / cubin_file_name(crc);
      if (std::filesystem::exists(candidate)) paths[crc] = candidate.string();
    }
    if (!paths.count(crc)) {
      missing.insert(crc);
      continue;
    }
    CubinFunctions& cubin = cubins[crc] = read_cubin_functions(paths[crc]);
    // Only the hot instructions, back to back: from sm_70 on each is 16 bytes that decode alone,
    // and a PyTorch program's 32 hot functions whole (477 KiB) took nvdisasm 1.2 s (H200, 2026-11-27).
    // A cubin any of whose hot PCs is not a whole instruction of its function goes to -fun.
    bool readable = cubin.sm >= 70;
    for (const auto& function : functions) {
      const auto it = cubin.functions.find(function);
      readable =
          readable && it != cubin.functions.end() && !it->second.code.empty() && it->second.code.size() % 16 == 0;
      for (const std::uint64_t pc : hot_pcs[{crc, function}])
        readable = readable && pc % 16 == 0 && pc <= it->second.code.size() - 16;
    }
    if (!readable) continue;
    auto& [code, pieces] = raw[cubin.nvdisasm_arch()];
    for (const auto& function : functions) {
      const auto& bytes = cubin.functions.at(function).code;
      for (const std::uint64_t pc : hot_pcs[{crc, function}]) {
        pieces.push_back({crc, function, pc, kRawBase + code.size()});
        code.append(reinterpret_cast<const char*>(bytes.data() + pc), 16);
      }
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + budget;
  std::vector<Job> jobs;
  const TemporaryFolder folder(raw.empty() ? "" : "limiter-sass");
  for (auto& [arch, binary] : raw) {
    if (folder.path.empty() || binary.second.empty()) continue;
    Job job;
    job.path = folder.path + "/" + arch + ".bin";
    std::ofstream file(job.path, std::ios::binary);
    file.write(binary.first.data(), static_cast<std::streamsize>(binary.first.size()));
    if (!file.flush()) continue;  // a full disk: these cubins go to -fun
    char base[32];
    std::snprintf(base, sizeof base, " --base-address 0x%" PRIx64, kRawBase);
    job.options = " -b " + arch + base;
    job.pieces = std::move(binary.second);
    for (const auto& piece : job.pieces)
      if (job.crcs.empty() || job.crcs.back() != piece.crc) job.crcs.push_back(piece.crc);
    jobs.push_back(std::move(job));
  }
  run_jobs(jobs, nvdisasm, deadline);
  // Every cubin a raw binary did not give every hot instruction of: -fun, a cubin a job.
  std::set<std::uint64_t> done, late;
  std::map<std::uint64_t, SassListing> listings;  // by CRC
  std::size_t raw_instructions = 0;
  for (const auto& job : jobs) {
    if (!job.ok) continue;
    const SassListing all = parse_nvdisasm(".text.raw:\n" + job.output);
    const auto& instructions = all.begin()->second;
    std::set<std::uint64_t> incomplete;
    std::map<std::uint64_t, SassListing> found;
    for (const auto& piece : job.pieces) {
      const auto text = instructions.find(piece.at);
      if (text == instructions.end())
        incomplete.insert(piece.crc);
      else
        found[piece.crc][piece.function][piece.pc] = function_relative_targets(text->second, piece.at, piece.pc);
    }
    for (auto& [crc, listing] : found) {
      if (incomplete.count(crc)) continue;
      for (const auto& [function, pcs] : listing) raw_instructions += pcs.size();
      listings[crc] = std::move(listing);
      done.insert(crc);
    }
  }
  std::vector<Job> cubin_jobs;
  for (const auto& [crc, path] : paths)
    if (!done.count(crc)) cubin_jobs.push_back(cubin_job(crc, path, cubins[crc], wanted[crc]));
  run_jobs(cubin_jobs, nvdisasm, deadline);
  if (runs) {
    runs->raw_instructions = raw_instructions;
    runs->raw_runs =
        static_cast<std::size_t>(std::count_if(jobs.begin(), jobs.end(), [](const Job& j) { return j.started; }));
    runs->cubin_runs = static_cast<std::size_t>(
        std::count_if(cubin_jobs.begin(), cubin_jobs.end(), [](const Job& j) { return j.started; }));
  }
  for (auto& job : cubin_jobs) {
    if (!job.started) {
      late.insert(job.crcs.front());
      continue;
    }
    if (!job.ok) failed.insert(job.crcs.front());
    listings.emplace(job.crcs.front(), parse_nvdisasm(job.output));
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
  if (!late.empty()) {
    note += (note.empty() ? "" : "; ") + std::to_string(late.size()) + " cubin(s) not disassembled within " +
            std::to_string(budget.count() / 1000) +
            " s (their hot PCs keep file:line; --save-raw DIR keeps the "
            "cubins for nvdisasm -c -fun)";
  }
  return note;
}

}  // namespace limiter
