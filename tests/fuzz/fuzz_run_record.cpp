// libFuzzer target: a run record through every reader limiter has for it — the DOM reader
// (run_from_json), the streaming SAX reader on a stream, and the file reader on the input as
// it is (a gzip header there means a corrupt .json.gz) and gzip-compressed — then the
// analysis and reports of what each read.
#include <sstream>

#include <nlohmann/json.hpp>
#include <zlib.h>

#include "fuzz_support.hpp"
#include "limiter/record_json.hpp"
#include "limiter/record_stream.hpp"

namespace {

void write_gzip(const std::string& path, std::string_view content) {
  gzFile file = gzopen(path.c_str(), "wb1");
  if (!content.empty()) gzwrite(file, content.data(), static_cast<unsigned>(content.size()));
  gzclose(file);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace limiter;
  const std::string_view text = fuzz::as_text(data, size);
  fuzz::expect_only_limiter_errors([&] {
    const auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!json.is_discarded()) fuzz::analyse_and_report(run_from_json(json, "fuzz.json"));
  });
  fuzz::expect_only_limiter_errors([&] {
    std::istringstream in{std::string(text)};
    RunRecord run;
    read_run_stream(
        in, "fuzz.json", [&](const RunRecord& header) { run = header; },
        [&](KernelLaunch&& launch) { run.launches.push_back(std::move(launch)); });
    fuzz::analyse_and_report(run);
  });
  const std::string plain = fuzz::scratch_dir() + "/run.json";
  fuzz::write_file(plain, text);
  fuzz::expect_only_limiter_errors([&] { read_run_file(plain); });
  const std::string compressed = fuzz::scratch_dir() + "/run.json.gz";
  write_gzip(compressed, text);
  fuzz::expect_only_limiter_errors([&] { read_run_file(compressed); });
  return 0;
}
