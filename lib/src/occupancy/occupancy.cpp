// Theoretical occupancy: the blocks one SM can hold, limited by warp slots, block slots,
// registers and shared memory, computed from the architecture table. For sm_50 and newer the
// rules are those of cudaOccMaxActiveBlocksPerMultiprocessor (cuda_occupancy.h, CUDA 13.0) with
// the header's defaults: no partitioned global caching, one block barrier (which never limits),
// the default carve-out preference and opt-in allowed for shared memory above 48 KB. The
// header itself is not included here: lib/ builds without CUDA. tests/unit/occupancy_test.cpp
// compares the two over every block size and register count.
#include "limiter/occupancy.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "limiter/architecture.hpp"
#include "limiter/error.hpp"

namespace limiter {
namespace {

constexpr int warp_size = 32;

std::int64_t round_up(std::int64_t value, std::int64_t unit) { return (value + unit - 1) / unit * unit; }
std::uint64_t round_up_bytes(std::uint64_t bytes, std::uint64_t unit) { return (bytes + unit - 1) / unit * unit; }

std::string bytes_text(std::uint64_t bytes) {
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes / 1024) + " KB";
  return std::to_string(bytes) + " B";
}

std::string carveouts_text(const ArchitectureLimits& arch) {
  std::string text;
  for (const auto carveout : arch.shared_carveouts_bytes) text += (text.empty() ? "" : ", ") + bytes_text(carveout);
  return text;
}

// The smallest carve-out of at least `bytes`, as cudaOccAlignUpShmemSizeVoltaPlus rounds a
// preference (0 on Turing becomes 32 KB: it has no smaller split).
std::uint64_t carveout_at_least(const ArchitectureLimits& arch, std::uint64_t bytes) {
  for (const auto carveout : arch.shared_carveouts_bytes) {
    if (carveout >= bytes) return carveout;
  }
  throw InputError("shared-memory carve-out of " + std::to_string(bytes) + " bytes is more than " + arch.arch +
                   " has: choose at most " + std::to_string(arch.shared_bytes_per_sm) +
                   " bytes (carve-outs: " + carveouts_text(arch) + ")");
}

// Registers the hardware charges a block for when it checks the block fits the per-block
// limit. Per warp (Fermi and newer): registers per warp rounded up to the allocation unit, times
// the warps rounded up to the sub-partitions (cuda_occupancy.h: "the verification logic assumes
// register allocations are made to all partitions simultaneously"). Per block (G80, GT200): the
// warps rounded up to 2, times 32 threads times the registers, rounded up to the unit.
std::int64_t registers_checked_per_block(const ArchitectureLimits& arch, int warps_per_block, int registers_per_thread,
                                         int sub_partitions) {
  if (arch.register_granularity == RegisterGranularity::per_block) {
    return round_up(round_up(warps_per_block, arch.warp_allocation_granularity) * warp_size * registers_per_thread,
                    arch.register_allocation_unit);
  }
  const std::int64_t registers_per_warp =
      round_up(std::int64_t{registers_per_thread} * warp_size, arch.register_allocation_unit);
  return registers_per_warp * round_up(warps_per_block, sub_partitions);
}

bool block_registers_fit(const ArchitectureLimits& arch, int warps_per_block, int registers_per_thread) {
  if (registers_per_thread > arch.max_registers_per_thread) return false;
  if (registers_checked_per_block(arch, warps_per_block, registers_per_thread, arch.sub_partitions_per_sm) >
      arch.max_registers_per_block) {
    return false;
  }
  // GP100 (sm_60) has 2 sub-partitions, but cuda_occupancy.h refuses a block that would not fit
  // a GP10x SM with 4, "for forward compatibility within Pascal".
  if (arch.compute_capability == 60 &&
      registers_checked_per_block(arch, warps_per_block, registers_per_thread, 4) > arch.max_registers_per_block) {
    return false;
  }
  return true;
}

struct RegisterLimit {
  int blocks = 0;
  int registers_per_block = 0;  // as allocated, for the report
};

RegisterLimit register_limit(const ArchitectureLimits& arch, int warps_per_block, int registers_per_thread) {
  RegisterLimit limit;
  if (arch.register_granularity == RegisterGranularity::per_block) {
    const std::int64_t per_block = registers_checked_per_block(arch, warps_per_block, registers_per_thread, 1);
    limit.registers_per_block = static_cast<int>(std::min<std::int64_t>(per_block, unlimited_blocks));
    if (registers_per_thread == 0) {
      limit.blocks = unlimited_blocks;
    } else if (block_registers_fit(arch, warps_per_block, registers_per_thread)) {
      limit.blocks = static_cast<int>(arch.registers_per_sm / per_block);
    }
    return limit;
  }
  const std::int64_t registers_per_warp =
      round_up(std::int64_t{registers_per_thread} * warp_size, arch.register_allocation_unit);
  limit.registers_per_block =
      static_cast<int>(std::min<std::int64_t>(registers_per_warp * warps_per_block, unlimited_blocks));
  if (!block_registers_fit(arch, warps_per_block, registers_per_thread)) return limit;
  if (registers_per_warp == 0) {
    limit.blocks = unlimited_blocks;
    return limit;
  }
  // Each sub-partition holds whole warps from its share of the register file.
  const std::int64_t warps_per_sub_partition = arch.registers_per_sm / arch.sub_partitions_per_sm / registers_per_warp;
  limit.blocks = static_cast<int>(warps_per_sub_partition * arch.sub_partitions_per_sm / warps_per_block);
  return limit;
}

// The most registers per thread with which a block of this size still fits, 0 if none. Fewer
// registers never fit worse, so a binary search finds the edge.
int most_registers_that_fit(const ArchitectureLimits& arch, int warps_per_block) {
  int fits = 0;
  int does_not_fit = arch.max_registers_per_thread + 1;
  while (does_not_fit - fits > 1) {
    const int middle = fits + (does_not_fit - fits) / 2;
    (block_registers_fit(arch, warps_per_block, middle) ? fits : does_not_fit) = middle;
  }
  return fits;
}

struct SharedLimit {
  int blocks = 0;
  std::uint64_t bytes_per_block = 0;  // rounded up, with the driver reserve
  std::uint64_t bytes_per_sm = 0;     // the carve-out used
  bool fits = true;
};

// cudaOccMaxBlocksPerSMSmemLimit: the preferred carve-out is used as long as one block fits in
// it; otherwise Volta and newer take the smallest carve-out that holds one block, older GPUs
// their largest shared-memory size.
SharedLimit shared_limit(const ArchitectureLimits& arch, std::uint64_t shared_bytes,
                         const std::optional<std::uint64_t>& carveout) {
  SharedLimit limit;
  limit.bytes_per_block =
      round_up_bytes(shared_bytes + arch.reserved_shared_bytes_per_block, arch.shared_allocation_unit);
  const std::uint64_t preference = carveout ? carveout_at_least(arch, *carveout) : arch.shared_bytes_per_sm;
  limit.bytes_per_sm = preference;
  if (limit.bytes_per_block > arch.max_shared_bytes_per_block + arch.reserved_shared_bytes_per_block) {
    limit.fits = false;
    return limit;
  }
  if (preference < limit.bytes_per_block) {
    limit.bytes_per_sm =
        arch.compute_capability >= 70 ? carveout_at_least(arch, limit.bytes_per_block) : arch.shared_bytes_per_sm;
  }
  if (limit.bytes_per_block == 0) {
    limit.blocks = unlimited_blocks;
  } else {
    limit.blocks =
        static_cast<int>(std::min<std::uint64_t>(limit.bytes_per_sm / limit.bytes_per_block, unlimited_blocks));
  }
  return limit;
}

void append_reason(std::string& reasons, const std::string& reason) {
  reasons += (reasons.empty() ? "" : "; ") + reason;
}

std::string cannot_launch_reason(const ArchitectureLimits& arch, const OccupancyInput& input, int warps_per_block,
                                 const RegisterLimit& registers, const SharedLimit& shared) {
  std::string reasons;
  const std::string threads = std::to_string(input.threads_per_block);
  if (input.threads_per_block > arch.max_threads_per_block) {
    append_reason(reasons, threads + " threads per block are more than the " +
                               std::to_string(arch.max_threads_per_block) + " a block may have on " + arch.arch);
  }
  if (input.registers_per_thread > arch.max_registers_per_thread) {
    append_reason(reasons, std::to_string(input.registers_per_thread) + " registers per thread are more than the " +
                               std::to_string(arch.max_registers_per_thread) + " a thread may have on " + arch.arch);
  } else if (registers.blocks == 0) {
    const int most = most_registers_that_fit(arch, warps_per_block);
    append_reason(reasons, threads + " threads x " + std::to_string(input.registers_per_thread) +
                               " registers need more than the " + std::to_string(arch.max_registers_per_block) +
                               " registers a block may have on " + arch.arch + " (allocated per " +
                               (arch.register_granularity == RegisterGranularity::per_block ? "block" : "warp") +
                               " in units of " + std::to_string(arch.register_allocation_unit) + "); at most " +
                               std::to_string(most) + " registers per thread fit: cap them with __launch_bounds__(" +
                               threads + ") or -maxrregcount=" + std::to_string(most));
  }
  if (!shared.fits) {
    std::string reserve;
    if (arch.reserved_shared_bytes_per_block > 0) {
      reserve = " (+" + std::to_string(arch.reserved_shared_bytes_per_block) + " reserved by the driver)";
    }
    append_reason(reasons,
                  std::to_string(input.shared_bytes_per_block) + " bytes of shared memory per block" + reserve +
                      " are more than the " + std::to_string(arch.max_shared_bytes_per_block) + " a block may use on " +
                      arch.arch +
                      (arch.max_shared_bytes_per_block > arch.default_shared_bytes_per_block ? " (with opt-in)" : ""));
  }
  return reasons;
}

}  // namespace

