#pragma once
// What a session may take beyond Session's core (session.hpp), one small interface each. A session
// implements those it needs and returns pointers to itself in SessionCapabilities; the phase list
// (phases.hpp) hands each event only to the sessions that opted into it, and the subscriber enables
// a CUPTI callback only where some session did (Phases::callbacks).
#include <cuda.h>

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "collect/launch_call.hpp"
#include "collect/nvtx/nvtx_event.hpp"
#include "limiter/record.hpp"

namespace limiter::detail {

// A launch's EXIT, to every phase that opted in (the one that took its ENTER ends it: a phase may
// have ended inside that ENTER) and to the background sessions that did.
class LaunchExits {
 public:
  virtual void on_launch_exit(const LaunchCall& call) = 0;

 protected:
  ~LaunchExits() = default;
};

// The app waited for the GPU (a synchronisation, or a query that found the work done; at the
// call's EXIT): a moment to decode what is pending. To the current phase only.
class SyncPoints {
 public:
  virtual void on_sync(SyncKind kind) = 0;

 protected:
  ~SyncPoints() = default;
};

// Executable graphs created and destroyed, and the app's cuGraphDestroy; to every session that opted in.
class GraphEvents {
 public:
  virtual void on_graph_event(const GraphEvent& event) = 0;
  // The app's graphs are kept alive past its cuGraphDestroy (for node-by-node profiling).
  virtual bool keeps_graphs() const = 0;

 protected:
  ~GraphEvents() = default;
};

// Modules loaded (their cubins: PC sampling's source lines and SASS); to every session that opted in.
class ModuleLoads {
 public:
  virtual void on_module_loaded(const ModuleLoad& module) = 0;

 protected:
  ~ModuleLoads() = default;
};

// The app created a context (after cuInit, on the app's thread): to the current phase and the
// background, as launches go (a later phase prepares nothing before it begins).
class ContextCreation {
 public:
  virtual void on_context_created(CUcontext context) = 0;

 protected:
  ~ContextCreation() = default;
};

// The app's NVTX pushes, pops, starts and ends, stamped, on its thread: as launches go.
class NvtxCalls {
 public:
  virtual void on_nvtx(const NvtxEvent& event) = 0;

 protected:
  ~NvtxCalls() = default;
};

// Work that waits for a decode (the current phase's and the background's).
class PendingWork {
 public:
  // Decodes what is pending (synchronises).
  virtual void flush() = 0;
  // At the end of the process, waiting at most WAIT for another thread's launch; never throws:
  // false when launches were lost.
  virtual bool flush_before_exit(std::chrono::milliseconds wait) noexcept = 0;
  // Writes the raw data not yet on disk (--save-raw); no CUDA call (an exit handler's).
  virtual void write_raw_files() {}

 protected:
  ~PendingWork() = default;
};

// A phase that ends before the app does (budgets spent, a window over): checked at each launch's
// ENTER, and the next phase takes over.
class PhaseEnd {
 public:
  virtual bool phase_over() const = 0;
  // Why, in a few words for the record's phase window ("budgets spent", "window over").
  virtual std::string phase_over_reason() const = 0;

 protected:
  ~PhaseEnd() = default;
};

// The slow part of finish() that needs no CUDA call (a sampling window's source lines): added to
// the record finish() returned, on a thread of the phase list's while the next phase runs.
class SlowCompletion {
 public:
  virtual void complete_record(RunRecord& record) noexcept = 0;

 protected:
  ~SlowCompletion() = default;
};

// Records from the collector's start (in an injected process: inside the app's cuInit), not from
// the first launch: to the current phase and the background.
class CollectorStart {
 public:
  virtual void on_collector_started() = 0;

 protected:
  ~CollectorStart() = default;
};

// Runs beside the phases (the activity timeline).
class Background {
 public:
  // Phase INDEX has begun (told to the sessions that begin with it: PhaseList::background_from).
  virtual void on_phase_begun(std::size_t index) = 0;
  // The phases' record, with this session's part added; stops collecting. Never throws.
  virtual RunRecord finish_beside(RunRecord phases) noexcept = 0;

 protected:
  ~Background() = default;
};

// The kernels seen so far with their launch counts (`limiter run`'s status line).
class KernelTally {
 public:
  virtual std::vector<KernelSeen> kernels_seen() const = 0;

 protected:
  ~KernelTally() = default;
};

// A session's opt-ins: each a pointer to itself, or none.
struct SessionCapabilities {
  LaunchExits* launch_exits = nullptr;
  SyncPoints* sync_points = nullptr;
  GraphEvents* graphs = nullptr;
  ModuleLoads* modules = nullptr;
  ContextCreation* contexts = nullptr;
  NvtxCalls* nvtx = nullptr;
  PendingWork* pending = nullptr;
  PhaseEnd* phase_end = nullptr;
  SlowCompletion* completion = nullptr;
  CollectorStart* start = nullptr;
  Background* background = nullptr;
  KernelTally* kernels = nullptr;
};

// The driver callbacks the sessions need enabled (the union of their capabilities).
struct SessionCallbacks {
  bool launch_exit = false;    // launches' EXIT as well as their ENTER
  bool sync_points = false;    // synchronisations and successful queries
  bool graphs = false;         // executable graphs created and destroyed
  bool graph_destroy = false;  // the app's cuGraphDestroy (graphs kept for node-by-node profiling)
  bool modules = false;        // modules loaded
  bool contexts = false;       // contexts created
  bool nvtx = false;           // the app's NVTX range calls
};

}  // namespace limiter::detail
