#pragma once
// The phase list (docs/design.md §4): a mode's sessions in order, each running until its work is
// done (PhaseEnd, checked at each launch's ENTER), and the sessions beside them (Background). A
// phase's record is handed to the next phase's session (Session::begin_after, or the phase's
// PhaseHandover where the session knows nothing of the phase before), and the last phase's record
// is the run's. A list of named phases (the default run) also records each phase's window
// (RunRecord::phases), so that every report knows where each answer came from.
// The subscriber's events reach the sessions only through the list (phase_events.cpp), each to
// the sessions that opted into it (session_capabilities.hpp). Which sessions a mode runs, and on
// which backends, is decided in modes.hpp.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "collect/session.hpp"
#include "limiter/collector_options.hpp"

namespace limiter::detail {

// How a phase takes over the record of the phase before where its session knows nothing of that
// phase (an exact phase: handover.hpp). Phases hands the record to begin() instead of the
// session's begin_after, and passes what the session's finish() returns through join().
class PhaseHandover {
 public:
  virtual ~PhaseHandover() = default;
  // The phase before ended (FOLLOWS) or the app ended first; tells the session what it needs.
  virtual void begin(RunRecord before, bool follows) = 0;
  // The session's own record joined into the one handed over.
  virtual RunRecord join(RunRecord phase) = 0;
  // What the hand-over found and cost, before the session's own lines (--timing).
  virtual std::string timings() const { return {}; }
};

// A mode: its phases in order, and the sessions that run beside them until the end.
struct PhaseList {
  std::vector<std::unique_ptr<Session>> phases, background;
  std::vector<std::size_t> background_from;               // the phase each background session begins with (none: 0)
  std::vector<std::string> names;                         // the phases' names in the record (none: no windows recorded)
  std::vector<std::unique_ptr<PhaseHandover>> handovers;  // by phase; none: the session takes the record
};

// A CUPTI timestamp (the timeline's clock), or a fake one in tests.
using PhaseClock = std::function<std::uint64_t()>;

class Phases {
 public:
  Phases() = default;
  explicit Phases(std::vector<std::unique_ptr<Session>> sessions);
  explicit Phases(PhaseList list, PhaseClock clock = {});
  ~Phases() { join_completer(); }
  Phases(const Phases&) = delete;
  Phases& operator=(const Phases&) = delete;

  Session& current() { return *sessions_[index_.load()]; }
  std::size_t index() const { return index_.load(); }
  std::size_t size() const { return sessions_.size(); }
  Session& at(std::size_t i) { return *sessions_[i]; }
  const Session& at(std::size_t i) const { return *sessions_[i]; }
  bool last() const { return index_.load() + 1 >= sessions_.size(); }
  std::size_t background_size() const { return background_.size(); }
  Session& background(std::size_t i) { return *background_[i]; }
  const Session& background(std::size_t i) const { return *background_[i]; }
  std::size_t background_from(std::size_t i) const { return background_from_[i]; }
  // A launch's ENTER, before the sessions see it: counted to the current phase's window.
  void note_launch();
  // The current phase's work is done (PhaseEnd): the next may begin.
  bool current_over() const;

  // The subscriber's events (phase_events.cpp), each to the sessions that take it (the current
  // phase, every phase, the background: session_capabilities.hpp says which).
  void on_collector_started();
  void on_launch(const LaunchCall& call);
  void on_launch_exit(const LaunchCall& call);
  void on_sync(SyncKind kind);
  void on_graph_event(const GraphEvent& event);
  void on_module_loaded(const ModuleLoad& module);
  void on_context_created(CUcontext context);
  void on_context_destroy(CUcontext context);
  void on_nvtx(const NvtxEvent& event);
  // PendingWork: the current phase's, then the background's (their kernels join its launches).
  void flush();
  bool flush_before_exit(std::chrono::milliseconds wait) noexcept;  // false when the phase lost launches
  void write_raw_files();
  // Over every phase (safe in a signal handler).
  std::vector<MissedLaunches> missed() const;
  std::uint64_t launches_seen() const;
  std::vector<KernelSeen> kernels_seen() const;  // the first phase that tallies kernels and has any
  // A profiled region opens or closes (cudaProfilerStart/Stop): the current and later phases
  // and the background are told, so a phase that begins inside a region knows it.
  void begin_region();
  void end_region();
  // The current phase is over: its record goes to the next, which becomes current; the
  // background sessions that begin with it are told (Session::on_phase_begun). ON_HANDOVER, when
  // set, sees the record handed over with the windows so far (a finished phase's answers go to
  // disk before the next phase runs: a later crash loses none of them).
  // The ended phase's slow part (Session::complete_record) and the hand-over run on a thread of their own.
  void advance();
  std::function<void(const RunRecord& handed)> on_handover;
  // Waits at most WAIT for an ended phase's record to be completed and handed over: false if it
  // was not (a fatal signal's handler writes what finished phases hold once they have).
  bool wait_handed_over(std::chrono::milliseconds wait);
  // The run ends: the current phase's record, through every later phase (told it never ran),
  // then through the background sessions; with the phases' windows.
  RunRecord finish();
  // The windows so far (the current one open), for a record written on a fatal signal: gives up
  // rather than wait for another thread.
  std::vector<PhaseWindow> windows() const;
  SessionCallbacks callbacks() const;  // what the sessions opted into, as the subscriber enables it
  // Phase I's lines for --timing: its hand-over's, then its session's.
  std::string timings(std::size_t i) const;

 private:
  std::uint64_t now() const { return clock_ ? clock_() : 0; }
  void close_window(std::size_t index, std::string ended_by);
  void join_completer();  // the hand-over's thread, and the stalls it completed into the record
  // The ended phase's slow part (Session::complete_record), then ON_HANDOVER: on completer_, or the app's thread.
  void hand_over(SlowCompletion* ended, RunRecord handed) noexcept;
  // Phase I begins with the record before (through its PhaseHandover where it has one), and ends
  // with its record (joined by it).
  void begin_phase(std::size_t i, RunRecord before, bool follows);
  PhaseHandover* handover(std::size_t i) const;  // phase I's, or none
  RunRecord finish_phase(std::size_t i);

  void ask_capabilities();  // once, at construction
  const SessionCapabilities& current_takes() const { return takes_[index_.load()]; }

  std::vector<std::unique_ptr<Session>> sessions_;
  std::vector<std::unique_ptr<Session>> background_;
  std::vector<SessionCapabilities> takes_, background_takes_;  // by session: what each opted into
  std::vector<std::size_t> background_from_;
  std::vector<std::unique_ptr<PhaseHandover>> handovers_;  // one per phase (or none)
  std::atomic<std::size_t> index_{0};
  PhaseClock clock_;
  mutable std::timed_mutex windows_mutex_;
  std::vector<PhaseWindow> windows_;              // one per phase when the list names them
  std::atomic<std::uint64_t> phase_launches_{0};  // the current phase's
  std::atomic<bool> first_launch_seen_{false};
  bool finished_ = false;
  std::thread completer_;                      // advance()'s: Session::complete_record, then on_handover
  std::atomic<bool> handed_over_{true};        // no hand-over pending
  std::optional<StallInfo> completed_stalls_;  // what complete() added, for the run's record
};

}  // namespace limiter::detail