std::string to_string(OccupancyLimiter limiter) {
  switch (limiter) {
    case OccupancyLimiter::warps:
      return "warps";
    case OccupancyLimiter::blocks:
      return "blocks";
    case OccupancyLimiter::registers:
      return "registers";
    case OccupancyLimiter::shared_memory:
      return "shared_memory";
  }
  return "unknown";
}

OccupancyResult compute_occupancy(const OccupancyInput& input) {
  if (input.threads_per_block <= 0) {
    throw InputError("threads per block must be at least 1, got " + std::to_string(input.threads_per_block));
  }
  if (input.registers_per_thread < 0) {
    throw InputError("registers per thread must be 0 (unknown) or more, got " +
                     std::to_string(input.registers_per_thread));
  }
  const ArchitectureLimits& arch = architecture_limits(input.arch);
  const int warps_per_block = (input.threads_per_block - 1) / warp_size + 1;

  OccupancyResult result;
  result.blocks_limit_warps =
      input.threads_per_block > arch.max_threads_per_block ? 0 : arch.max_warps_per_sm / warps_per_block;
  result.blocks_limit_blocks = arch.max_blocks_per_sm;
  const RegisterLimit registers = register_limit(arch, warps_per_block, input.registers_per_thread);
  result.blocks_limit_registers = registers.blocks;
  result.registers_per_block = registers.registers_per_block;
  const SharedLimit shared = shared_limit(arch, input.shared_bytes_per_block, input.shared_carveout_bytes);
  result.blocks_limit_shared = shared.blocks;
  result.shared_bytes_per_block = shared.bytes_per_block;
  result.shared_bytes_per_sm = shared.bytes_per_sm;

  // The first smallest limit in this order names the limiter (see limited_by in occupancy.hpp).
  const std::array<std::pair<OccupancyLimiter, int>, 4> limits = {{
      {OccupancyLimiter::warps, result.blocks_limit_warps},
      {OccupancyLimiter::blocks, result.blocks_limit_blocks},
      {OccupancyLimiter::registers, result.blocks_limit_registers},
      {OccupancyLimiter::shared_memory, result.blocks_limit_shared},
  }};
  const auto smallest =
      std::min_element(limits.begin(), limits.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  result.limited_by = smallest->first;
  result.blocks_per_sm = smallest->second;
  result.active_warps_per_sm = result.blocks_per_sm * warps_per_block;
  result.occupancy = static_cast<double>(result.active_warps_per_sm) / arch.max_warps_per_sm;
  if (result.blocks_per_sm == 0) {
    result.cannot_launch_reason = cannot_launch_reason(arch, input, warps_per_block, registers, shared);
  }
  return result;
}

WaveResult compute_waves(std::uint64_t grid_blocks, int sm_count, int blocks_per_sm) {
  if (sm_count <= 0) {
    throw InputError("the SM count must be at least 1, got " + std::to_string(sm_count) +
                     ": pass the GPU's number of SMs (e.g. 132 for an H100 SXM)");
  }
  if (blocks_per_sm <= 0) {
    throw InputError("blocks per SM must be at least 1 to count waves, got " + std::to_string(blocks_per_sm) +
                     " (a launch that cannot run has no waves)");
  }
  WaveResult result;
  result.blocks_per_wave = static_cast<std::uint64_t>(sm_count) * static_cast<std::uint64_t>(blocks_per_sm);
  result.waves = static_cast<double>(grid_blocks) / static_cast<double>(result.blocks_per_wave);
  result.full_waves = grid_blocks / result.blocks_per_wave;
  result.tail_blocks = grid_blocks % result.blocks_per_wave;
  if (result.tail_blocks > 0) {
    const double started_waves = static_cast<double>(result.full_waves + 1);
    result.tail_idle_fraction = (started_waves - result.waves) / started_waves;
  }
  return result;
}

}  // namespace limiter
