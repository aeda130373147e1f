#pragma once
// One way of collecting (docs/design.md §4): the exact counters of selected launches
// (RangeSession), PM sampling (PmSamplingSession), PC sampling (PcSamplingSession), activity
// records (ActivitySession), or none (TimelinePhase). The orchestrator (orchestrator.hpp) owns the
// CUPTI subscriber and the process's lifecycle, decodes each callback once into plain values
// (launch_call.hpp) and hands them, through the phase list (phases.hpp), to the sessions that
// take them. A session never subscribes, never sees a CUPTI callback structure, and never
// includes another session's header.
//
// Every session takes what Session declares: regions, launches' ENTER, a context's end, and its
// record. Anything more it opts into through capabilities() (session_capabilities.hpp): the
// subscriber enables only the callbacks some session asked for, and each event goes only to the
// sessions that opted into it.
#include <cuda.h>

#include <cstdint>
#include <string>
#include <vector>

#include "collect/launch_call.hpp"
#include "collect/session_capabilities.hpp"
#include "limiter/record.hpp"

namespace limiter::detail {

class Session {
 public:
  virtual ~Session() = default;
  virtual const char* name() const = 0;
  // What it takes beyond this interface (pointers to itself, or none); asked once, when the
  // phase list is built.
  virtual SessionCapabilities capabilities() { return {}; }

  // Profiled regions (Collector::start/stop, cudaProfilerStart/Stop): launches outside run unprofiled.
  virtual void begin_region() = 0;
  virtual void end_region() = 0;
  // A launch's ENTER (profile it, count it or let it run): to the current phase and the background.
  virtual void on_launch(const LaunchCall& call) = 0;
  // The app destroys a context: what the session holds of it is finished while it exists.
  virtual void on_context_destroy(CUcontext context) = 0;

  // The phase before this one ended and handed its record over; FOLLOWS is false when the app
  // ended first (this session never runs, but its record says so).
  virtual void begin_after(RunRecord before, bool follows) = 0;
  // The record so far, with what the phases before handed over; stops collecting. Never throws.
  virtual RunRecord finish() noexcept = 0;

  // While it runs (safe in a signal handler: they give up rather than wait).
  virtual std::vector<MissedLaunches> missed() const = 0;
  virtual std::uint64_t launches_seen() const = 0;
  // Where its host time went (`limiter run --timing`): a few lines.
  virtual std::string timings() const = 0;
};

}  // namespace limiter::detail
