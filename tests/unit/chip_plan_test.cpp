// A metric plan as one chip can collect it (plan_for_chip): what the chip lacks is left out and
// named, so `limiter metrics --chip GA100` lists every plan. The chips' own metric lists come
// from the CUPTI host API (tests/cli: metrics.every_chip); here, lists written out.
#include <gtest/gtest.h>

#include "limiter/metric_plans.hpp"

namespace limiter {
namespace {

TEST(ChipPlan, MetricsWhoseBaseTheChipLacksAreLeftOutInOrder) {
  const MetricPlan plan{"p", "purpose", {"a__x.sum", "b__y.avg.pct_of_peak_sustained_elapsed", "c__z.max", "a__x.avg"}};
  const ChipPlan on_chip = plan_for_chip(plan, {"a__x", "c__z"});
  EXPECT_EQ(on_chip.plan.name, "p");
  EXPECT_EQ(on_chip.plan.purpose, "purpose");
  EXPECT_EQ(on_chip.plan.metrics, (std::vector<std::string>{"a__x.sum", "c__z.max", "a__x.avg"}));
  EXPECT_EQ(on_chip.missing, (std::vector<std::string>{"b__y.avg.pct_of_peak_sustained_elapsed"}));
}

TEST(ChipPlan, AChipWithEveryBaseKeepsThePlanWhole) {
  const MetricPlan& sol = metric_plan("sol");
  std::vector<std::string> bases;
  for (const auto& metric : sol.metrics) bases.push_back(metric.substr(0, metric.find('.')));
  const ChipPlan on_chip = plan_for_chip(sol, bases);
  EXPECT_EQ(on_chip.plan.metrics, sol.metrics);
  EXPECT_TRUE(on_chip.missing.empty());
  EXPECT_EQ(plan_for_chip(sol, {}).missing, sol.metrics);  // a chip with none: all named
}

}  // namespace
}  // namespace limiter
