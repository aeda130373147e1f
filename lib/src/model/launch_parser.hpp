#pragma once
// One launch object of a run record, parsed with simdjson's On-Demand API (~1 µs a launch against
// ~15 µs through nlohmann-json's SAX lexer: bench/results/2026-11-23-report-scale.md), with the
// checks and the messages of the DOM reader (record_json.cpp). The record reader
// (record_stream.cpp) cuts the launches out of the text, whatever its layout.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "limiter/record.hpp"

namespace limiter::detail {

// New launches built in the storage of used ones, so that millions of launches allocate as few
// times as a batch holds: the name strings, and the counters' map, whose entries are overwritten
// in place while the new launch has the same metrics in the same order (every launch of a
// record limiter wrote does), and rebuilt from its nodes where it has not.
class LaunchRecycler {
 public:
  explicit LaunchRecycler(std::vector<KernelLaunch>* spare) : spare_(spare) {}
  // LAUNCH emptied, with the storage of a spare launch where there is one.
  void renew(KernelLaunch& launch);
  // Adds METRIC = VALUE after the counters added since renew (a metric given twice: the last
  // value, as the DOM reader takes it).
  void add_counter(KernelLaunch& launch, std::string_view metric, double value);
  // Drops the spare launch's counters the new one did not overwrite.
  void finish(KernelLaunch& launch);

 private:
  using Counters = decltype(KernelLaunch::counters);
  void drop_rest(Counters& counters);

  std::vector<KernelLaunch>* spare_;
  Counters::iterator next_;  // the spare's counter the next metric overwrites when it is the same
  std::vector<Counters::node_type> nodes_;
};

class LaunchParser {
 public:
  // ORIGIN names the file in messages; it must outlive the parser.
  LaunchParser(const std::string& origin, std::vector<KernelLaunch>* spare) : origin_(origin), recycler_(spare) {}

  // TEXT: one launch object, with simdjson's padding readable after it; INDEX: its place in the
  // record and LINE the line it starts on, for messages. Throws InputError naming the launch and
  // the line, where it can be found in an editor.
  void parse(std::string_view text, std::size_t index, std::size_t line, KernelLaunch& launch);

 private:
  struct Number {
    double as_double;
    std::uint64_t as_u64;  // as the DOM reader converts it (launch_fields.hpp)
  };
  std::optional<Number> number_of(simdjson::ondemand::value& value, const char* message, bool nullable = true);
  void set_u64(std::optional<std::uint64_t>& out, simdjson::ondemand::value& value, const char* name);
  std::string_view string_of(simdjson::ondemand::value& value, const char* message);
  Dim3 dim3_of(simdjson::ondemand::value& value, const char* name);
  void read_nvtx(simdjson::ondemand::value& value, KernelLaunch& launch);
  void read_counters(simdjson::ondemand::value& value, KernelLaunch& launch);
  void read_sampled(simdjson::ondemand::value& value, KernelLaunch& launch);
  template <class NotANumber, class OnNumber>
  void read_numbers(simdjson::ondemand::value& value, const char* not_an_object, bool null_ok, NotANumber not_a_number,
                    OnNumber on_number);
  void check(simdjson::error_code error) const {
    if (error) corrupt();
  }
  [[noreturn]] void corrupt() const;
  [[noreturn]] void fail(const std::string& what) const;

  const std::string& origin_;
  LaunchRecycler recycler_;
  simdjson::ondemand::parser parser_;
  std::size_t index_ = 0, line_ = 0;
};

}  // namespace limiter::detail
