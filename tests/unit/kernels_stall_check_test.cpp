// The known-answer stall check on hand-made PC sampling values: the dominant reason
// leaves out "selected", an intended alternative counts, a run without sampling says how to get
// it, and experiments that share a kernel function stay apart in the suite's stalls.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "limiter/kernels/catalog.hpp"
#include "limiter/kernels/stall_check.hpp"

namespace limiter::kernels {
namespace {

KernelStalls kernel(const std::string& name, StallCounts reasons) {
  KernelStalls k;
  k.name = name;
  k.reasons = std::move(reasons);
  for (const auto& [reason, samples] : k.reasons) k.samples += samples;
  return k;
}

StallInfo info_of(std::vector<KernelStalls> kernels) {
  StallInfo info;
  info.sample_period_cycles = 1024;
  for (const auto& k : kernels) info.samples += k.samples;
  info.kernels = std::move(kernels);
  return info;
}

TEST(KernelStallCheck, DominantLeavesOutSelected) {
  const auto d = dominant_stall(kernel("k", {{"selected", 900}, {"wait", 600}, {"not_selected", 100}}));
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->reason, "wait");
  EXPECT_EQ(d->samples, 600u);
  EXPECT_DOUBLE_EQ(d->share, 0.375);
  EXPECT_FALSE(dominant_stall(kernel("k", {{"selected", 5}})).has_value()) << "issuing is not waiting";
  EXPECT_FALSE(dominant_stall(kernel("k", {})).has_value());
}

TEST(KernelStallCheck, MatchesTheIntendedReason) {
  const CatalogEntry& chase = *find_entry("calib_pointer_chase");
  const StallInfo info = info_of({kernel("calib_pointer_chase", {{"long_scoreboard", 9000}, {"selected", 100}}),
                                  kernel("barrier_heavy", {{"barrier", 10}, {"wait", 30}})});
  const StallCheck check = check_stall(chase, &info);
  EXPECT_EQ(check.outcome, StallOutcome::matches);
  EXPECT_EQ(check.text, "yes");
  ASSERT_TRUE(check.dominant.has_value());
  EXPECT_EQ(check.dominant->reason, "long_scoreboard");

  const StallCheck barrier = check_stall(*find_entry("barrier_heavy"), &info);
  EXPECT_EQ(barrier.outcome, StallOutcome::differs);
  EXPECT_EQ(barrier.text, "NO (barrier)");
  EXPECT_EQ(barrier.dominant->reason, "wait");
}

TEST(KernelStallCheck, EitherNameOfASharedMemoryWaitCounts) {
  const CatalogEntry& conflicts = *find_entry("shared_bank_conflicts");
  for (const char* reason : {"mio_throttle", "short_scoreboard"}) {
    const StallInfo info = info_of({kernel("shared_bank_conflicts", {{reason, 700}, {"long_scoreboard", 200}})});
    EXPECT_EQ(check_stall(conflicts, &info).outcome, StallOutcome::matches) << reason;
  }
  const StallInfo other = info_of({kernel("shared_bank_conflicts", {{"lg_throttle", 700}, {"mio_throttle", 200}})});
  EXPECT_EQ(check_stall(conflicts, &other).text, "NO (mio_throttle/short_scoreboard)");
}

// random_gather's scattered reads fill the LG queue first (ncu's Warp State: lg throttle 55.5 %,
// long scoreboard 38.0 %, H200): either is its known answer, a barrier is not.
TEST(KernelStallCheck, RandomGatherWaitsOnTheLgQueueOrOnDram) {
  const CatalogEntry& gather = *find_entry("random_gather");
  const StallInfo lg = info_of({kernel("random_gather", {{"lg_throttle", 550}, {"long_scoreboard", 400}})});
  EXPECT_EQ(check_stall(gather, &lg).outcome, StallOutcome::matches);
  const StallInfo dram = info_of({kernel("random_gather", {{"long_scoreboard", 550}, {"lg_throttle", 400}})});
  EXPECT_EQ(check_stall(gather, &dram).outcome, StallOutcome::matches);
  const StallInfo barrier = info_of({kernel("random_gather", {{"barrier", 550}})});
  EXPECT_NE(check_stall(gather, &barrier).outcome, StallOutcome::matches);
}

TEST(KernelStallCheck, NoDataNoSamplesAndNoKnownAnswer) {
  const CatalogEntry& chase = *find_entry("calib_pointer_chase");
  const StallCheck none = check_stall(chase, nullptr);
  EXPECT_EQ(none.outcome, StallOutcome::no_data);
  EXPECT_EQ(none.text, "no stall data (run with --stalls)");
  const StallInfo other = info_of({kernel("random_gather", {{"long_scoreboard", 5}})});
  EXPECT_EQ(check_stall(chase, &other).outcome, StallOutcome::no_samples);
  const StallInfo only_selected = info_of({kernel("calib_pointer_chase", {{"selected", 5}})});
  EXPECT_EQ(check_stall(chase, &only_selected).outcome, StallOutcome::no_samples);
  EXPECT_EQ(check_stall(*find_entry("matmul_naive"), &other).outcome, StallOutcome::no_intended);
}

TEST(KernelStallCheck, ExperimentsSharingAKernelStayApart) {
  // atomics_many_addresses and atomics_few_addresses launch the same atomic_histogram.
  StallInfo suite;
  StallInfo many = info_of({kernel("atomic_histogram(unsigned int*, unsigned int, long long)",
                                   {{"lg_throttle", 50}, {"long_scoreboard", 400}})});
  StallInfo few =
      info_of({kernel("atomic_histogram(unsigned int*, unsigned int, long long)", {{"long_scoreboard", 800}}),
               kernel("helper", {{"wait", 10}, {"long_scoreboard", 5}})});
  few.dropped_samples = 3;
  add_experiment_stalls(suite, many, "atomics_many_addresses");
  add_experiment_stalls(suite, few, "atomics_few_addresses");
  ASSERT_EQ(suite.kernels.size(), 2u);
  EXPECT_EQ(suite.kernels[0].name, "atomics_few_addresses") << "most samples first";
  EXPECT_EQ(suite.kernels[0].samples, 815u);
  EXPECT_EQ(suite.kernels[0].reasons.at("long_scoreboard"), 805u);
  EXPECT_EQ(suite.samples, 1265u);
  EXPECT_EQ(suite.dropped_samples, 3u);
  EXPECT_EQ(check_stall(*find_entry("atomics_few_addresses"), &suite).outcome, StallOutcome::matches);
  add_experiment_stalls(suite, StallInfo{}, "random_gather");
  EXPECT_EQ(suite.kernels.size(), 2u) << "an experiment without samples adds no kernel";
}

TEST(KernelStallCheck, TableSaysWhatWasCheckedOrThatNothingWas) {
  std::vector<Measurement> measured(3);
  measured[0].name = "barrier_heavy";
  measured[1].name = "fma_dependent_chain";
  measured[2].name = "matmul_naive";  // no intended stall: not in the table
  std::ostringstream without;
  EXPECT_EQ(write_stall_checks(measured, nullptr, without), 0u);
  EXPECT_NE(without.str().find("2 kernels have an intended dominant stall; no stall data (run with --stalls)"),
            std::string::npos)
      << without.str();

  const StallInfo info = info_of({kernel("barrier_heavy", {{"barrier", 900}, {"selected", 100}}),
                                  kernel("fma_dependent_chain", {{"math_pipe_throttle", 60}, {"wait", 40}})});
  std::ostringstream with;
  EXPECT_EQ(write_stall_checks(measured, &info, with), 1u);
  const std::string text = with.str();
  EXPECT_NE(text.find("barrier_heavy"), std::string::npos);
  EXPECT_NE(text.find("90.0%"), std::string::npos) << text;
  EXPECT_NE(text.find("NO (wait)"), std::string::npos) << text;
  EXPECT_EQ(text.find("matmul_naive"), std::string::npos);
}

TEST(KernelStallCheck, CatalogNamesStallsAsNcuDoes) {
  const std::set<std::string> ncu_keys = {
      "barrier",         "branch_resolving",   "dispatch_stall", "drain",        "imc_miss", "lg_throttle",
      "long_scoreboard", "math_pipe_throttle", "membar",         "mio_throttle", "misc",     "no_instruction",
      "not_selected",    "short_scoreboard",   "sleeping",       "tex_throttle", "wait"};
  std::size_t with_stall = 0;
  for (const auto& entry : catalog()) {
    for (const auto& reason : entry.intended_stalls)
      EXPECT_TRUE(ncu_keys.count(reason)) << entry.name << ": " << reason;
    with_stall += !entry.intended_stalls.empty();
  }
  EXPECT_EQ(with_stall, 7u);
  EXPECT_EQ(find_entry("barrier_heavy")->intended_stalls, std::vector<std::string>{"barrier"});
  EXPECT_EQ(find_entry("fma_dependent_chain")->intended_stalls, std::vector<std::string>{"wait"});
  EXPECT_EQ(find_entry("calib_pointer_chase")->intended_stalls, std::vector<std::string>{"long_scoreboard"});
  // ncu's Warp State on an H100 and an H200 (2026-11-26): long scoreboard ~50 %, drain ~33 %.
  EXPECT_EQ(find_entry("atomics_few_addresses")->intended_stalls,
            (std::vector<std::string>{"long_scoreboard", "drain"}));
  EXPECT_EQ(intended_stall_text(*find_entry("tensor_mma_loop")), "math_pipe_throttle/wait");
  EXPECT_EQ(intended_stall_text(*find_entry("matmul_naive")), "-");
}

}  // namespace
}  // namespace limiter::kernels
