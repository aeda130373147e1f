// Theoretical occupancy and waves: worked examples of the occupancy calculation (lib/src/occupancy/),
// the edges (launches that do not fit, bad input, ties, carve-outs), and — where the toolkit is
// installed — agreement with cuda_occupancy.h over every block size and register count.
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "limiter/architecture.hpp"
#include "limiter/error.hpp"
#include "limiter/occupancy.hpp"

#ifdef LIMITER_HAVE_CUDA_OCCUPANCY_H
#include <cuda_occupancy.h>
#endif

namespace limiter {
namespace {

OccupancyResult occupancy(const std::string& arch, int threads, int registers, std::uint64_t shared = 0,
                          std::optional<std::uint64_t> carveout = std::nullopt) {
  return compute_occupancy({arch, threads, registers, shared, carveout});
}

// --- docs/design.md §7 (Hopper, from cuda_occupancy.h) ------------------------------------------

TEST(Occupancy, Hopper256ThreadsAt64RegistersIsFourBlocks) {
  const auto result = occupancy("sm_90", 256, 64);
  EXPECT_EQ(result.blocks_per_sm, 4);
  EXPECT_EQ(result.active_warps_per_sm, 32);
  EXPECT_DOUBLE_EQ(result.occupancy, 0.5);
  EXPECT_EQ(result.limited_by, OccupancyLimiter::registers);
  EXPECT_EQ(result.registers_per_block, 8 * 2048);  // 2048 registers per warp
  EXPECT_TRUE(result.cannot_launch_reason.empty());
}

TEST(Occupancy, Hopper72RegistersFallsOffTheGranularityCliff) {
  // 72 x 32 = 2304 registers per warp: 7 warps per sub-partition instead of 8.
  const auto result = occupancy("sm_90", 256, 72);
  EXPECT_EQ(result.blocks_per_sm, 3);
  EXPECT_DOUBLE_EQ(result.occupancy, 0.375);
  EXPECT_EQ(result.limited_by, OccupancyLimiter::registers);
}

TEST(Occupancy, Hopper48KBSharedIsFourBlocksWithTheDriverReserve) {
  // (48 KB + 1 KB reserve) rounded to 128 B = 50,176 B; 228 KB / 50,176 B = 4.
  const auto result = occupancy("sm_90", 256, 32, 48 * 1024);
  EXPECT_EQ(result.blocks_per_sm, 4);
  EXPECT_DOUBLE_EQ(result.occupancy, 0.5);
  EXPECT_EQ(result.limited_by, OccupancyLimiter::shared_memory);
  EXPECT_EQ(result.shared_bytes_per_block, 50176U);
  EXPECT_EQ(result.shared_bytes_per_sm, 228U * 1024);
}

TEST(Occupancy, ReportsAllFourLimits) {
  const auto result = occupancy("sm_90", 256, 64);
  EXPECT_EQ(result.blocks_limit_warps, 8);
  EXPECT_EQ(result.blocks_limit_blocks, 32);
  EXPECT_EQ(result.blocks_limit_registers, 4);
  EXPECT_EQ(result.blocks_limit_shared, 228);  // only the 1 KB reserve per block
}

TEST(Occupancy, AcceptsEverySpellingOfTheArchitecture) {
  for (const char* spelling : {"sm_90", "90", "9.0", "compute_90", "sm_90a"}) {
    EXPECT_EQ(occupancy(spelling, 256, 72).blocks_per_sm, 3) << spelling;
  }
}

// --- what does not limit, and ties ---------------------------------------------------------

TEST(Occupancy, ZeroRegistersMeansNoRegisterLimit) {
  const auto result = occupancy("sm_90", 1024, 0);
  EXPECT_EQ(result.blocks_limit_registers, unlimited_blocks);
  EXPECT_EQ(result.blocks_per_sm, 2);
  EXPECT_EQ(result.limited_by, OccupancyLimiter::warps);
}

TEST(Occupancy, NoSharedMemoryNoLimitBeforeAmpereButTheReserveCountsAfter) {
  EXPECT_EQ(occupancy("sm_75", 32, 0).blocks_limit_shared, unlimited_blocks);
  EXPECT_EQ(occupancy("sm_70", 32, 0).blocks_limit_shared, unlimited_blocks);
  EXPECT_EQ(occupancy("sm_80", 32, 0).blocks_limit_shared, 164);
  EXPECT_EQ(occupancy("sm_86", 32, 0).blocks_limit_shared, 100);
}

TEST(Occupancy, TieNamesTheHardwareCapFirst) {
  // 1024 threads x 32 registers: the warp slots and the register file both allow 2 blocks,
  // and 64 warps is full occupancy: fewer registers would not help.
  const auto full = occupancy("sm_90", 1024, 32);
  EXPECT_EQ(full.blocks_limit_warps, 2);
  EXPECT_EQ(full.blocks_limit_registers, 2);
  EXPECT_EQ(full.limited_by, OccupancyLimiter::warps);
  // One-warp blocks at 64 registers: 32 block slots and the register file both allow 32.
  const auto small = occupancy("sm_90", 32, 64);
  EXPECT_EQ(small.blocks_limit_blocks, 32);
  EXPECT_EQ(small.blocks_limit_registers, 32);
  EXPECT_EQ(small.limited_by, OccupancyLimiter::blocks);
  // Registers before shared memory: 256 x 128 registers = 2 blocks; 2 x 100 KB of shared memory.
  const auto resources = occupancy("sm_90", 256, 128, 100 * 1024);
  EXPECT_EQ(resources.blocks_limit_registers, 2);
  EXPECT_EQ(resources.blocks_limit_shared, 2);
  EXPECT_EQ(resources.limited_by, OccupancyLimiter::registers);
}

TEST(Occupancy, ToStringNamesEveryLimiter) {
  EXPECT_EQ(to_string(OccupancyLimiter::warps), "warps");
  EXPECT_EQ(to_string(OccupancyLimiter::blocks), "blocks");
  EXPECT_EQ(to_string(OccupancyLimiter::registers), "registers");
  EXPECT_EQ(to_string(OccupancyLimiter::shared_memory), "shared_memory");
}

// --- launches that do not fit: an answer (0 blocks and why), not an error ------------------

TEST(Occupancy, TooManyThreadsCannotLaunch) {
  const auto result = occupancy("sm_90", 1025, 32);
  EXPECT_EQ(result.blocks_per_sm, 0);
  EXPECT_EQ(result.occupancy, 0.0);
  EXPECT_EQ(result.limited_by, OccupancyLimiter::warps);
  EXPECT_NE(result.cannot_launch_reason.find("1025 threads"), std::string::npos) << result.cannot_launch_reason;
  EXPECT_NE(result.cannot_launch_reason.find("1024"), std::string::npos);
  EXPECT_EQ(occupancy("sm_13", 513, 0).blocks_per_sm, 0);  // 512 threads per block before Fermi
}

TEST(Occupancy, TooManyRegistersPerThreadCannotLaunch) {
  const auto result = occupancy("sm_30", 64, 64);  // GK104 stops at 63
  EXPECT_EQ(result.blocks_per_sm, 0);
  EXPECT_EQ(result.limited_by, OccupancyLimiter::registers);
  EXPECT_NE(result.cannot_launch_reason.find("63"), std::string::npos) << result.cannot_launch_reason;
  EXPECT_EQ(occupancy("sm_35", 64, 255).blocks_per_sm, 4);
  EXPECT_EQ(occupancy("sm_35", 64, 256).blocks_per_sm, 0);
  // cuda_occupancy.h allows 256 from compute 7 on (cudaOccRegAllocationMaxPerThread).
  EXPECT_EQ(occupancy("sm_90", 64, 256).blocks_per_sm, 4);  // 8192 registers per warp
  EXPECT_EQ(occupancy("sm_90", 64, 257).blocks_per_sm, 0);
}

TEST(Occupancy, TooManyRegistersPerBlockCannotLaunchAndSaysWhatFits) {
  EXPECT_EQ(occupancy("sm_90", 1024, 64).blocks_per_sm, 1);  // exactly the 64 K of a block
  const auto result = occupancy("sm_90", 1024, 65);
  EXPECT_EQ(result.blocks_per_sm, 0);
  EXPECT_EQ(result.limited_by, OccupancyLimiter::registers);
  EXPECT_NE(result.cannot_launch_reason.find("at most 64 registers"), std::string::npos) << result.cannot_launch_reason;
  // The check rounds warps up to the 4 sub-partitions: 993 threads = 32 warps like 1024.
  EXPECT_EQ(occupancy("sm_90", 993, 65).blocks_per_sm, 0);
  // 32 K registers per block on the Tegra parts.
  EXPECT_EQ(occupancy("sm_53", 1024, 32).blocks_per_sm, 2);
  EXPECT_EQ(occupancy("sm_53", 1024, 33).blocks_per_sm, 0);
}

TEST(Occupancy, TooMuchSharedMemoryCannotLaunch) {
  const auto largest = occupancy("sm_90", 128, 32, 227 * 1024);  // 232,448 B with opt-in
  EXPECT_EQ(largest.blocks_per_sm, 1);
  EXPECT_EQ(largest.limited_by, OccupancyLimiter::shared_memory);
  const auto result = occupancy("sm_90", 128, 32, 227 * 1024 + 1);
  EXPECT_EQ(result.blocks_per_sm, 0);
  EXPECT_EQ(result.limited_by, OccupancyLimiter::shared_memory);
  EXPECT_NE(result.cannot_launch_reason.find("232448"), std::string::npos) << result.cannot_launch_reason;
  EXPECT_EQ(occupancy("sm_35", 128, 32, 48 * 1024).blocks_per_sm, 1);  // no opt-in before Volta
  EXPECT_EQ(occupancy("sm_37", 128, 32, 48 * 1024 + 1).blocks_per_sm, 0);
}

TEST(Occupancy, EveryReasonIsListed) {
  const auto result = occupancy("sm_80", 2048, 300, 1 << 20);
  EXPECT_EQ(result.blocks_per_sm, 0);
  EXPECT_NE(result.cannot_launch_reason.find("threads"), std::string::npos);
  EXPECT_NE(result.cannot_launch_reason.find("registers per thread"), std::string::npos);
  EXPECT_NE(result.cannot_launch_reason.find("shared memory"), std::string::npos);
}

// --- carve-outs ----------------------------------------------------------------------------

TEST(Occupancy, CarveoutIsRoundedUpToOneTheGpuHas) {
  // 40 KB rounds up to 64 KB: 64 KB / (8 KB + 1 KB) = 7 blocks.
  const auto result = occupancy("sm_90", 64, 16, 8 * 1024, 40 * 1024);
  EXPECT_EQ(result.shared_bytes_per_sm, 64U * 1024);
  EXPECT_EQ(result.blocks_per_sm, 7);
  EXPECT_EQ(result.limited_by, OccupancyLimiter::shared_memory);
  // A carve-out of 0 still holds the 1 KB reserves: the driver picks 8 KB, 8 blocks.
  EXPECT_EQ(occupancy("sm_90", 64, 16, 0, 0).blocks_per_sm, 8);
  // Turing has no split below 32 KB.
  EXPECT_EQ(occupancy("sm_75", 32, 16, 4096, 0).shared_bytes_per_sm, 32U * 1024);
}

TEST(Occupancy, CarveoutTooSmallForOneBlockGrowsToTheSmallestThatHoldsOne) {
  const auto result = occupancy("sm_90", 64, 16, 10 * 1024, 8 * 1024);
  EXPECT_EQ(result.shared_bytes_per_sm, 16U * 1024);  // (10 + 1) KB needs the 16 KB split
  EXPECT_EQ(result.blocks_per_sm, 1);
  // Before Volta the GPU falls back to its largest shared-memory size.
  EXPECT_EQ(occupancy("sm_35", 64, 16, 20 * 1024, 16 * 1024).shared_bytes_per_sm, 48U * 1024);
}

TEST(Occupancy, CarveoutLargerThanTheSmIsAnInputError) {
  try {
    occupancy("sm_86", 64, 16, 0, 101 * 1024);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("103424"), std::string::npos) << message;
    EXPECT_NE(message.find("100 KB"), std::string::npos) << message;
  }
}

// --- inputs that are not a launch ----------------------------------------------------------

TEST(Occupancy, ZeroOrNegativeThreadsIsAnInputError) {
  EXPECT_THROW(occupancy("sm_90", 0, 32), InputError);
  EXPECT_THROW(occupancy("sm_90", -32, 32), InputError);
}

TEST(Occupancy, NegativeRegistersIsAnInputError) { EXPECT_THROW(occupancy("sm_90", 32, -1), InputError); }

TEST(Occupancy, UnknownArchitectureIsAnInputError) {
  EXPECT_THROW(occupancy("sm_91", 32, 32), InputError);
  EXPECT_THROW(occupancy("", 32, 32), InputError);
}

// --- waves and the tail --------------------------------------------------------------------

TEST(Waves, MethodExample1000BlocksOnAnH100) {
  const auto waves = compute_waves(1000, 132, 4);
  EXPECT_EQ(waves.blocks_per_wave, 528U);
  EXPECT_NEAR(waves.waves, 1.894, 5e-4);
  EXPECT_EQ(waves.full_waves, 1U);
  EXPECT_EQ(waves.tail_blocks, 472U);
  EXPECT_NEAR(waves.tail_idle_fraction, 0.053, 5e-4);  // (2 - 1.894) / 2
}

TEST(Waves, Seed003K20FourBlocksPerSmLeavesATailOf24) {
  const auto waves = compute_waves(128, 13, 4);
  EXPECT_EQ(waves.blocks_per_wave, 52U);
  EXPECT_EQ(waves.full_waves, 2U);
  EXPECT_EQ(waves.tail_blocks, 24U);
}

TEST(Waves, Seed003K20FiveBlocksPerSmLeavesAnAlmostFullWave) {
  const auto waves = compute_waves(128, 13, 5);
  EXPECT_EQ(waves.blocks_per_wave, 65U);
  EXPECT_EQ(waves.full_waves, 1U);
  EXPECT_EQ(waves.tail_blocks, 63U);
  EXPECT_LT(waves.tail_idle_fraction, compute_waves(128, 13, 4).tail_idle_fraction);
}

TEST(Waves, WholeWavesHaveNoTail) {
  const auto waves = compute_waves(1056, 132, 8);
  EXPECT_DOUBLE_EQ(waves.waves, 1.0);
  EXPECT_EQ(waves.full_waves, 1U);
  EXPECT_EQ(waves.tail_blocks, 0U);
  EXPECT_EQ(waves.tail_idle_fraction, 0.0);
}

TEST(Waves, NonPositiveSmsOrBlocksIsAnInputError) {
  EXPECT_THROW(compute_waves(100, 0, 4), InputError);
  EXPECT_THROW(compute_waves(100, 132, 0), InputError);
}

#ifdef LIMITER_HAVE_CUDA_OCCUPANCY_H
// --- agreement with cuda_occupancy.h -------------------------------------------------------
//
// The header takes the device properties as input. They are written here from the CUDA C++
// Programming Guide and cudaGetDeviceProperties of real GPUs, not from our table, so the table
// is checked too.
struct Device {
  const char* arch;
  const char* example;
  int max_threads_per_sm;
  int registers_per_block;
  int registers_per_sm;
  std::size_t shared_per_sm;
  std::size_t shared_per_block_opt_in;
  std::size_t reserved_shared_per_block;
  int last_registers;  // registers to sweep: 0..last_registers
};

const std::vector<Device>& devices_since_turing() {
  static const std::vector<Device> devices = {
      {"sm_75", "Tesla T4", 1024, 65536, 65536, 65536, 65536, 0, 257},
      {"sm_80", "A100", 2048, 65536, 65536, 167936, 166912, 1024, 257},
      {"sm_86", "A10, RTX 3090", 1536, 65536, 65536, 102400, 101376, 1024, 257},
      {"sm_89", "L4, RTX 4090", 1536, 65536, 65536, 102400, 101376, 1024, 257},
      {"sm_90", "H100, H200", 2048, 65536, 65536, 233472, 232448, 1024, 257},
  };
  return devices;
}

// Older GPUs the header still describes: our Kepler-to-Volta rules must match it as well.
const std::vector<Device>& devices_before_turing() {
  static const std::vector<Device> devices = {
      // The header allows 255 registers on any compute 3.x; GK104 stops at 63.
      {"sm_30", "GTX 680", 2048, 65536, 65536, 49152, 49152, 0, 63},
      {"sm_32", "Jetson TK1", 2048, 32768, 65536, 49152, 49152, 0, 256},
      {"sm_35", "K40", 2048, 65536, 65536, 49152, 49152, 0, 256},
      {"sm_37", "K80", 2048, 65536, 131072, 114688, 49152, 0, 256},
      {"sm_50", "GTX 750", 2048, 65536, 65536, 65536, 49152, 0, 256},
      {"sm_52", "GTX 980", 2048, 65536, 65536, 98304, 49152, 0, 256},
      {"sm_53", "Jetson TX1", 2048, 32768, 65536, 65536, 49152, 0, 256},
      {"sm_60", "P100", 2048, 65536, 65536, 65536, 49152, 0, 256},
      {"sm_61", "GTX 1080", 2048, 65536, 65536, 98304, 49152, 0, 256},
      {"sm_62", "Jetson TX2", 2048, 32768, 65536, 65536, 49152, 0, 256},
      {"sm_70", "V100", 2048, 65536, 65536, 98304, 98304, 0, 257},
      {"sm_72", "Jetson Xavier", 2048, 65536, 65536, 98304, 98304, 0, 257},
      {"sm_87", "Jetson Orin", 1536, 65536, 65536, 167936, 166912, 1024, 257},
  };
  return devices;
}

cudaOccDeviceProp header_properties(const Device& device) {
  const ArchitectureLimits& arch = architecture_limits(device.arch);
  cudaOccDeviceProp properties;
  properties.computeMajor = arch.compute_capability / 10;
  properties.computeMinor = arch.compute_capability % 10;
  properties.maxThreadsPerBlock = 1024;
  properties.maxThreadsPerMultiprocessor = device.max_threads_per_sm;
  properties.regsPerBlock = device.registers_per_block;
  properties.regsPerMultiprocessor = device.registers_per_sm;
  properties.warpSize = 32;
  properties.sharedMemPerBlock = 48 * 1024;
  properties.sharedMemPerMultiprocessor = device.shared_per_sm;
  properties.numSms = 1;
  properties.sharedMemPerBlockOptin = device.shared_per_block_opt_in;
  properties.reservedSharedMemPerBlock = device.reserved_shared_per_block;
  return properties;
}

// The shared-memory sizes to sweep: the brief's list, 48 KB + 1 and the largest with opt-in
// and one byte more.
std::vector<std::size_t> shared_sizes(const Device& device) {
  std::vector<std::size_t> sizes = {0,          1,          1023,      1024,          1025,
                                    4 * 1024,   16 * 1024,  48 * 1024, 48 * 1024 + 1, 64 * 1024,
                                    100 * 1024, 164 * 1024, 227 * 1024};
  const std::size_t largest = device.shared_per_block_opt_in;
  sizes.push_back(largest);
  sizes.push_back(largest + 1);
  return sizes;
}

unsigned header_bit(OccupancyLimiter limiter) {
  switch (limiter) {
    case OccupancyLimiter::warps:
      return OCC_LIMIT_WARPS;
    case OccupancyLimiter::blocks:
      return OCC_LIMIT_BLOCKS;
    case OccupancyLimiter::registers:
      return OCC_LIMIT_REGISTERS;
    case OccupancyLimiter::shared_memory:
      return OCC_LIMIT_SHARED_MEMORY;
  }
  return 0;
}

class HeaderComparison {
 public:
  explicit HeaderComparison(const Device& device) : device_(device), properties_(header_properties(device)) {}

