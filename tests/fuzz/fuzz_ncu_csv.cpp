// libFuzzer target: an Nsight Compute CSV export (details or raw page), then its analysis and reports.
#include <sstream>

#include "fuzz_support.hpp"
#include "limiter/import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace limiter;
  fuzz::expect_only_limiter_errors([&] {
    std::istringstream in{std::string(fuzz::as_text(data, size))};
    fuzz::analyse_and_report(import_ncu_csv(in, "fuzz.csv"));
  });
  return 0;
}
