// Whether a kernel's change between two runs is more than its launches' own variation. A group
// of many launches has a precise mean even when single launches vary a lot, so the means are
// compared against their standard error, not single launches against the other side's
// min..max (which calls a steady 17 % change of a kernel launched thousands of times noise).
#include <cmath>

#include "limiter/compare.hpp"

namespace limiter {
namespace {

bool within(double value, const DurationStats& spread) {
  return spread.min_ns && spread.max_ns && value >= *spread.min_ns && value <= *spread.max_ns;
}

}  // namespace

const char* const kNoiseRule =
    "noise: the change of the mean time per launch is within 2 standard errors of the launches' durations "
    "(sqrt(s_before^2/n_before + s_after^2/n_after)); a kernel launched once on a side: its time within the other "
    "side's min..max";

bool change_is_noise(const DurationStats& before, const DurationStats& after) {
  if (!before.mean_ns || !after.mean_ns) return false;
  const std::size_t n_before = before.timed_launches, n_after = after.timed_launches;
  if (n_before < 2 && n_after < 2) return false;  // no spread to judge by
  if (n_before < 2) return within(*before.mean_ns, after);
  if (n_after < 2) return within(*after.mean_ns, before);
  const double standard_error = std::sqrt(*before.variance_ns2() / static_cast<double>(n_before) +
                                          *after.variance_ns2() / static_cast<double>(n_after));
  return std::fabs(*after.mean_ns - *before.mean_ns) <= kNoiseStandardErrors * standard_error;
}

}  // namespace limiter
