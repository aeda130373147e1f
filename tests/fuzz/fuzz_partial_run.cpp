// libFuzzer target: the partial run file a profiled process writes line by line and may leave
// torn when it dies: recovered (read_partial_run) and turned into a record (finish_partial_run),
// which must read back; then the analysis and reports of the recovered launches.
#include "fuzz_support.hpp"
#include "limiter/record_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace limiter;
  const std::string partial = fuzz::scratch_dir() + "/run.partial.jsonl";
  fuzz::write_file(partial, fuzz::as_text(data, size));
  fuzz::expect_only_limiter_errors([&] { fuzz::analyse_and_report(read_partial_run(partial)); });
  const std::string finished = fuzz::scratch_dir() + "/finished.json";
  fuzz::expect_only_limiter_errors([&] {
    finish_partial_run(partial, finished);
    read_run_file(finished);
  });
  return 0;
}
