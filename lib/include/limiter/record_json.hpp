#pragma once
// Versioned JSON for run records (nlohmann-json). Reading checks schema_version and names
// the file and the field on any error.
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "limiter/record.hpp"

namespace limiter {

nlohmann::ordered_json to_json(const RunRecord& run);
RunRecord run_from_json(const nlohmann::json& json, const std::string& origin = "<json>");

RunRecord read_run_file(const std::string& path);  // throws InputError
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
nlohmann::ordered_json kernels_seen_json(const std::vector<KernelSeen>& seen);
std::vector<KernelSeen> kernels_seen_from(const nlohmann::json& json);
nlohmann::ordered_json phases_json(const std::vector<PhaseWindow>& phases);
std::vector<PhaseWindow> phases_from(const nlohmann::json& json);

// The timeline (timeline.hpp; timeline_json.cpp). Reading throws InputError naming the event;
// an event of a kind this version does not know is skipped. timeline_from sorts the events.
nlohmann::ordered_json timeline_event_json(const TimelineEvent& event);
TimelineEvent timeline_event_from(const nlohmann::json& json);
nlohmann::ordered_json timeline_json(const Timeline& timeline);
nlohmann::ordered_json timeline_window_json(const Timeline& timeline);  // start_ns, end_ns, dropped_records
Timeline timeline_from(const nlohmann::json& json);
void apply_timeline_window(const nlohmann::json& window, Timeline& timeline);
void append_timeline_events(const nlohmann::json& events, Timeline& timeline);  // unsorted
// As a record holds it: the window, then an event per line.
void write_timeline_json(const Timeline& timeline, std::ostream& out);

// PC sampling's stalls (stalls.hpp; stalls_json.cpp), the record's "stalls". Reading throws
// InputError naming the field by its path ("stalls.kernels[1].hot_pcs[0]: ...").
nlohmann::ordered_json stalls_json(const StallInfo& stalls);
StallInfo stalls_from(const nlohmann::json& json);

// A run being written by a profiled process, one line per completed launch, flushed as it
// goes: a header line (device, command line), then launch_json lines, with status lines
// among them (the launches missed so far; how the process ended). If the process dies,
// read_partial_run recovers every complete line (a torn last line is ignored).
std::string partial_run_header(const RunRecord& run_without_launches);
// A status line: STATUS's missed, launches_seen, ended and timeline window (start_ns, end_ns,
// dropped_records; not its events), those that are set.
std::string partial_status_line(const RunRecord& status);
// A chunk of timeline events, as a line of the partial run: {"timeline_events": [...]}. Chunks
// may come in any order and between any launches; finish_partial_run sorts their events into
// the record's "timeline" (before the launches), read_partial_run into RunRecord::timeline.
std::string partial_timeline_line(const std::vector<TimelineEvent>& events);
RunRecord read_partial_run(const std::string& path);
// Turns a partial run into a run record at OUTPUT (atomically), streaming its launches: memory
// stays flat however many launches it holds. ENDED_IF_UNKNOWN is recorded when the partial
// file does not say how its process ended. TIMELINE (the collector's whole timeline, at a
// normal exit) replaces the chunks' events. Launches without times whose kernel event names
// them (launch_sequence) get its start_ns, end_ns and duration_source "activity". STALLS (PC
// sampling's, at a normal exit) become the record's "stalls". Returns the number of launches written.
std::size_t finish_partial_run(const std::string& partial, const std::string& output,
                               const std::string& ended_if_unknown = "", const Timeline* timeline = nullptr,
                               const StallInfo* stalls = nullptr);

}  // namespace limiter