  // Compares one launch; returns false after reporting a difference.
  bool agrees(int threads, int registers, std::size_t shared, int carveout_percent) {
    cudaOccFuncAttributes attributes;
    attributes.maxThreadsPerBlock = 1024;
    attributes.numRegs = registers;
    attributes.sharedSizeBytes = 0;
    attributes.partitionedGCConfig = PARTITIONED_GC_OFF;
    attributes.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;  // as cudaFuncSetAttribute(MaxDynamic...) would
    attributes.maxDynamicSharedSizeBytes = shared;
    attributes.numBlockBarriers = 1;
    cudaOccDeviceState state;
    state.carveoutConfig = carveout_percent;
    cudaOccResult expected{};
    const cudaOccError status =
        cudaOccMaxActiveBlocksPerMultiprocessor(&expected, &properties_, &attributes, &state, threads, shared);

    OccupancyInput input{device_.arch, threads, registers, shared, std::nullopt};
    if (carveout_percent != SHAREDMEM_CARVEOUT_DEFAULT) {
      // The header turns a percentage into bytes of sharedMemPerMultiprocessor, then rounds up.
      input.shared_carveout_bytes = static_cast<std::uint64_t>(carveout_percent) * device_.shared_per_sm / 100;
    }
    const OccupancyResult actual = compute_occupancy(input);

    const bool same = status == CUDA_OCC_SUCCESS && actual.blocks_per_sm == expected.activeBlocksPerMultiprocessor &&
                      actual.blocks_limit_warps == expected.blockLimitWarps &&
                      actual.blocks_limit_blocks == expected.blockLimitBlocks &&
                      actual.blocks_limit_registers == expected.blockLimitRegs &&
                      actual.blocks_limit_shared == expected.blockLimitSharedMem &&
                      actual.registers_per_block == expected.allocatedRegistersPerBlock &&
                      actual.shared_bytes_per_block == expected.allocatedSharedMemPerBlock &&
                      (expected.limitingFactors & header_bit(actual.limited_by)) != 0;
    if (!same) {
      ADD_FAILURE() << device_.arch << " (" << device_.example << ") threads " << threads << ", registers " << registers
                    << ", shared " << shared << ", carve-out " << carveout_percent << "%: header status " << status
                    << " blocks " << expected.activeBlocksPerMultiprocessor << " (warps " << expected.blockLimitWarps
                    << ", blocks " << expected.blockLimitBlocks << ", registers " << expected.blockLimitRegs
                    << ", shared " << expected.blockLimitSharedMem << ", factors 0x" << std::hex
                    << expected.limitingFactors << std::dec << ", allocated " << expected.allocatedRegistersPerBlock
                    << " registers, " << expected.allocatedSharedMemPerBlock << " B); limiter " << actual.blocks_per_sm
                    << " (warps " << actual.blocks_limit_warps << ", blocks " << actual.blocks_limit_blocks
                    << ", registers " << actual.blocks_limit_registers << ", shared " << actual.blocks_limit_shared
                    << ", limited by " << to_string(actual.limited_by) << ", allocated " << actual.registers_per_block
                    << " registers, " << actual.shared_bytes_per_block << " B)";
    }
    return same;
  }

