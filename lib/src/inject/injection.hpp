#pragma once
// The injected process's state (inject.cpp sets it up inside the app's cuInit) and the writers of
// its files: the partial file as the run goes (partial_file.cpp) and the record at the end
// (final_record.cpp). Internal to liblimiter_inject.so.
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "inject/launch_progress.hpp"
#include "limiter/collector.hpp"
#include "limiter/record.hpp"

namespace limiter::inject {

struct Injection {
  Collector* collector = nullptr;  // never destroyed: the driver may still call back at exit
  std::string output, partial;
  bool app_process = true;   // limiter run started this process itself (not a worker the app started)
  bool pc_sampling = false;  // --stalls: samples read at the end, none on disk before it
  bool phased = false;       // the default run: samples, counters, timeline (modes.hpp)
  std::ofstream partial_out;
  RunRecord header;
  bool header_written = false;
  detail::LaunchProgress* progress = nullptr;  // never destroyed, like the collector
  // The partial file's writers: launches and status under the collector's lock, timeline chunks
  // from CUPTI's buffer thread. Events that complete before the header waits here.
  std::mutex partial_mutex;
  std::vector<TimelineEvent> early_events;
  std::string pending_status;            // a finished phase's status line that came before the header
  std::optional<RunRecord> phases_part;  // the last of them: a record with no launch is made of it
  std::optional<Timeline> timeline;      // the whole timeline when the process ends (LaunchSink::on_timeline_final)
};

// The process's one injection: set once in InitializeInjection, never destroyed.
extern Injection* injection;

inline std::string env(const char* name, const std::string& fallback = "") {
  const char* value = std::getenv(name);
  return value ? value : fallback;
}

// The partial file (partial_file.cpp): opened at the first device with the header, then timeline
// chunks and status lines as they come; a sampling run's snapshots replace it whole.
void open_partial(const DeviceDescription& device);
void write_timeline_events(const std::vector<TimelineEvent>& events);
void write_timeline_status(const Timeline& window);
void write_snapshot(const RunRecord& snapshot);
void write_phases_status(const RunRecord& part);

// The record (final_record.cpp), once: at exit, or with ENDED naming a fatal signal.
void write_final_record(const std::string& ended);
void write_record_at_exit();

}  // namespace limiter::inject
