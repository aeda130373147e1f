#pragma once
// The collector's modes as lists of phases, each phase a session (DESIGN.md §4). Every
// combination of options is decided here, once:
//   exact (budgets, skip, -k, capture ranges)  [RangeSession]
//   --sampling                                 [PmSamplingSession]
//   --sampling --per-kernel-count K            [RangeSession until the budgets are spent, PmSamplingSession]
//   --sampling --exact-undecided K             [PmSamplingSession for N launches, RangeSession on what the
//                                               samples left undecided]
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

class Phases {
 public:
  Phases() = default;
  explicit Phases(std::vector<std::unique_ptr<Session>> sessions) : sessions_(std::move(sessions)) {}

  Session& current() { return *sessions_[index_.load()]; }
  std::size_t index() const { return index_.load(); }
  std::size_t size() const { return sessions_.size(); }
  Session& at(std::size_t i) { return *sessions_[i]; }
  const Session& at(std::size_t i) const { return *sessions_[i]; }
  bool last() const { return index_.load() + 1 >= sessions_.size(); }
  // The current phase is over: its record goes to the next, which becomes current.
  void advance();
  // The run ends: the current phase's record, through every later phase (told it never ran).
  RunRecord finish();
  SessionCallbacks callbacks() const;  // the union of the sessions'

 private:
  std::vector<std::unique_ptr<Session>> sessions_;
  std::atomic<std::size_t> index_{0};
};

// The phase list for OPTIONS (validated): its sessions, in order, on BACKEND, NVTX and SINK.
std::vector<std::unique_ptr<Session>> sessions_for(const CollectorOptions& options, RangeBackend& backend,
                                                   NvtxTracker& nvtx, LaunchSink* sink);

}  // namespace limiter::detail
