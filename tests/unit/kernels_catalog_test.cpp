// The kernel suite's catalog and `--list`: every experiment has a family, an intended verdict,
// a seed and a claim; `--only` selects by name or family and rejects unknown words.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "limiter/error.hpp"
#include "limiter/kernels/catalog.hpp"

namespace limiter::kernels {
namespace {

TEST(KernelCatalog, NamesAreUniqueAndEveryEntryIsDescribed) {
  std::set<std::string> names;
  for (const auto& entry : catalog()) {
    EXPECT_TRUE(names.insert(entry.name).second) << "duplicate " << entry.name;
    EXPECT_FALSE(entry.seed.empty()) << entry.name;
    EXPECT_FALSE(entry.problem.empty()) << entry.name;
    EXPECT_GT(entry.claim.size(), 30u) << entry.name;
    // Only the copy-engine transfer is not a kernel the analysis judges.
    EXPECT_EQ(entry.intended.has_value(), entry.name != "halo_exchange_peer_copy") << entry.name;
  }
}

TEST(KernelCatalog, EveryFamilyHasExperimentsAndTheIssueCountsHold) {
  auto count = [](Family family) {
    return std::count_if(catalog().begin(), catalog().end(), [&](const CatalogEntry& e) { return e.family == family; });
  };
  EXPECT_EQ(count(Family::reduction), 16);  // kernels 1-7 and the shuffle version, on 2^22 and 2^25 ints
  EXPECT_EQ(count(Family::lmem_stencil), 4);
  EXPECT_EQ(count(Family::calibration), 4);
  EXPECT_EQ(count(Family::tail_effect), 2);
  EXPECT_EQ(count(Family::matmul), 4);
  EXPECT_EQ(count(Family::warp_stalls), 2);  // barrier_heavy, fma_dependent_chain
  for (Family family : all_families()) EXPECT_GT(count(family), 0) << to_string(family);
}

TEST(KernelCatalog, IntendedVerdictsFollowTheSeeds) {
  EXPECT_EQ(find_entry("calib_hbm_stream_read")->intended, Verdict::bandwidth);
  EXPECT_EQ(find_entry("calib_fma_ilp")->intended, Verdict::instruction);
  EXPECT_EQ(find_entry("calib_pointer_chase")->intended, Verdict::latency);
  // On an H200 the spilling stencil waits on L2 (latency); more L1 makes its L1 pipe the limit.
  EXPECT_EQ(find_entry("stencil8_spilling")->intended, Verdict::latency);
  EXPECT_EQ(find_entry("stencil8_spilling_l1_carveout")->intended, Verdict::bandwidth);
  EXPECT_EQ(find_entry("matmul_register_blocked_8x8")->intended, Verdict::instruction);
  EXPECT_EQ(find_entry("reduce7_multiple_elements_32M")->intended, Verdict::bandwidth);
  EXPECT_EQ(find_entry("tail_2_5_waves")->intended, Verdict::latency);
  EXPECT_EQ(find_entry("no_such_kernel"), nullptr);
}

TEST(KernelCatalog, FamilyNamesRoundTrip) {
  for (Family family : all_families()) EXPECT_EQ(family_from_string(to_string(family)), family);
  EXPECT_FALSE(family_from_string("reductions").has_value());
  EXPECT_EQ(problem_size_from_string("small"), ProblemSize::small);
  EXPECT_EQ(to_string(problem_size_from_string("full")), "full");
  EXPECT_THROW(problem_size_from_string("huge"), InputError);
}

TEST(KernelCatalog, OnlySelectsByNameOrFamilyInCatalogOrder) {
  EXPECT_EQ(select_entries({}).size(), catalog().size());
  const auto tail = select_entries({"tail_effect"});
  ASSERT_EQ(tail.size(), 2u);
  EXPECT_EQ(tail[0]->name, "tail_2_5_waves");
  const auto mixed = select_entries({"calib_fma_ilp", "reduce1_interleaved_divergent_4M"});
  ASSERT_EQ(mixed.size(), 2u);
  EXPECT_EQ(mixed[0]->name, "reduce1_interleaved_divergent_4M");  // catalog order, not argument order
  EXPECT_EQ(mixed[1]->name, "calib_fma_ilp");
  EXPECT_EQ(select_entries({"matmul", "matmul_naive"}).size(), 4u);  // no duplicates
}

TEST(KernelCatalog, OnlyRejectsAnUnknownWordAndSaysWhereTheNamesAre) {
  try {
    select_entries({"reduction", "reduce9"});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'reduce9'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--list"), std::string::npos) << e.what();
  }
}

TEST(KernelCatalog, ListShowsEveryColumnAndTheClaim) {
  std::ostringstream out;
  write_catalog(select_entries({"lmem_stencil"}), out);
  const std::string text = out.str();
  EXPECT_EQ(text.rfind("kernel", 0), 0u) << text;
  EXPECT_NE(text.find("stencil8_spilling_dlcm_cg"), std::string::npos);
  EXPECT_NE(text.find("bandwidth"), std::string::npos);
  EXPECT_NE(text.find("-Xptxas -dlcm=cg"), std::string::npos);  // the claim
  EXPECT_NE(text.find("4 experiments"), std::string::npos);
  EXPECT_NE(text.find("multi_gpu"), std::string::npos);  // the families are named at the end
}

TEST(KernelCatalog, ListShowsTheIntendedStall) {
  std::ostringstream out;
  write_catalog(select_entries({"warp_stalls", "shared_bank_conflicts", "matmul_naive"}), out);
  const std::string text = out.str();
  EXPECT_NE(text.find("intended stall"), std::string::npos) << text;
  EXPECT_NE(text.find("mio_throttle/short_scoreboard"), std::string::npos) << text;
  EXPECT_NE(text.find("barrier_heavy"), std::string::npos);
  EXPECT_NE(text.find("latency     barrier"), std::string::npos) << text;
  EXPECT_NE(text.find("bandwidth   -"), std::string::npos) << "matmul_naive has no known stall: " << text;
}

}  // namespace
}  // namespace limiter::kernels