 private:
  Device device_;
  cudaOccDeviceProp properties_;
};

// The register counts on both sides of every allocation cliff: with 256-register units per warp
// the allocation changes after every multiple of 8 registers, so 8k and 8k + 1 for every k,
// and the last counts of the sweep (the largest a thread may have and one more).
std::vector<int> registers_at_every_cliff(int last) {
  std::vector<int> counts;
  for (int registers = 0; registers <= last; ++registers) {
    if (registers % 8 <= 1 || registers >= last - 1) counts.push_back(registers);
  }
  return counts;
}

// Every block size 1..1025 (1025 cannot launch) and every register count, with and without
// shared memory, and the default carve-out.
TEST(OccupancyMatchesCudaOccupancyHeader, EveryBlockSizeAndRegisterCount) {
  for (const Device& device : devices_since_turing()) {
    HeaderComparison compare(device);
    for (const std::size_t shared : {std::size_t{0}, std::size_t{48 * 1024}}) {
      for (int registers = 0; registers <= device.last_registers; ++registers) {
        for (int threads = 1; threads <= 1025; ++threads) {
          if (!compare.agrees(threads, registers, shared, SHAREDMEM_CARVEOUT_DEFAULT)) return;
        }
      }
    }
  }
}

// Every shared size of the list, every block size, the register counts on both sides of every
// cliff (the test above has every register count).
TEST(OccupancyMatchesCudaOccupancyHeader, EverySharedSize) {
  for (const Device& device : devices_since_turing()) {
    HeaderComparison compare(device);
    for (const std::size_t shared : shared_sizes(device)) {
      for (const int registers : registers_at_every_cliff(device.last_registers)) {
        for (int threads = 1; threads <= 1025; ++threads) {
          if (!compare.agrees(threads, registers, shared, SHAREDMEM_CARVEOUT_DEFAULT)) return;
        }
      }
    }
  }
}

// Carve-out preferences (as the header takes them: percent of the SM's shared memory, rounded
// up to a carve-out) over every block size and shared size.
TEST(OccupancyMatchesCudaOccupancyHeader, CarveoutPreferences) {
  for (const Device& device : devices_since_turing()) {
    HeaderComparison compare(device);
    for (const int percent :
         {int{SHAREDMEM_CARVEOUT_MAX_L1}, 10, int{SHAREDMEM_CARVEOUT_HALF}, 70, int{SHAREDMEM_CARVEOUT_MAX_SHARED}}) {
      for (const std::size_t shared : shared_sizes(device)) {
        for (const int registers : {0, 32, 64, 255}) {
          for (int threads = 1; threads <= 1024; ++threads) {
            if (!compare.agrees(threads, registers, shared, percent)) return;
          }
        }
      }
    }
  }
}

// Kepler to Volta and Orin: every block size, the register counts at every cliff, a few shared
// sizes.
TEST(OccupancyMatchesCudaOccupancyHeader, OlderArchitectures) {
  for (const Device& device : devices_before_turing()) {
    HeaderComparison compare(device);
    for (const std::size_t shared : {std::size_t{0}, std::size_t{20000}, std::size_t{48 * 1024 + 1}}) {
      for (const int registers : registers_at_every_cliff(device.last_registers)) {
        for (int threads = 1; threads <= 1025; ++threads) {
          if (!compare.agrees(threads, registers, shared, SHAREDMEM_CARVEOUT_DEFAULT)) return;
        }
      }
    }
  }
}

// The device properties written above are the ones our table holds.
TEST(OccupancyMatchesCudaOccupancyHeader, DevicePropertiesMatchTheTable) {
  for (const auto* devices : {&devices_since_turing(), &devices_before_turing()}) {
    for (const Device& device : *devices) {
      const ArchitectureLimits& arch = architecture_limits(device.arch);
      EXPECT_EQ(arch.max_threads_per_sm, device.max_threads_per_sm) << device.arch;
      EXPECT_EQ(arch.max_registers_per_block, device.registers_per_block) << device.arch;
      EXPECT_EQ(arch.registers_per_sm, device.registers_per_sm) << device.arch;
      EXPECT_EQ(arch.shared_bytes_per_sm, device.shared_per_sm) << device.arch;
      EXPECT_EQ(arch.max_shared_bytes_per_block, device.shared_per_block_opt_in) << device.arch;
      EXPECT_EQ(arch.reserved_shared_bytes_per_block, device.reserved_shared_per_block) << device.arch;
    }
  }
}
#endif  // LIMITER_HAVE_CUDA_OCCUPANCY_H

}  // namespace
}  // namespace limiter
