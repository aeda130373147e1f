// profile_region: a region of this program's own kernels profiled in process (the default run:
// PC samples, each kernel's first launches' counters, the timeline), then the text report.
#include <exception>
#include <iostream>

#include "limiter/collector.hpp"
#include "limiter/reports.hpp"
#include "limiter/run_summary.hpp"

void run_scale(int n, int steps);  // scale_kernel.cu

int main() {
  try {
    limiter::Collector collector(limiter::CollectorOptions{});  // throws, naming the fix, without a GPU
    {
      limiter::ProfiledRegion region(collector);
      run_scale(1 << 24, 100);
    }
    const limiter::RunSummary summary = limiter::summarize_record(collector.take_run(), {}, {});
    limiter::write_text_report(summary, std::cout);
  } catch (const std::exception& e) {
    std::cerr << "profile_region: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
