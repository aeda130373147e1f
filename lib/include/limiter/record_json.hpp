#pragma once
// Versioned JSON for run records (nlohmann-json). Reading checks schema_version and names
// the file and the field on any error.
#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

#include "limiter/record.hpp"

namespace limiter {

nlohmann::ordered_json to_json(const RunRecord& run);
RunRecord run_from_json(const nlohmann::json& json, const std::string& origin = "<json>");

RunRecord read_run_file(const std::string& path);              // throws InputError
// In the layout of `limiter run`'s records: the run's fields indented, then a launch per line.
void write_run_file(const RunRecord& run, const std::string& path);  // atomic: temp + rename
void write_run_json(const RunRecord& run, std::ostream& out);

// The parts, for files written one launch at a time (limiter run, raw data sets).
nlohmann::ordered_json device_json(const DeviceDescription& device);
DeviceDescription device_from(const nlohmann::json& json);
nlohmann::ordered_json rank_json(const RankInfo& rank);
RankInfo rank_from(const nlohmann::json& json);  // throws InputError on a rank outside its world
nlohmann::ordered_json launch_json(const KernelLaunch& launch);
nlohmann::ordered_json missed_json(const std::vector<MissedLaunches>& missed);
std::vector<MissedLaunches> missed_from(const nlohmann::json& json);
KernelLaunch launch_from(const nlohmann::json& json);
nlohmann::ordered_json sampling_json(const SamplingInfo& sampling);
SamplingInfo sampling_from(const nlohmann::json& json);

// A run being written by a profiled process, one line per completed launch, flushed as it
// goes: a header line (device, command line), then launch_json lines, with status lines
// among them (the launches missed so far; how the process ended). If the process dies,
// read_partial_run recovers every complete line (a torn last line is ignored).
std::string partial_run_header(const RunRecord& run_without_launches);
// A status line: STATUS's missed, launches_seen and ended, those that are set.
std::string partial_status_line(const RunRecord& status);
RunRecord read_partial_run(const std::string& path);
// Turns a partial run into a run record at OUTPUT (atomically), streaming its launches: memory
// stays flat however many launches it holds. ENDED_IF_UNKNOWN is recorded when the partial
// file does not say how its process ended. Returns the number of launches written.
std::size_t finish_partial_run(const std::string& partial, const std::string& output,
                               const std::string& ended_if_unknown = "");

}  // namespace limiter
