#pragma once
// The run record in the layout limiter writes it — its fields, `"launches": [` alone on a line,
// then one launch per line — read with simdjson's On-Demand API a line at a time: ~1 µs a
// launch against ~15 µs through nlohmann-json's SAX lexer (bench/results/2026-11-23-report-scale.md),
// with the same checks and messages. Anything else (a record written by hand, by Python's
// json.dump, compact on one line) is left to the SAX reader.
#include <streambuf>
#include <string>
#include <vector>

#include "limiter/record_stream.hpp"

namespace limiter::detail {

// Reads IN to its end and returns true when it starts in limiter's layout. Otherwise returns
// false without calling a sink, with what it read from IN in PREFIX, for the SAX reader.
// Throws InputError naming ORIGIN, and the launch, for what it cannot read once in the layout.
bool read_run_lines(std::streambuf& in, const std::string& origin, const RunHeaderSink& on_header,
                    const limiter::LaunchSink& on_launch, std::vector<KernelLaunch>* spare, std::string& prefix);

// New launches built in the storage of used ones (strings, counter nodes): millions of launches
// allocate as few times as a batch holds. Shared by both readers.
class LaunchRecycler {
 public:
  explicit LaunchRecycler(std::vector<KernelLaunch>* spare) : spare_(spare) {}
  // LAUNCH emptied, with the strings and counter nodes of a spare launch where there is one.
  void renew(KernelLaunch& launch);
  // Adds METRIC = VALUE at the end of LAUNCH's counters (first wins, as std::map::emplace).
  void add_counter(KernelLaunch& launch, std::string_view metric, double value);

 private:
  std::vector<KernelLaunch>* spare_;
  std::vector<decltype(KernelLaunch::counters)::node_type> nodes_;
};

}  // namespace limiter::detail
