#pragma once
// User ranges, a part of the exact session (range_session.hpp; why and what was measured:
// user_ranges.cpp): a range pushed and popped around a launch, named by the launch's place in its
// batch; the batch's empty range, whose engine-active time is the profiler's own work in any
// range; and --cache-control all's L2 flush before the launch whose range is pushed next.
#include <cuda.h>

#include <deque>
#include <optional>
#include <string>

#include "collect/range/range_timings.hpp"
#include "collect/range/range_types.hpp"

namespace limiter::detail {

class UserRanges {
 public:
  // FLUSH_CACHES: --cache-control all. SYNC: when a range is closed (CollectorOptions::range_sync).
  // TIMES: where the time of pushes, pops, syncs and flushes is counted (the session's).
  UserRanges(RangeBackend& backend, RangeTimings& times, bool flush_caches, RangeSync sync)
      : backend_(backend), times_(times), flush_caches_(flush_caches), sync_(sync) {}

  // A range pushed on PROFILER (started) for the launch at PLACE in the batch: its name.
  void push(RangeObject* profiler, std::size_t place);
  // The open range popped; after the stream's work where SYNCHRONIZE.
  void pop(RangeObject* profiler, CUstream stream, bool per_thread_stream, bool synchronize);
  // --cache-control all: L2 emptied of the app's data before the next work on STREAM.
  void flush_caches(CUcontext context, CUstream stream, bool per_thread_stream);
  // The batch's empty range at PLACE, pushed and popped with nothing between: its batch entry.
  PendingLaunch empty_range(RangeObject* profiler, std::size_t place);
  // Whether the batch holds its empty range already.
  static bool measured(const std::deque<PendingLaunch>& pending);
  // Decoded: an empty range's engine-active time, kept in RANGE_WORK_NS where it is the shortest
  // so far (what is taken out is never more than the profiler's work in any range).
  static void keep_range_work(std::optional<double>& range_work_ns, const KernelLaunch& empty);
  // Whether an eager launch's range, and a graph's, is closed after a stream synchronise.
  bool syncs_launch_ranges() const { return sync_ == RangeSync::all; }
  bool syncs_graph_ranges() const { return sync_ != RangeSync::none; }

 private:
  RangeBackend& backend_;
  RangeTimings& times_;
  bool flush_caches_;
  RangeSync sync_;
};

}  // namespace limiter::detail
