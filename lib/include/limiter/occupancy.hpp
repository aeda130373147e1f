#pragma once
// Theoretical occupancy and waves, for every architecture in architecture.hpp. For sm_50 and
// newer this agrees exactly with cuda_occupancy.h (cudaOccMaxActiveBlocksPerMultiprocessor);
// the unit tests compare the two from sm_30 to sm_90 (on sm_30 only up to GK104's 63 registers,
// where the header allows 255).
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace limiter {

enum class OccupancyLimiter { warps, blocks, registers, shared_memory };
std::string to_string(OccupancyLimiter limiter);

struct OccupancyInput {
  std::string arch;  // "sm_90"
  int threads_per_block = 0;
  int registers_per_thread = 0;
  std::uint64_t shared_bytes_per_block = 0;  // static + dynamic
  // Preferred shared-memory carve-out per SM in bytes; empty = the largest (the default).
  std::optional<std::uint64_t> shared_carveout_bytes;
};

// A per-resource block limit for a resource the launch does not use (0 registers, 0 bytes of
// shared memory before Ampere's per-block reserve): it never limits. cuda_occupancy.h says INT_MAX.
inline constexpr int unlimited_blocks = std::numeric_limits<int>::max();

struct OccupancyResult {
  int blocks_per_sm = 0;  // 0 when the launch cannot run; see cannot_launch_reason
  int active_warps_per_sm = 0;
  double occupancy = 0.0;  // active warps / max warps, 0..1
  // The resource with the smallest limit. On a tie the first of warps, blocks, registers,
  // shared_memory: while a hardware cap (warps, blocks) ties, cutting registers or shared
  // memory alone cannot raise occupancy (seed 002 names the thread limit on such a tie).
  OccupancyLimiter limited_by = OccupancyLimiter::warps;
  int blocks_limit_warps = 0;  // the four limits, before taking their minimum
  int blocks_limit_blocks = 0;
  int blocks_limit_registers = 0;
  int blocks_limit_shared = 0;               // each of the four may be unlimited_blocks
  int registers_per_block = 0;               // as allocated (per-warp or per-block granularity)
  std::uint64_t shared_bytes_per_block = 0;  // as allocated: rounded up, with the driver reserve
  std::uint64_t shared_bytes_per_sm = 0;     // the carve-out the limit was computed for
  std::string cannot_launch_reason;          // empty when the launch fits
};

// Throws InputError for inputs that are not a launch at all (zero or negative threads,
// unknown architecture); returns blocks_per_sm == 0 with a reason for launches that are
// well-formed but do not fit (too many threads, registers or shared memory).
OccupancyResult compute_occupancy(const OccupancyInput& input);

struct WaveResult {
  std::uint64_t blocks_per_wave = 0;  // sm_count * blocks_per_sm
  double waves = 0.0;                 // grid / blocks_per_wave (ncu launch__waves_per_multiprocessor)
  std::uint64_t full_waves = 0;
  std::uint64_t tail_blocks = 0;  // blocks in the last, partial wave (0 if none)
  // Share of the SMs' time left idle by the partial last wave, if all blocks take equally
  // long: (ceil(waves) - waves) / ceil(waves). 0 without a tail.
  double tail_idle_fraction = 0.0;
};

// Throws InputError when sm_count or blocks_per_sm is not positive.
WaveResult compute_waves(std::uint64_t grid_blocks, int sm_count, int blocks_per_sm);

}  // namespace limiter
