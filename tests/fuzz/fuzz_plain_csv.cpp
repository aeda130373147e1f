// libFuzzer target: a plain kernel,metric,value CSV, then its analysis and reports. The GPU is
// the caller's (--arch --sms): Fermi, the seed's case study, for odd sizes, Hopper for even.
#include <sstream>

#include "fuzz_support.hpp"
#include "limiter/import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace limiter;
  const bool fermi = size % 2 == 1;
  fuzz::expect_only_limiter_errors([&] {
    std::istringstream in{std::string(fuzz::as_text(data, size))};
    fuzz::analyse_and_report(import_plain_csv(in, "fuzz.csv", fermi ? "sm_20" : "sm_90", fermi ? 16 : 132));
  });
  return 0;
}
