// The per-architecture limits that decide occupancy.
//
// sm_50 and newer: every number the occupancy rules use comes from cuda_occupancy.h (CUDA 13.0):
// register allocation unit and sub-partitions, blocks per SM, shared-memory granularity and the
// carve-out lists, the per-block driver reserve. The device properties the header takes as input
// (threads, registers and shared memory per SM and per block) are the cudaDeviceProp values of
// the CUDA C++ Programming Guide's table of compute capabilities.
// sm_1x, sm_2x, sm_3x: the CUDA Occupancy Calculator spreadsheet (its "GPU Data" sheet) and the
// Kepler tuning guide (seed 004) for GK210.
#include "limiter/architecture.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <initializer_list>
#include <string>
#include <string_view>

#include "limiter/error.hpp"

namespace limiter {
namespace {

constexpr std::uint64_t kib = 1024;

std::vector<std::uint64_t> kibibytes(std::initializer_list<std::uint64_t> sizes_kib) {
  std::vector<std::uint64_t> bytes;
  for (const auto size : sizes_kib) bytes.push_back(size * kib);
  return bytes;
}

// Tesla G80 (sm_10, sm_11) and GT200 (sm_12, sm_13), from the Occupancy Calculator: registers
// are allocated per block — warps rounded up to 2, times 32 threads times registers, rounded up
// to 256 (G80) or 512 (GT200) — and shared memory in 512-byte units.
ArchitectureLimits tesla(int compute_capability) {
  const bool gt200 = compute_capability >= 12;
  ArchitectureLimits limits;
  limits.compute_capability = compute_capability;
  limits.family = gt200 ? "Tesla GT200" : "Tesla G80";
  limits.max_threads_per_sm = gt200 ? 1024 : 768;
  limits.max_warps_per_sm = limits.max_threads_per_sm / 32;
  limits.max_blocks_per_sm = 8;
  limits.max_threads_per_block = 512;
  limits.sub_partitions_per_sm = 1;
  limits.registers_per_sm = gt200 ? 16384 : 8192;
  limits.max_registers_per_block = limits.registers_per_sm;
  limits.max_registers_per_thread = 124;
  limits.register_allocation_unit = gt200 ? 512 : 256;
  limits.register_granularity = RegisterGranularity::per_block;
  limits.warp_allocation_granularity = 2;
  limits.shared_bytes_per_sm = 16 * kib;
  limits.max_shared_bytes_per_block = 16 * kib;
  limits.default_shared_bytes_per_block = 16 * kib;
  limits.shared_allocation_unit = 512;
  limits.shared_carveouts_bytes = kibibytes({16});
  return limits;
}

// Fermi (sm_20, sm_21), from the Occupancy Calculator: registers per warp in units of 64 and two
// warp schedulers (the calculator's "warp allocation granularity 2"); 48 KB of the 64 KB
// L1/shared array as shared memory, 128-byte units.
ArchitectureLimits fermi(int compute_capability) {
  ArchitectureLimits limits;
  limits.compute_capability = compute_capability;
  limits.family = "Fermi";
  limits.max_threads_per_sm = 1536;
  limits.max_warps_per_sm = 48;
  limits.max_blocks_per_sm = 8;
  limits.max_threads_per_block = 1024;
  limits.sub_partitions_per_sm = 2;
  limits.registers_per_sm = 32768;
  limits.max_registers_per_block = 32768;
  limits.max_registers_per_thread = 63;
  limits.register_allocation_unit = 64;
  limits.shared_bytes_per_sm = 48 * kib;
  limits.max_shared_bytes_per_block = 48 * kib;
  limits.default_shared_bytes_per_block = 48 * kib;
  limits.shared_allocation_unit = 128;
  limits.shared_carveouts_bytes = kibibytes({16, 48});
  return limits;
}

// Kepler (sm_30 GK104, sm_32 GK20A, sm_35 GK110, sm_37 GK210), from the Occupancy Calculator
// and cuda_occupancy.h (which still has the compute-3 cases): registers per warp in units of
// 256 over 4 schedulers, 256-byte shared units, L1/shared split 16/32/48 KB of shared memory.
// sm_30 caps a thread at 63 registers, sm_32 and later at 255; sm_32 allows 32 K registers per
// block. GK210 doubles the register file and adds 64 KB to every split (seed 004); a block
// still gets at most 48 KB.
ArchitectureLimits kepler(int compute_capability) {
  const bool gk210 = compute_capability == 37;
  ArchitectureLimits limits;
  limits.compute_capability = compute_capability;
  limits.family = "Kepler";
  limits.max_threads_per_sm = 2048;
  limits.max_warps_per_sm = 64;
  limits.max_blocks_per_sm = 16;
  limits.max_threads_per_block = 1024;
  limits.sub_partitions_per_sm = 4;
  limits.registers_per_sm = gk210 ? 131072 : 65536;
  limits.max_registers_per_block = compute_capability == 32 ? 32768 : 65536;
  limits.max_registers_per_thread = compute_capability == 30 ? 63 : 255;
  limits.register_allocation_unit = 256;
  limits.shared_bytes_per_sm = gk210 ? 112 * kib : 48 * kib;
  limits.max_shared_bytes_per_block = 48 * kib;
  limits.default_shared_bytes_per_block = 48 * kib;
  limits.shared_allocation_unit = 256;
  limits.shared_carveouts_bytes = gk210 ? kibibytes({80, 96, 112}) : kibibytes({16, 32, 48});
  return limits;
}

// Maxwell (sm_50, sm_52, sm_53) and Pascal (sm_60, sm_61, sm_62), from cuda_occupancy.h:
// 32 blocks, register unit 256, 255 registers, 256-byte shared units, dedicated shared memory
// (one size, no carve-out). Sub-partitions are 4, except GP100 (sm_60) with 2. The Tegra parts
// (sm_53, sm_62) allow 32 K registers per block. Shared memory per SM: 64 KB on sm_50, sm_53,
// sm_60, sm_62; 96 KB on sm_52, sm_61.
ArchitectureLimits maxwell_pascal(int compute_capability) {
  const bool tegra = compute_capability == 53 || compute_capability == 62;
  const bool large_shared = compute_capability == 52 || compute_capability == 61;
  ArchitectureLimits limits;
  limits.compute_capability = compute_capability;
  limits.family = compute_capability < 60 ? "Maxwell" : "Pascal";
  limits.max_threads_per_sm = 2048;
  limits.max_warps_per_sm = 64;
  limits.max_blocks_per_sm = 32;
  limits.max_threads_per_block = 1024;
  limits.sub_partitions_per_sm = compute_capability == 60 ? 2 : 4;
  limits.registers_per_sm = 65536;
  limits.max_registers_per_block = tegra ? 32768 : 65536;
  limits.max_registers_per_thread = 255;
  limits.register_allocation_unit = 256;
  limits.shared_bytes_per_sm = large_shared ? 96 * kib : 64 * kib;
  limits.max_shared_bytes_per_block = 48 * kib;
  limits.default_shared_bytes_per_block = 48 * kib;
  limits.shared_allocation_unit = 256;
  limits.shared_carveouts_bytes = {limits.shared_bytes_per_sm};
  return limits;
}

// Volta (sm_70, sm_72), Turing (sm_75), Ampere (sm_80, sm_86, sm_87), Ada (sm_89), Hopper
// (sm_90), from cuda_occupancy.h: register unit 256 over 4 sub-partitions; cudaOccRegAllocation-
// MaxPerThread says 256 registers per thread from compute 7 on (ptxas never uses more than 255,
// the 256th is the zero register, but a launch with 256 is what the header accepts); blocks per
// SM 32, except 16 on Turing and on Ampere other than sm_80, 24 on Ada; shared units 256 bytes
// on compute 7, 128 from compute 8; the carve-out lists of cudaOccAlignUpShmemSizeVoltaPlus; a
// 1 KB driver reserve per block from compute 8 (cudaDeviceProp::reservedSharedMemPerBlock).
// Shared memory per SM and per block with opt-in are the cudaDeviceProp values.
ArchitectureLimits volta_and_newer(int compute_capability) {
  ArchitectureLimits limits;
  limits.compute_capability = compute_capability;
  limits.max_threads_per_block = 1024;
  limits.sub_partitions_per_sm = 4;
  limits.registers_per_sm = 65536;
  limits.max_registers_per_block = 65536;
  limits.max_registers_per_thread = 256;
  limits.register_allocation_unit = 256;
  limits.default_shared_bytes_per_block = 48 * kib;
  limits.shared_allocation_unit = compute_capability < 80 ? 256 : 128;
  limits.reserved_shared_bytes_per_block = compute_capability < 80 ? 0 : kib;
  switch (compute_capability) {
    case 70:
    case 72:
      limits.family = "Volta";
      limits.max_threads_per_sm = 2048;
      limits.max_blocks_per_sm = 32;
      limits.shared_carveouts_bytes = kibibytes({0, 8, 16, 32, 64, 96});
      break;
    case 75:
      limits.family = "Turing";
      limits.max_threads_per_sm = 1024;
      limits.max_blocks_per_sm = 16;
      limits.shared_carveouts_bytes = kibibytes({32, 64});
      break;
    case 80:
    case 87:  // Orin: the A100 carve-outs, the sm_86 thread and block limits
      limits.family = "Ampere";
      limits.max_threads_per_sm = compute_capability == 80 ? 2048 : 1536;
      limits.max_blocks_per_sm = compute_capability == 80 ? 32 : 16;
      limits.shared_carveouts_bytes = kibibytes({0, 8, 16, 32, 64, 100, 132, 164});
      break;
    case 86:
    case 89:
      limits.family = compute_capability == 86 ? "Ampere" : "Ada";
      limits.max_threads_per_sm = 1536;
      limits.max_blocks_per_sm = compute_capability == 86 ? 16 : 24;
      limits.shared_carveouts_bytes = kibibytes({0, 8, 16, 32, 64, 100});
      break;
    case 90:
      limits.family = "Hopper";
      limits.max_threads_per_sm = 2048;
      limits.max_blocks_per_sm = 32;
      limits.shared_carveouts_bytes = kibibytes({0, 8, 16, 32, 64, 100, 132, 164, 196, 228});
      break;
    default:
      break;
  }
  limits.max_warps_per_sm = limits.max_threads_per_sm / 32;
  limits.shared_bytes_per_sm = limits.shared_carveouts_bytes.back();
  // Opt-in gives a block the whole carve-out but the driver reserve (cudaDeviceProp::
  // sharedMemPerBlockOptin: 96 KB on Volta, 64 KB on Turing, 163 KB on sm_80/87, 99 KB on
  // sm_86/89, 227 KB on sm_90).
  limits.max_shared_bytes_per_block = limits.shared_bytes_per_sm - limits.reserved_shared_bytes_per_block;
  return limits;
}

const std::vector<ArchitectureLimits>& architecture_table() {
  static const std::vector<ArchitectureLimits> table = [] {
    std::vector<ArchitectureLimits> all;
    for (int cc : {10, 11, 12, 13}) all.push_back(tesla(cc));
    for (int cc : {20, 21}) all.push_back(fermi(cc));
    for (int cc : {30, 32, 35, 37}) all.push_back(kepler(cc));
    for (int cc : {50, 52, 53, 60, 61, 62}) all.push_back(maxwell_pascal(cc));
    for (int cc : {70, 72, 75, 80, 86, 87, 89, 90}) all.push_back(volta_and_newer(cc));
    for (auto& limits : all) limits.arch = "sm_" + std::to_string(limits.compute_capability);
    return all;
  }();
  return table;
}

bool starts_with_and_strip(std::string& text, std::string_view prefix) {
  if (text.rfind(prefix, 0) != 0) return false;
  text.erase(0, prefix.size());
  return true;
}

// "sm_90", "sm90", "SM_90a", "compute_90", "90", "9.0" -> 90; -1 when it is not a spelling of
// a compute capability at all.
int parse_compute_capability(const std::string& spelling) {
  std::string text;
  for (const char c : spelling) {
    if (!std::isspace(static_cast<unsigned char>(c)))
      text += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (!starts_with_and_strip(text, "sm_") && !starts_with_and_strip(text, "compute_")) {
    if (!starts_with_and_strip(text, "sm")) starts_with_and_strip(text, "compute");
  }
  // sm_90a (architecture-specific) and sm_100f (family) run on the same SM.
  if (!text.empty() && (text.back() == 'a' || text.back() == 'f')) text.pop_back();
  int major = 0;
  int minor = 0;
  const char* const end = text.data() + text.size();
  if (const auto dot = text.find('.'); dot != std::string::npos) {
    const auto [major_end, major_error] = std::from_chars(text.data(), text.data() + dot, major);
    const auto [minor_end, minor_error] = std::from_chars(text.data() + dot + 1, end, minor);
    if (major_error != std::errc() || minor_error != std::errc() || major_end != text.data() + dot ||
        minor_end != end || dot == 0 || text.size() != dot + 2) {
      return -1;
    }
    return major * 10 + minor;
  }
  int compute_capability = 0;
  const auto [number_end, error] = std::from_chars(text.data(), end, compute_capability);
  if (text.empty() || error != std::errc() || number_end != end) return -1;
  return compute_capability;
}

}  // namespace

const ArchitectureLimits& architecture_limits(const std::string& arch) {
  const auto& table = architecture_table();
  // The usual spelling "sm_XY" without building strings: occupancy sweeps call this often.
  const bool plain_sm = arch.size() == 5 && arch.compare(0, 3, "sm_") == 0 &&
                        std::isdigit(static_cast<unsigned char>(arch[3])) &&
                        std::isdigit(static_cast<unsigned char>(arch[4]));
  const int compute_capability = plain_sm ? (arch[3] - '0') * 10 + (arch[4] - '0') : parse_compute_capability(arch);
  const auto found = std::find_if(table.begin(), table.end(), [&](const ArchitectureLimits& limits) {
    return limits.compute_capability == compute_capability;
  });
  if (found != table.end()) return *found;
  std::string known;
  for (const auto& name : known_architectures()) known += (known.empty() ? "" : ", ") + name;
  throw InputError("unknown architecture '" + arch + "': known are " + known +
                   " (also spelled 90, 9.0, compute_90 or sm_90a)");
}

std::vector<std::string> known_architectures() {
  std::vector<std::string> names;
  for (const auto& limits : architecture_table()) names.push_back(limits.arch);
  return names;
}

}  // namespace limiter
