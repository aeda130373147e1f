#pragma once
// Least-squares rates for kernels too short to own a sample (PM-sampling mode). A sample's
// counter is the sum over the kernels in it of (kernel's rate) x (its time in the sample). Each
// launch of a kernel sits at another phase of the sample grid and beside other neighbours, so
// over many samples the rates are determined even where no sample is pure. Only the normal
// equations are kept (kernels^2 + kernels x metrics numbers): memory does not grow with samples.
#include <cstddef>
#include <vector>

namespace limiter::detail {

class RateFit {
 public:
  explicit RateFit(std::size_t metrics) : metrics_(metrics), squares_(metrics, 0.0), rows_(metrics, 0) {}

  // One sample: kernel index -> its time in the sample (ns), and the sample's value of each metric
  // (extensive: counts, or percentage x wall time), NaN where missing.
  void add(const std::vector<std::pair<std::size_t, double>>& times, const std::vector<double>& values);

  struct Solution {
    std::vector<std::vector<double>> rates;  // [kernel][metric], per ns; clamped at 0
    // [kernel][metric], per ns: the rate's standard error, from the residual variance of that
    // metric's fit over all samples (model error included: launches that differ, work that spills
    // into a neighbour's time). NaN where there are no more samples than kernels.
    std::vector<std::vector<double>> errors;
    std::vector<double> separability;  // [kernel], 0..1: its signal no other kernel's can explain
  };
  Solution solve() const;

 private:
  void grow(std::size_t kernels);
  std::size_t metrics_;
  std::vector<std::vector<double>> normal_;  // A^T A
  std::vector<std::vector<double>> rhs_;     // A^T v, per metric
  std::vector<double> squares_;              // v^T v, per metric: the residual sum of squares
  std::vector<std::size_t> rows_;            // samples with a value, per metric
};

}  // namespace limiter::detail
