// A run being written by a profiled process (record_json.hpp): a header line, then a line per
// completed launch, with status lines and chunks of timeline events among them, flushed as they
// go; read back or turned into a record whatever line the process died on.
//
//   {"kind": "limiter-partial-run", ...the run's fields...}
//   {"sequence": 0, ...}                                   a launch
//   {"status": {"missed": [...], "launches_seen": N, "ended": "...", "timeline": {window}}}
//   {"timeline_events": [{"kind": "kernel", ...}, ...]}    a chunk of events, in any order
#include <fstream>
#include <string_view>
#include <unordered_map>

#include "limiter/error.hpp"
#include "limiter/file_io.hpp"
#include "limiter/json_text.hpp"
#include "limiter/record_json.hpp"
#include "model/record_faults.hpp"
#include "model/record_layout.hpp"

namespace limiter {

using ordered_json = nlohmann::ordered_json;
using json = nlohmann::json;

std::string partial_run_header(const RunRecord& run) {
  RunRecord fields = run;
  fields.launches.clear();
  fields.timeline.reset();  // its events go on lines of their own (partial_timeline_line), its window in status
  ordered_json header = to_json(fields);
  header["kind"] = "limiter-partial-run";
  header.erase("launches");
  return json_text(header);
}

namespace {

// Opens a partial run and reads its header line, checked as a run record without launches;
// HEADER keeps the line's field order for finish_partial_run.
RunRecord open_partial_run(std::ifstream& in, const std::string& path, ordered_json& header) {
  in.open(path);
  if (!in) throw InputError("cannot open partial run '" + path + "'");
  std::string line;
  if (!std::getline(in, line)) throw InputError("partial run '" + path + "' is empty");
  try {
    header = ordered_json::parse(line);
  } catch (const json::exception& e) {
    throw InputError("partial run '" + path + "' has a corrupt header: " + detail::json_error_words(e));
  }
  header["kind"] = "limiter-run";
  json checked = json::parse(json_text(header));
  checked["launches"] = json::array();
  return run_from_json(checked, "'" + path + "'");
}

// Status lines: each field optional; for each field the latest line that has it wins.
constexpr std::string_view kStatusPrefix = "{\"status\"";
constexpr std::string_view kTimelinePrefix = "{\"timeline_events\"";

bool apply_partial_status(const json& entry, RunRecord& run) {
  if (!entry.is_object() || entry.size() != 1 || !entry.contains("status")) return false;
  const json& status = entry.at("status");
  if (auto missed = status.find("missed"); missed != status.end()) run.missed = missed_from(*missed);
  if (auto seen = status.find("launches_seen"); seen != status.end()) run.launches_seen = seen->get<std::uint64_t>();
  if (auto seen = status.find("kernels_seen"); seen != status.end()) run.kernels_seen = kernels_seen_from(*seen);
  if (auto ended = status.find("ended"); ended != status.end()) run.ended = ended->get<std::string>();
  if (auto phases = status.find("phases"); phases != status.end()) run.phases = phases_from(*phases);
  if (auto stalls = status.find("stalls"); stalls != status.end()) run.stalls = stalls_from(*stalls);
  if (auto window = status.find("timeline"); window != status.end()) {
    if (!run.timeline) run.timeline.emplace();
    apply_timeline_window(*window, *run.timeline);
  }
  return true;
}

// A chunk of timeline events: folded into RUN's timeline (made if it has none).
bool apply_partial_timeline(const json& entry, RunRecord& run) {
  if (!entry.is_object() || entry.size() != 1 || !entry.contains("timeline_events")) return false;
  if (!run.timeline) run.timeline.emplace();
  append_timeline_events(entry.at("timeline_events"), *run.timeline);
  return true;
}

}  // namespace

RunRecord read_partial_run(const std::string& path) {
  std::ifstream in;
  ordered_json header;
  RunRecord run = open_partial_run(in, path, header);
  std::string line;
  while (std::getline(in, line)) {
    json entry;
    try {
      entry = json::parse(line);
      if (apply_partial_status(entry, run) || apply_partial_timeline(entry, run)) continue;
      run.launches.push_back(launch_from(entry));
    } catch (const std::exception&) {
      break;  // the torn last line of a process that died mid-write
    }
  }
  if (run.timeline) normalize_timeline(*run.timeline);
  return run;
}

std::string partial_status_line(const RunRecord& status) {
  ordered_json fields = ordered_json::object();
  if (!status.missed.empty()) fields["missed"] = missed_json(status.missed);
  if (status.launches_seen) fields["launches_seen"] = *status.launches_seen;
  if (!status.kernels_seen.empty()) fields["kernels_seen"] = kernels_seen_json(status.kernels_seen);
  if (!status.ended.empty()) fields["ended"] = status.ended;
  if (!status.phases.empty()) fields["phases"] = phases_json(status.phases);
  if (status.stalls) fields["stalls"] = stalls_json(*status.stalls);
  if (status.timeline) fields["timeline"] = timeline_window_json(*status.timeline);  // its window; events apart
  return json_text(ordered_json{{"status", std::move(fields)}});
}

namespace {

// The launch line with its kernel's times from the timeline (KERNELS: sequence -> event); the
// line as it was when the timeline does not name it or the launch has its times.
std::string with_kernel_times(const std::string& line,
                              const std::unordered_map<std::uint64_t, const TimelineEvent*>& kernels) {
  if (kernels.empty()) return line;
  ordered_json launch = ordered_json::parse(line, nullptr, /*allow_exceptions=*/false);
  const auto sequence = launch.find("sequence");
  if (!launch.is_object() || sequence == launch.end() || !sequence->is_number_unsigned()) return line;
  if (launch.contains("start_ns")) return line;  // timed already
  const auto kernel = kernels.find(sequence->get<std::uint64_t>());
  if (kernel == kernels.end()) return line;
  launch["start_ns"] = kernel->second->start_ns;
  launch["end_ns"] = kernel->second->end_ns;
  launch["duration_source"] = "activity";
  return json_text(launch);
}

}  // namespace

std::size_t finish_partial_run(const std::string& partial, const std::string& output,
                               const std::string& ended_if_unknown, const Timeline* timeline, const StallInfo* stalls) {
  std::ifstream in;
  ordered_json header;
  RunRecord status = open_partial_run(in, partial, header);
  header.erase("timeline");  // a header that carried one: written below, with the chunks' events
  // First pass: the status lines (missed launches, how the process ended) and the timeline's
  // events belong in the header, before the launches, where the streaming reader finds them.
  // The events are held and sorted: chunks arrive as CUPTI's buffers complete, not in order.
  std::string line;
  while (std::getline(in, line)) {
    // With the whole timeline given, its chunks on disk are not parsed (JSON-parsing 1.2M events
    // took 15 s of the app's exit on the build machine).
    const bool is_status = line.starts_with(kStatusPrefix),
               is_timeline = !timeline && line.starts_with(kTimelinePrefix);
    if (!is_status && !is_timeline) continue;
    try {
      const json entry = json::parse(line);
      if (is_status)
        apply_partial_status(entry, status);
      else
        apply_partial_timeline(entry, status);
    } catch (const std::exception&) {
      break;  // the torn last line
    }
  }
  if (status.ended.empty()) status.ended = ended_if_unknown;
  if (!status.ended.empty()) header["ended"] = status.ended;
  if (!status.missed.empty()) header["missed"] = missed_json(status.missed);
  if (status.launches_seen) header["launches_seen"] = *status.launches_seen;
  if (!status.kernels_seen.empty()) header["kernels_seen"] = kernels_seen_json(status.kernels_seen);
  if (!status.phases.empty()) header["phases"] = phases_json(status.phases);
  if (!stalls && status.stalls) stalls = &*status.stalls;  // a finished sampling phase's, from its status line
  // The timeline written: TIMELINE itself when normalised already (the collector's is: no copy of
  // a million events at the app's exit), else a normalised copy, else the chunks' events.
  const Timeline* written = timeline;
  if (!timeline || !is_normalized(*timeline)) {
    if (timeline) status.timeline = *timeline;
    if (status.timeline) normalize_timeline(*status.timeline);
    written = status.timeline ? &*status.timeline : nullptr;
  }
  std::unordered_map<std::uint64_t, const TimelineEvent*> kernels;
  if (written) {
    for (const auto& e : written->events)
      if (e.kind == ActivityKind::kernel && e.launch_sequence) kernels[*e.launch_sequence] = &e;
  }
  in.clear();
  in.seekg(0);
  std::getline(in, line);  // the header line, already read
  std::size_t count = 0;
  write_file_atomically(output, [&](std::ostream& out) {
    detail::write_line_layout_head(out, header, written, stalls);
    while (std::getline(in, line)) {
      if (line.starts_with(kStatusPrefix) || line.starts_with(kTimelinePrefix)) continue;
      if (!json::accept(line)) break;  // the torn last line of a process that died mid-write
      out << detail::line_layout_separator(count++) << with_kernel_times(line, kernels);
    }
    out << detail::kLineLayoutEnd;
  });
  return count;
}

}  // namespace limiter
