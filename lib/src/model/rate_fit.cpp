// Least-squares per-kernel rates from mixed samples (rate_fit.hpp).
#include "model/rate_fit.hpp"

#include <algorithm>
#include <cmath>

namespace limiter::detail {

void RateFit::grow(std::size_t kernels) {
  if (normal_.size() >= kernels) return;
  for (auto& row : normal_) row.resize(kernels, 0.0);
  normal_.resize(kernels, std::vector<double>(kernels, 0.0));
  rhs_.resize(kernels, std::vector<double>(metrics_, 0.0));
}

void RateFit::add(const std::vector<std::pair<std::size_t, double>>& times, const std::vector<double>& values) {
  std::size_t largest = 0;
  for (const auto& [kernel, time] : times) largest = std::max(largest, kernel + 1);
  grow(largest);
  for (const auto& [g, tg] : times) {
    for (const auto& [h, th] : times) normal_[g][h] += tg * th;
    for (std::size_t m = 0; m < metrics_ && m < values.size(); ++m)
      if (std::isfinite(values[m])) rhs_[g][m] += tg * values[m];
  }
  for (std::size_t m = 0; m < metrics_ && m < values.size(); ++m) {
    if (!std::isfinite(values[m])) continue;
    squares_[m] += values[m] * values[m];
    ++rows_[m];
  }
}

RateFit::Solution RateFit::solve() const {
  const std::size_t n = normal_.size();
  Solution out;
  out.rates.assign(n, std::vector<double>(metrics_, 0.0));
  out.separability.assign(n, 0.0);
  if (n == 0) return out;
  // (A^T A + ridge) inverted by Gauss-Jordan with partial pivoting: n is the number of distinct
  // kernels (tens to hundreds), so n^3 is small. The ridge keeps kernels no sample saw solvable.
  double largest_diagonal = 0;
  for (std::size_t i = 0; i < n; ++i) largest_diagonal = std::max(largest_diagonal, normal_[i][i]);
  const double ridge = std::max(largest_diagonal * 1e-9, 1e-30);
  std::vector<std::vector<double>> a = normal_, inverse(n, std::vector<double>(n, 0.0));
  for (std::size_t i = 0; i < n; ++i) {
    a[i][i] += ridge;
    inverse[i][i] = 1.0;
  }
  for (std::size_t col = 0; col < n; ++col) {
    std::size_t pivot = col;
    for (std::size_t row = col + 1; row < n; ++row)
      if (std::fabs(a[row][col]) > std::fabs(a[pivot][col])) pivot = row;
    std::swap(a[col], a[pivot]);
    std::swap(inverse[col], inverse[pivot]);
    const double p = a[col][col];
    if (p == 0) continue;
    for (std::size_t k = 0; k < n; ++k) {
      a[col][k] /= p;
      inverse[col][k] /= p;
    }
    for (std::size_t row = 0; row < n; ++row) {
      if (row == col || a[row][col] == 0) continue;
      const double f = a[row][col];
      for (std::size_t k = 0; k < n; ++k) {
        a[row][k] -= f * a[col][k];
        inverse[row][k] -= f * inverse[col][k];
      }
    }
  }
  // Unclamped rates, then per metric the residual variance: RSS = v'v - 2 r'A'v + r'A'A r.
  std::vector<std::vector<double>> raw(n, std::vector<double>(metrics_, 0.0));
  for (std::size_t g = 0; g < n; ++g)
    for (std::size_t m = 0; m < metrics_; ++m)
      for (std::size_t h = 0; h < n; ++h) raw[g][m] += inverse[g][h] * rhs_[h][m];
  std::vector<double> variance(metrics_, NAN);
  for (std::size_t m = 0; m < metrics_; ++m) {
    if (rows_[m] <= n) continue;
    double rss = squares_[m];
    for (std::size_t g = 0; g < n; ++g) {
      rss -= 2 * raw[g][m] * rhs_[g][m];
      double row = 0;
      for (std::size_t h = 0; h < n; ++h) row += normal_[g][h] * raw[h][m];
      rss += raw[g][m] * row;
    }
    variance[m] = std::max(rss, 0.0) / static_cast<double>(rows_[m] - n);
  }
  out.errors.assign(n, std::vector<double>(metrics_, NAN));
  for (std::size_t g = 0; g < n; ++g) {
    for (std::size_t m = 0; m < metrics_; ++m) {
      out.rates[g][m] = std::max(raw[g][m], 0.0);
      if (std::isfinite(variance[m]) && inverse[g][g] > 0) out.errors[g][m] = std::sqrt(variance[m] * inverse[g][g]);
    }
    // 1 / (A^T A)^-1_gg is the part of the kernel's column orthogonal to all the others; over
    // its whole length (A^T A)_gg it says how far the fit can tell this kernel from its neighbours.
    const double diagonal = normal_[g][g], inverse_diagonal = inverse[g][g];
    out.separability[g] =
        diagonal > 0 && inverse_diagonal > 0 ? std::clamp(1.0 / (inverse_diagonal * diagonal), 0.0, 1.0) : 0.0;
  }
  return out;
}

}  // namespace limiter::detail
