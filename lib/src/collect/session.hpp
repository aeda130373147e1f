#pragma once
// One way of collecting (docs/design.md §4): the exact counters of selected launches
// (RangeSession), PM sampling (PmSamplingSession), and later activity records and PC sampling.
// The orchestrator (orchestrator.hpp) owns the CUPTI subscriber and the process's lifecycle,
// decodes each callback once into plain values (launch_call.hpp) and hands them to the session
// of the current phase (phases.hpp). A session never subscribes, never sees a CUPTI callback
// structure, and never includes another session's header.
#include <cuda.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "collect/launch_call.hpp"
#include "collect/nvtx/nvtx_event.hpp"
#include "limiter/record.hpp"

namespace limiter::detail {

// The driver callbacks a session needs enabled (the orchestrator subscribes to their union).
struct SessionCallbacks {
  bool launch_exit = false;     // launches' EXIT as well as their ENTER
  bool sync_points = false;     // synchronisations and successful queries
  bool graphs = false;          // executable graphs created and destroyed
  bool graph_destroy = false;   // the app's cuGraphDestroy (graphs kept for node-by-node profiling)
  bool modules = false;         // modules loaded (their cubins: PC sampling's source lines and SASS)
  bool contexts = false;        // contexts created (the exact session prepares their device ahead)
  bool nvtx = false;            // the app's NVTX range calls, stamped (on_nvtx; where options.nvtx)
};

class Session {
 public:
  virtual ~Session() = default;
  virtual const char* name() const = 0;
  virtual SessionCallbacks callbacks() const = 0;

  // The collector subscribed (in an injected process: inside the app's cuInit): a session that
  // records from the very start (activity records with always_active) begins here.
  virtual void on_collector_started() {}

  // Profiled regions (Collector::start/stop, cudaProfilerStart/Stop): launches outside run unprofiled.
  virtual void begin_region() = 0;
  virtual void end_region() = 0;

  // A launch, at ENTER (profile it, count it or let it run) and at EXIT.
  virtual void on_launch(const LaunchCall& call) = 0;
  virtual void on_launch_exit(const LaunchCall& /*call*/) {}
  // The app waited for the GPU (at the call's EXIT): a moment to decode what is pending.
  virtual void on_sync(SyncKind /*kind*/) {}
  virtual void on_graph_event(const GraphEvent& /*event*/) {}
  virtual void on_module_loaded(const ModuleLoad& /*module*/) {}
  // An NVTX push, pop, start or end of the app, on its thread (SessionCallbacks::nvtx).
  virtual void on_nvtx(const NvtxEvent& /*event*/) {}
  // The app created a context (the resource callback, on the app's thread, after cuInit).
  virtual void on_context_created(CUcontext /*context*/) {}
  // The app destroys a context: what the session holds of it is finished while it exists.
  virtual void on_context_destroy(CUcontext context) = 0;

  // Decodes what is pending (synchronises); at the end of the process, waiting at most WAIT for
  // another thread's launch, and never throwing: false when launches were lost.
  virtual void flush() {}
  virtual bool flush_before_exit(std::chrono::milliseconds /*wait*/) noexcept { return true; }
  // Writes the raw data not yet on disk (--save-raw); no CUDA call (an exit handler's).
  virtual void write_raw_files() {}

  // The phase before this one ended and handed its record over; FOLLOWS is false when the app
  // ended first (this session never runs, but its record says so).
  virtual void begin_after(RunRecord before, bool follows) = 0;
  // The phase's work is done (budgets spent, a launch count reached): the next phase takes over.
  virtual bool phase_over() const { return false; }
  // Why, in a few words for the record's phase window ("budgets spent", "window over").
  virtual std::string phase_over_reason() const { return "its work done"; }
  // A background session: phase INDEX has begun (Phases::advance).
  virtual void on_phase_begun(std::size_t /*index*/) {}
  // The record so far, with what the phases before handed over; stops collecting. Never throws.
  virtual RunRecord finish() noexcept = 0;
  // The slow part of finish() that needs no CUDA call (a sampling window's source lines): added to
  // the record it returned, on a thread of the orchestrator's, while the next phase runs. Never throws.
  virtual void complete_record(RunRecord& /*record*/) noexcept {}
  // A session that runs beside the phases (activity records; Phases' background): the phases'
  // record, with its part added; stops collecting. Never throws.
  virtual RunRecord finish_beside(RunRecord phases) noexcept { return phases; }

  // While it runs (safe in a signal handler: they give up rather than wait).
  virtual std::vector<MissedLaunches> missed() const = 0;
  virtual std::uint64_t launches_seen() const = 0;
  virtual std::vector<KernelSeen> kernels_seen() const { return {}; }
  // Where its host time went (`limiter run --timing`): a few lines.
  virtual std::string timings() const = 0;
};

}  // namespace limiter::detail
