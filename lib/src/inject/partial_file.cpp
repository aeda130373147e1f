// The injected process's partial file (injection.hpp): written as the run goes, so that a killed
// app keeps its launches, its timeline and its finished phases' answers.
#include <filesystem>

#include "inject/injection.hpp"
#include "limiter/json_text.hpp"
#include "limiter/record_json.hpp"

namespace limiter::inject {

// The partial file, opened at the first device: the header, then launches and status lines.
void open_partial(const limiter::DeviceDescription& device) {
  std::lock_guard lock(injection->partial_mutex);
  if (injection->header_written) return;
  injection->header.device = device;
  injection->partial_out.open(injection->partial, std::ios::trunc);
  injection->partial_out << limiter::partial_run_header(injection->header) << "\n";
  if (!injection->early_events.empty()) {
    injection->partial_out << limiter::partial_timeline_line(injection->early_events) << "\n";
    injection->early_events.clear();
  }
  if (!injection->pending_status.empty()) {
    injection->partial_out << injection->pending_status << "\n";
    injection->pending_status.clear();
  }
  injection->partial_out.flush();
  injection->header_written = true;
}

// The activity timeline as it arrives (collector_internal.hpp): a chunk line per buffer, and the
// window with the dropped-record count in a status line, so a killed app keeps its timeline.
void write_timeline_events(const std::vector<limiter::TimelineEvent>& events) {
  std::lock_guard lock(injection->partial_mutex);
  if (!injection->header_written) {
    injection->early_events.insert(injection->early_events.end(), events.begin(), events.end());
    return;
  }
  injection->partial_out << limiter::partial_timeline_line(events) << "\n";
  injection->partial_out.flush();
}

void write_timeline_status(const limiter::Timeline& window) {
  std::lock_guard lock(injection->partial_mutex);
  if (!injection->header_written) return;
  limiter::RunRecord status;
  status.timeline = window;
  injection->partial_out << limiter::partial_status_line(status) << "\n";
  injection->partial_out.flush();
}

// Sampling mode: the aggregates so far replace the partial file (written aside, then renamed:
// `limiter run` recovers a whole snapshot from a process that died without its handlers).
void write_snapshot(const limiter::RunRecord& snapshot) {
  static std::mutex writing;  // the first launch's thread and the decode thread
  std::lock_guard lock(writing);
  limiter::RunRecord header = snapshot;
  header.launches.clear();
  header.tool_version = injection->header.tool_version;
  header.command_line = injection->header.command_line;
  header.created_at = injection->header.created_at;
  header.rank = injection->header.rank;
  header.host = injection->header.host;
  const std::string aside = injection->partial + ".tmp";
  {
    std::ofstream out(aside, std::ios::trunc);
    out << limiter::partial_run_header(header) << "\n";
    for (const auto& launch : snapshot.launches) out << limiter::json_text(limiter::launch_json(launch)) << "\n";
    if (!out.flush()) return;
  }
  std::error_code error;
  std::filesystem::rename(aside, injection->partial, error);
}

// The default run's phases (phases.hpp), as a status line of the partial file: their windows, the
// samples of a finished sampling phase, the launches seen and what was missed so far.
void write_phases_status(const limiter::RunRecord& part) {
  if (!injection->phased) return;
  limiter::RunRecord status;
  status.phases = part.phases;
  status.stalls = part.stalls;
  status.missed = part.missed;
  status.launches_seen = part.launches_seen;
  std::lock_guard lock(injection->partial_mutex);
  if (!injection->header_written) {  // no device yet (the counters phase describes it): written with the header
    if (injection->phases_part) {    // a later part keeps what an earlier one had (a finished window's samples)
      if (!status.stalls) status.stalls = injection->phases_part->stalls;
      if (part.device.name.empty()) status.device = injection->phases_part->device;
    }
    if (!part.device.name.empty()) status.device = part.device;
    injection->pending_status = limiter::partial_status_line(status);
    injection->phases_part = status;
    return;
  }
  injection->partial_out << limiter::partial_status_line(status) << "\n";
  injection->partial_out.flush();
}

}  // namespace limiter::inject
