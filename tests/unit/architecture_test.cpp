// The per-architecture limits table: spellings, unknown names, the numbers cuda_occupancy.h
// and the Occupancy Calculator give, and the invariants every row must keep.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "limiter/architecture.hpp"
#include "limiter/error.hpp"

namespace limiter {
namespace {

constexpr std::uint64_t kib = 1024;

TEST(Architecture, KnowsEveryGenerationFromG80ToHopper) {
  const std::vector<std::string> expected = {"sm_10", "sm_11", "sm_12", "sm_13", "sm_20", "sm_21", "sm_30", "sm_32",
                                             "sm_35", "sm_37", "sm_50", "sm_52", "sm_53", "sm_60", "sm_61", "sm_62",
                                             "sm_70", "sm_72", "sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90"};
  EXPECT_EQ(known_architectures(), expected);
  for (const auto& name : expected) EXPECT_EQ(architecture_limits(name).arch, name);
}

TEST(Architecture, AcceptsTheUsualSpellings) {
  for (const char* spelling : {"sm_90", "90", "9.0", "compute_90", "sm_90a", "SM_90", " sm_90 ", "sm90"}) {
    EXPECT_EQ(architecture_limits(spelling).arch, "sm_90") << spelling;
  }
  EXPECT_EQ(architecture_limits("3.5").arch, "sm_35");
  EXPECT_EQ(architecture_limits("compute_86").arch, "sm_86");
  EXPECT_EQ(&architecture_limits("8.0"), &architecture_limits("sm_80"));
}

TEST(Architecture, UnknownNameListsTheKnownOnes) {
  for (const char* spelling : {"sm_99", "", "sm_", "volta", "9.", "9.01", "sm_9x", "-90"}) {
    try {
      architecture_limits(spelling);
      ADD_FAILURE() << "expected InputError for '" << spelling << "'";
    } catch (const InputError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("'" + std::string(spelling) + "'"), std::string::npos) << message;
      EXPECT_NE(message.find("sm_10"), std::string::npos) << message;
      EXPECT_NE(message.find("sm_90"), std::string::npos) << message;
    }
  }
}

TEST(Architecture, FamiliesAreNamed) {
  EXPECT_EQ(architecture_limits("sm_11").family, "Tesla G80");
  EXPECT_EQ(architecture_limits("sm_13").family, "Tesla GT200");
  EXPECT_EQ(architecture_limits("sm_21").family, "Fermi");
  EXPECT_EQ(architecture_limits("sm_37").family, "Kepler");
  EXPECT_EQ(architecture_limits("sm_53").family, "Maxwell");
  EXPECT_EQ(architecture_limits("sm_62").family, "Pascal");
  EXPECT_EQ(architecture_limits("sm_72").family, "Volta");
  EXPECT_EQ(architecture_limits("sm_75").family, "Turing");
  EXPECT_EQ(architecture_limits("sm_87").family, "Ampere");
  EXPECT_EQ(architecture_limits("sm_89").family, "Ada");
  EXPECT_EQ(architecture_limits("sm_90").family, "Hopper");
}

// cudaOccMaxBlocksPerMultiprocessor, and the Occupancy Calculator before Maxwell.
TEST(Architecture, BlocksPerSm) {
  const std::vector<std::pair<const char*, int>> expected = {{"sm_10", 8},  {"sm_13", 8},  {"sm_20", 8},  {"sm_30", 16},
                                                             {"sm_37", 16}, {"sm_50", 32}, {"sm_62", 32}, {"sm_70", 32},
                                                             {"sm_72", 32}, {"sm_75", 16}, {"sm_80", 32}, {"sm_86", 16},
                                                             {"sm_87", 16}, {"sm_89", 24}, {"sm_90", 32}};
  for (const auto& [arch, blocks] : expected) EXPECT_EQ(architecture_limits(arch).max_blocks_per_sm, blocks) << arch;
}

TEST(Architecture, WarpsPerSm) {
  const std::vector<std::pair<const char*, int>> expected = {
      {"sm_11", 24}, {"sm_12", 32}, {"sm_21", 48}, {"sm_35", 64}, {"sm_61", 64}, {"sm_70", 64},
      {"sm_75", 32}, {"sm_80", 64}, {"sm_86", 48}, {"sm_87", 48}, {"sm_89", 48}, {"sm_90", 64}};
  for (const auto& [arch, warps] : expected) EXPECT_EQ(architecture_limits(arch).max_warps_per_sm, warps) << arch;
}

// cudaOccSubPartitionsPerMultiprocessor: 2 on GP100 only; Fermi's two schedulers are the
// Calculator's "warp allocation granularity 2".
TEST(Architecture, SubPartitions) {
  for (const auto& name : known_architectures()) {
    const auto& arch = architecture_limits(name);
    const int expected = arch.compute_capability < 20 ? 1 : (arch.compute_capability < 30 || name == "sm_60") ? 2 : 4;
    EXPECT_EQ(arch.sub_partitions_per_sm, expected) << name;
  }
}

TEST(Architecture, RegisterAllocation) {
  const auto& g80 = architecture_limits("sm_10");
  EXPECT_EQ(g80.register_granularity, RegisterGranularity::per_block);
  EXPECT_EQ(g80.register_allocation_unit, 256);
  EXPECT_EQ(g80.warp_allocation_granularity, 2);
  EXPECT_EQ(g80.registers_per_sm, 8192);
  const auto& gt200 = architecture_limits("sm_13");
  EXPECT_EQ(gt200.register_granularity, RegisterGranularity::per_block);
  EXPECT_EQ(gt200.register_allocation_unit, 512);
  EXPECT_EQ(gt200.registers_per_sm, 16384);
  const auto& fermi = architecture_limits("sm_20");
  EXPECT_EQ(fermi.register_granularity, RegisterGranularity::per_warp);
  EXPECT_EQ(fermi.register_allocation_unit, 64);
  EXPECT_EQ(fermi.registers_per_sm, 32768);
  EXPECT_EQ(fermi.max_registers_per_thread, 63);
  for (const char* name : {"sm_30", "sm_35", "sm_50", "sm_60", "sm_75", "sm_90"}) {
    EXPECT_EQ(architecture_limits(name).register_allocation_unit, 256) << name;
  }
  EXPECT_EQ(architecture_limits("sm_30").max_registers_per_thread, 63);
  EXPECT_EQ(architecture_limits("sm_32").max_registers_per_thread, 255);
  EXPECT_EQ(architecture_limits("sm_62").max_registers_per_thread, 255);
  EXPECT_EQ(architecture_limits("sm_70").max_registers_per_thread, 256);  // cudaOccRegAllocationMaxPerThread
  EXPECT_EQ(architecture_limits("sm_37").registers_per_sm, 131072);
  for (const char* tegra : {"sm_32", "sm_53", "sm_62"}) {
    EXPECT_EQ(architecture_limits(tegra).max_registers_per_block, 32768) << tegra;
  }
}

// cudaOccSMemAllocationGranularity, cudaOccAlignUpShmemSizeVoltaPlus, reservedSharedMemPerBlock.
TEST(Architecture, SharedMemory) {
  EXPECT_EQ(architecture_limits("sm_10").shared_allocation_unit, 512U);
  EXPECT_EQ(architecture_limits("sm_20").shared_allocation_unit, 128U);
  for (const char* name : {"sm_30", "sm_52", "sm_61", "sm_70", "sm_75"}) {
    EXPECT_EQ(architecture_limits(name).shared_allocation_unit, 256U) << name;
  }
  for (const char* name : {"sm_80", "sm_86", "sm_87", "sm_89", "sm_90"}) {
    const auto& arch = architecture_limits(name);
    EXPECT_EQ(arch.shared_allocation_unit, 128U) << name;
    EXPECT_EQ(arch.reserved_shared_bytes_per_block, kib) << name;
  }
  EXPECT_EQ(architecture_limits("sm_75").reserved_shared_bytes_per_block, 0U);
  const auto& hopper = architecture_limits("sm_90");
  EXPECT_EQ(hopper.shared_carveouts_bytes,
            (std::vector<std::uint64_t>{0, 8 * kib, 16 * kib, 32 * kib, 64 * kib, 100 * kib, 132 * kib, 164 * kib,
                                        196 * kib, 228 * kib}));
  EXPECT_EQ(hopper.max_shared_bytes_per_block, 227 * kib);
  EXPECT_EQ(hopper.default_shared_bytes_per_block, 48 * kib);
  EXPECT_EQ(architecture_limits("sm_80").shared_carveouts_bytes.back(), 164 * kib);
  EXPECT_EQ(architecture_limits("sm_87").shared_carveouts_bytes.back(), 164 * kib);
  EXPECT_EQ(architecture_limits("sm_86").shared_carveouts_bytes.back(), 100 * kib);
  EXPECT_EQ(architecture_limits("sm_89").max_shared_bytes_per_block, 99 * kib);
  EXPECT_EQ(architecture_limits("sm_75").shared_carveouts_bytes, (std::vector<std::uint64_t>{32 * kib, 64 * kib}));
  EXPECT_EQ(architecture_limits("sm_70").shared_carveouts_bytes.back(), 96 * kib);
  EXPECT_EQ(architecture_limits("sm_35").shared_carveouts_bytes,
            (std::vector<std::uint64_t>{16 * kib, 32 * kib, 48 * kib}));
  // GK210: 64 KB more shared memory in every split, still 48 KB per block (seed 004).
  EXPECT_EQ(architecture_limits("sm_37").shared_carveouts_bytes,
            (std::vector<std::uint64_t>{80 * kib, 96 * kib, 112 * kib}));
  EXPECT_EQ(architecture_limits("sm_37").max_shared_bytes_per_block, 48 * kib);
  EXPECT_EQ(architecture_limits("sm_52").shared_bytes_per_sm, 96 * kib);
  EXPECT_EQ(architecture_limits("sm_60").shared_bytes_per_sm, 64 * kib);
  EXPECT_EQ(architecture_limits("sm_12").shared_bytes_per_sm, 16 * kib);
}

TEST(Architecture, EveryRowIsConsistent) {
  for (const auto& name : known_architectures()) {
    const auto& arch = architecture_limits(name);
    SCOPED_TRACE(name);
    EXPECT_EQ(arch.arch, "sm_" + std::to_string(arch.compute_capability));
    EXPECT_FALSE(arch.family.empty());
    EXPECT_EQ(arch.max_warps_per_sm * 32, arch.max_threads_per_sm);
    EXPECT_LE(arch.max_threads_per_block, arch.max_threads_per_sm);
    EXPECT_GT(arch.max_blocks_per_sm, 0);
    EXPECT_LE(arch.max_registers_per_block, arch.registers_per_sm);
    EXPECT_GT(arch.register_allocation_unit, 0);
    EXPECT_EQ(arch.registers_per_sm % arch.sub_partitions_per_sm, 0);
    ASSERT_FALSE(arch.shared_carveouts_bytes.empty());
    EXPECT_TRUE(std::is_sorted(arch.shared_carveouts_bytes.begin(), arch.shared_carveouts_bytes.end()));
    EXPECT_EQ(arch.shared_carveouts_bytes.back(), arch.shared_bytes_per_sm);
    EXPECT_LE(arch.default_shared_bytes_per_block, arch.max_shared_bytes_per_block);
    EXPECT_LE(arch.max_shared_bytes_per_block + arch.reserved_shared_bytes_per_block, arch.shared_bytes_per_sm);
    EXPECT_GT(arch.shared_allocation_unit, 0U);
    // The largest block a GPU allows must be a whole number of allocation units, or the
    // rounded-up allocation of the largest block would not fit its own limit.
    EXPECT_EQ((arch.max_shared_bytes_per_block + arch.reserved_shared_bytes_per_block) % arch.shared_allocation_unit,
              0U);
  }
}

}  // namespace
}  // namespace limiter
