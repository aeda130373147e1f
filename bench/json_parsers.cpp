// Parsing speed of a run record, each parser touching every value: nlohmann-json's SAX interface
// (the reader before 2026-11-23), and limiter's reader (read_run_stream: the launches cut out of
// the text and each parsed with simdjson's On-Demand API, in any layout) alone and with its
// KernelLaunch storage reused as the report's pipeline reuses it. The measurements behind the
// choice of reader (results/2026-11-23-report-scale.md, results/2026-11-26-reader-layouts.md).
// Not built by CMake; against the build tree:
//   g++ -O2 -std=c++20 -Ilib/include -Ilib/src bench/json_parsers.cpp build/lib/liblimiter_core.a \
//       -lsimdjson -lz -o /tmp/json_parsers
//   /tmp/json_parsers run.json [run.oneline.json ...]
#include <chrono>
#include <fstream>
#include <iostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "limiter/record_stream.hpp"

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Counts objects and sums numbers: every event is seen, nothing is kept.
struct CountingHandler : nlohmann::json_sax<nlohmann::json> {
  std::size_t objects = 0;
  double sum = 0;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t v) override {
    sum += static_cast<double>(v);
    return true;
  }
  bool number_unsigned(number_unsigned_t v) override {
    sum += static_cast<double>(v);
    return true;
  }
  bool number_float(number_float_t v, const string_t&) override {
    sum += v;
    return true;
  }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    ++objects;
    return true;
  }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
};

// limiter's reader; with SPARE, each launch goes back to be built in again, as in the pipeline.
void time_reader(const char* path, bool reuse) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<limiter::KernelLaunch> spare;
  std::size_t launches = 0;
  double sum = 0;
  limiter::read_run_stream(
      path, [](const limiter::RunRecord&) {},
      [&](limiter::KernelLaunch&& launch) {
        ++launches;
        for (const auto& [metric, value] : launch.counters) sum += value;
        if (reuse) spare.push_back(std::move(launch));
      },
      reuse ? &spare : nullptr);
  std::cout << "  limiter read_run_stream" << (reuse ? ", storage reused: " : ":                 ")
            << seconds_since(start) << " s (" << launches << " launches)\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: json_parsers RUN.json...\n";
    return 2;
  }
  for (int i = 1; i < argc; ++i) {
    std::cout << argv[i] << "\n";
    const auto start = std::chrono::steady_clock::now();
    std::ifstream in(argv[i], std::ios::binary);
    CountingHandler handler;
    nlohmann::json::sax_parse(in, &handler);
    std::cout << "  nlohmann-json SAX:                         " << seconds_since(start) << " s (" << handler.objects
              << " objects)\n";
    time_reader(argv[i], false);
    time_reader(argv[i], true);
  }
}
