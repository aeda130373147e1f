#pragma once
// The collector's modes as lists of phases, each phase a session (DESIGN.md §4). Every
// combination of options is decided here, once:
//   exact (budgets, skip, -k, capture ranges)  [RangeSession]
//   --sampling                                 [PmSamplingSession]
//   --sampling --per-kernel-count K            [RangeSession until the budgets are spent, PmSamplingSession]
//   --sampling --exact-undecided K             [PmSamplingSession for N launches, RangeSession on what the
//                                               samples left undecided]
//   --trace                                    [ActivitySession]: the timeline alone, the cheapest mode
//   --stalls                                   [PcSamplingSession]: warp stall reasons per kernel and PC
// Beside the phases, in the background: the ActivitySession (the timeline) in every list without
// PM sampling. It sees every launch and adds the timeline to the last phase's record
// (Session::finish_beside). Not beside PmSamplingSession: its kernel timestamps use the
// Activity API too, whose buffer callbacks are one per process (activity_session.hpp).
// A phase ends when its session says so (Session::phase_over, checked at each launch's ENTER);
// its record is handed to the next phase's session (Session::begin_after), and the last phase's
// record is the run's.
#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>

#include "collect/range_backend.hpp"
#include "collect/session.hpp"
#include "limiter/collector_options.hpp"

namespace limiter::detail {

class NvtxTracker;
struct LaunchSink;

// A mode: its phases in order, and the sessions that run beside them from start to end.
struct PhaseList {
  std::vector<std::unique_ptr<Session>> phases, background;
};

class Phases {
 public:
  Phases() = default;
  explicit Phases(std::vector<std::unique_ptr<Session>> sessions) : sessions_(std::move(sessions)) {}
  explicit Phases(PhaseList list) : sessions_(std::move(list.phases)), background_(std::move(list.background)) {}

  Session& current() { return *sessions_[index_.load()]; }
  std::size_t index() const { return index_.load(); }
  std::size_t size() const { return sessions_.size(); }
  Session& at(std::size_t i) { return *sessions_[i]; }
  const Session& at(std::size_t i) const { return *sessions_[i]; }
  bool last() const { return index_.load() + 1 >= sessions_.size(); }
  std::size_t background_size() const { return background_.size(); }
  Session& background(std::size_t i) { return *background_[i]; }
  const Session& background(std::size_t i) const { return *background_[i]; }
  // The current phase is over: its record goes to the next, which becomes current.
  void advance();
  // The run ends: the current phase's record, through every later phase (told it never ran),
  // then through the background sessions.
  RunRecord finish();
  SessionCallbacks callbacks() const;  // the union of the sessions'

 private:
  std::vector<std::unique_ptr<Session>> sessions_;
  std::vector<std::unique_ptr<Session>> background_;
  std::atomic<std::size_t> index_{0};
};

// The mode of OPTIONS (validated): its phases, in order, and its background, on BACKEND, NVTX and SINK.
PhaseList sessions_for(const CollectorOptions& options, RangeBackend& backend,
                                                   NvtxTracker& nvtx, LaunchSink* sink);

}  // namespace limiter::detail
