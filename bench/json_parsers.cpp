// Parsing speed of a run record with nlohmann-json's SAX interface and simdjson's On-Demand
// API, each touching every value; the measurement behind limiter's choice of reader
// (results/2026-11-23-report-scale.md). Not built by CMake: simdjson is not a dependency.
//   g++ -O2 -std=c++20 bench/json_parsers.cpp -o json_parsers -lsimdjson   (apt-get install libsimdjson-dev)
//   ./json_parsers run.json
#include <chrono>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>
#include <simdjson.h>

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
  bool number_integer(number_integer_t v) override { sum += static_cast<double>(v); return true; }
  bool number_unsigned(number_unsigned_t v) override { sum += static_cast<double>(v); return true; }
  bool number_float(number_float_t v, const string_t&) override { sum += v; return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { ++objects; return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: json_parsers RUN.json\n";
    return 2;
  }
  {
    const auto start = std::chrono::steady_clock::now();
    std::ifstream in(argv[1], std::ios::binary);
    CountingHandler handler;
    nlohmann::json::sax_parse(in, &handler);
    std::cout << "nlohmann-json SAX:  " << seconds_since(start) << " s (" << handler.objects << " objects)\n";
  }
  {
    const auto start = std::chrono::steady_clock::now();
    const simdjson::padded_string json = simdjson::padded_string::load(argv[1]);
    const double loaded = seconds_since(start);
    simdjson::ondemand::parser parser;
    auto document = parser.iterate(json);
    std::size_t launches = 0;
    double sum = 0;
    for (auto field : document.get_object()) {
      if (field.unescaped_key().value() != "launches") continue;
      for (auto launch : field.value().get_array()) {
        ++launches;
        for (auto item : launch.get_object()) {
          const std::string_view key = item.unescaped_key().value();
          if (key == "counters") {
            for (auto counter : item.value().get_object()) {
              double value = 0;
              if (!counter.value().get_double().get(value)) sum += value;
            }
          } else if (key == "name" || key == "mangled_name") {
            sum += static_cast<double>(std::string_view(item.value().get_string().value()).size());
          }
        }
      }
    }
    std::cout << "simdjson On-Demand: " << seconds_since(start) << " s (file loaded in " << loaded << " s; "
              << launches << " launches; implementation " << simdjson::builtin_implementation()->name() << ")\n";
  }
}
