#pragma once
// Per-architecture SM limits that decide occupancy: threads, blocks, warps, registers and
// their allocation granularity, shared memory with its granularity and per-block reserve.
// Sources: cuda_occupancy.h (CUDA 13.0) for sm_50 and newer; the CUDA Occupancy Calculator
// and the seeds (000, 002, 004) for G80, GT200, Fermi and Kepler.
#include <cstdint>
#include <string>
#include <vector>

namespace limiter {

enum class RegisterGranularity {
  per_warp,   // Fermi and newer: registers allocated per warp in units of allocation_unit
  per_block,  // G80/GT200: registers allocated per block, warps rounded up to warp_granularity
};

struct ArchitectureLimits {
  std::string arch;            // "sm_90"
  int compute_capability = 0;  // 90
  std::string family;          // "Hopper"
  int max_threads_per_sm = 0;
  int max_warps_per_sm = 0;
  int max_blocks_per_sm = 0;
  int max_threads_per_block = 0;
  int sub_partitions_per_sm = 1;    // warp schedulers; registers are split between them
  int registers_per_sm = 0;         // 32-bit registers
  int max_registers_per_block = 0;  // cudaDeviceProp::regsPerBlock (32 K on sm_32, sm_53, sm_62)
  int max_registers_per_thread = 0;
  int register_allocation_unit = 0;  // registers (per warp or per block, see granularity)
  RegisterGranularity register_granularity = RegisterGranularity::per_warp;
  int warp_allocation_granularity = 1;               // per_block only: warps per block rounded up to this
  std::uint64_t shared_bytes_per_sm = 0;             // largest carve-out
  std::uint64_t max_shared_bytes_per_block = 0;      // with opt-in where the arch has it
  std::uint64_t default_shared_bytes_per_block = 0;  // without opt-in (48 KB from Volta on)
  std::uint64_t shared_allocation_unit = 0;
  std::uint64_t reserved_shared_bytes_per_block = 0;  // driver reserve (1 KB from sm_80 on)
  std::vector<std::uint64_t> shared_carveouts_bytes;  // selectable shared-memory sizes per SM
};

// Limits of one architecture, e.g. "sm_90", "sm_35", "sm_20" (also accepts "90", "9.0",
// "compute_90"). Throws InputError listing the known architectures.
const ArchitectureLimits& architecture_limits(const std::string& arch);
std::vector<std::string> known_architectures();

}  // namespace limiter
