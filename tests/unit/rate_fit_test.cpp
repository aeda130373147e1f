// Least-squares rates of kernels that never own a sample (model/rate_fit.hpp).
#include <gtest/gtest.h>

#include "model/rate_fit.hpp"

namespace limiter::detail {
namespace {

// Two kernels always share their samples, at changing fractions: the fit recovers each rate,
// which a busy-time split (the mean of the two) cannot.
TEST(RateFit, RecoversRatesOfKernelsThatNeverOwnASample) {
  RateFit fit(1);
  for (int i = 0; i < 50; ++i) {
    const double a = 10000.0 + 600.0 * (i % 7), b = 30000.0 - 900.0 * (i % 5);  // ns in the sample
    fit.add({{0, a}, {1, b}}, {a * 3.0 + b * 0.5});
  }
  const auto solution = fit.solve();
  ASSERT_EQ(solution.rates.size(), 2u);
  EXPECT_NEAR(solution.rates[0][0], 3.0, 1e-4);  // the ridge's bias
  EXPECT_NEAR(solution.rates[1][0], 0.5, 1e-4);
  EXPECT_GT(solution.separability[0], 0.01);
}

// Two kernels that always come in the same proportion cannot be told apart: separability ~0.
TEST(RateFit, SaysWhenKernelsCannotBeSeparated) {
  RateFit fit(1);
  for (int i = 0; i < 50; ++i) {
    const double a = 1000.0 * (1 + i % 3);
    fit.add({{0, a}, {1, 2 * a}}, {a * 3.0 + 2 * a * 0.5});
  }
  fit.add({{2, 50000.0}}, {50000.0});  // a kernel alone: fully separable
  const auto solution = fit.solve();
  EXPECT_LT(solution.separability[0], 1e-3);
  EXPECT_LT(solution.separability[1], 1e-3);
  EXPECT_NEAR(solution.separability[2], 1.0, 1e-6);
  EXPECT_NEAR(solution.rates[2][0], 1.0, 1e-6);
}

// Standard errors: none where the rates explain every sample; with launches that differ (a
// rate that wanders by +-10 %), the error is of that size over the samples' count, and the
// true rate lies within a few of them.
TEST(RateFit, StandardErrorsFollowTheResiduals) {
  RateFit exact(1), noisy(1);
  for (int i = 0; i < 400; ++i) {
    const double a = 10000.0 + 600.0 * (i % 7), b = 30000.0 - 900.0 * (i % 5);
    exact.add({{0, a}, {1, b}}, {a * 3.0 + b * 0.5});
    const double wander = 1.0 + 0.1 * ((i * 37 % 11) - 5) / 5.0;  // deterministic, +-10 %
    noisy.add({{0, a}, {1, b}}, {a * 3.0 * wander + b * 0.5});
  }
  const auto clean = exact.solve(), rough = noisy.solve();
  EXPECT_LT(clean.errors[0][0], 1e-3);
  EXPECT_GT(rough.errors[0][0], 1e-3);
  EXPECT_LT(rough.errors[0][0], 0.3);
  EXPECT_NEAR(rough.rates[0][0], 3.0, 4 * rough.errors[0][0]);
  EXPECT_NEAR(rough.rates[1][0], 0.5, 4 * rough.errors[1][0] + 1e-9);
}

}  // namespace
}  // namespace limiter::detail
