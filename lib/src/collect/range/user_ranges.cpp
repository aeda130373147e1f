// User ranges (user replay): from a context's first graph launch on, and from the start when
// selection filters launches (budgets, sampling, -k, NVTX), so that unselected launches are not
// ranged at all. Under user replay CUPTI gives graph kernels no auto range, so a context that
// launches a graph goes to user-range mode once, with a new profiler object (SetConfig after a
// Stop kept auto range on an H100), and stays there: a range is pushed around every selected
// launch, eager or graph node (graph_replay.cpp). Switching back to auto range for eager
// launches cost a new profiler object each way (~200 ms each under torch.compile on an H200:
// 763 ms per step; 6 ms staying). Ranges are named by their launch's place in the batch,
// because CUPTI summed two pushes of one name into one range (H100), and decode() matches them
// by name.
//
// Measured on an H100 (bench/results/2026-11-23-graphs.md): counts (instructions, sectors) equal
// auto range and kernel replay exactly; times do not. A user range lasts from PushRange to
// PopRange on the GPU, so it includes the host's work in between: +9 to +25 us on a 3.6 us
// kernel, milliseconds when the launch loads a module (a kernel's first launch). PushRange and
// PopRange cost ~0.9 ms together, and the work between them waits for the GPU: a stream held
// back on a host flag until after PopRange stalled until a watchdog let it go, so the host's
// share cannot be taken out that way. No synchronise is needed before PopRange
// (LIMITER_RANGE_SYNC=graph|all adds one; the counts were the same).
#include <charconv>
#include <cstring>

#include "collect/range/range_session.hpp"
#include "collect/range/user_range_work.hpp"
#include "limiter/user_range_time.hpp"

namespace limiter::detail {

RangeSync range_sync_of(const std::string& name) {
  if (name == "graph") return RangeSync::graph;
  if (name == "all") return RangeSync::all;
  return RangeSync::none;
}

std::optional<std::size_t> user_range_index(CounterHost& host, const std::vector<std::uint8_t>& image,
                                            std::size_t range) {
  const auto text = host.range_name(image, range);
  if (!text) return std::nullopt;
  const std::string_view name = *text;
  std::size_t index = 0;
  const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), index);
  if (error != std::errc() || end != name.data() + name.size()) return std::nullopt;
  return index;
}

void UserRanges::push(RangeObject* profiler, std::size_t place) {
  const auto started = Clock::now();
  backend_.push_range(profiler, std::to_string(place));
  ++times_.user_ranges;
  times_.push_pop_s += seconds_since(started);
}

void UserRanges::flush_caches(CUcontext context, CUstream stream, bool per_thread_stream) {
  if (!flush_caches_) return;
  const auto started = Clock::now();
  backend_.flush_l2(context, stream, per_thread_stream);
  ++times_.l2_flushes;
  times_.l2_flush_s += seconds_since(started);
}

void UserRanges::pop(RangeObject* profiler, CUstream stream, bool per_thread_stream, bool synchronize) {
  if (synchronize) {
    const auto started = Clock::now();
    backend_.synchronize_stream(stream, per_thread_stream);
    times_.range_sync_s += seconds_since(started);
  }
  const auto started = Clock::now();
  backend_.pop_range(profiler);
  times_.push_pop_s += seconds_since(started);
}

PendingLaunch UserRanges::empty_range(RangeObject* profiler, std::size_t place) {
  push(profiler, place);
  pop(profiler, nullptr, false, false);
  PendingLaunch empty;
  empty.measures_range_work = true;
  return empty;
}

bool UserRanges::measured(const std::deque<PendingLaunch>& pending) {
  return std::any_of(pending.begin(), pending.end(),
                     [](const PendingLaunch& entry) { return entry.measures_range_work; });
}

void UserRanges::keep_range_work(std::optional<double>& range_work_ns, const KernelLaunch& empty) {
  const auto active_ns = engine_active_ns(empty);
  if (!active_ns) return;  // a plan without the engine counters: nothing to take out
  if (!range_work_ns || *active_ns < *range_work_ns) range_work_ns = *active_ns;
  LIMITER_TRACE("empty range: engine active %.0f ns (kept %.0f ns)", *active_ns, *range_work_ns);
}

// The session's side: a range pushed on the context's started profiler, for the batch's next launch.
void RangeSession::push_range(ContextProfiler& p) {
  batches_.start(p);  // the callers start it first (see measure_range_work): this only makes sure
  ranges_.push(p.profiler, p.pending.size());
}

void RangeSession::open_launch_range(ContextProfiler& p, CUstream stream, bool per_thread_stream,
                                     PendingLaunch&& launch) {
  measure_range_work(p);
  if (p.pending.empty()) p.oldest_pending = Clock::now();
  ranges_.flush_caches(p.context, stream, per_thread_stream);
  push_range(p);
  in_flight = {};
  in_flight.profiler = &p;
  in_flight.stream = stream;
  in_flight.per_thread_stream = per_thread_stream;
  in_flight.range_open = true;
  in_flight.sync_before_pop = ranges_.syncs_launch_ranges();
  in_flight.pending_index = p.pending.size();
  p.pending.push_back(std::move(launch));
}

// Measured on an H100 (bench/results/2026-11-24-graphs-default.md): an empty range keeps the
// engine active ~1.9 us, and taking that out brings a 3.6 us kernel's eager user range from
// 6.2 to 4.0 us (p50). A graph node keeps more: the graph launch's own front-end work. An empty
// graph launch (every node disabled) kept the engine active 5.7-6.6 us, more than a node adds
// to its kernel, because the kernel overlaps that work: taken out, a 3.6 us node read 2.6 us.
// So only the empty range's work, which does not overlap the kernel, is taken out of any range.
void RangeSession::measure_range_work(ContextProfiler& p) {
  if (UserRanges::measured(p.pending)) return;
  if (p.pending.size() + 2 > p.ranges_per_image) batches_.flush(p);  // room for it and the launch's range
  batches_.start(p);  // before the batch's age starts: a Start may take hundreds of ms
  if (p.pending.empty()) p.oldest_pending = Clock::now();
  p.pending.push_back(ranges_.empty_range(p.profiler, p.pending.size()));
}

void RangeSession::finish_launch(bool failed) {
  const auto done = in_flight;
  in_flight = {};
  if (done.nodes_disabled) {  // graph replay left the exec's nodes off (graph_replay.cpp)
    const auto toggled = Clock::now();
    graphs_.enable_runnable_nodes(*done.graph);
    times.graph_toggle_s += seconds_since(toggled);
  }
  if (!done.range_open) return;
  ContextProfiler& p = *done.profiler;
  ranges_.pop(p.profiler, done.stream, done.per_thread_stream, done.sync_before_pop);
  // A launch that failed ran nothing: its range is decoded, and dropped.
  if (failed && done.pending_index < p.pending.size()) p.pending[done.pending_index].keep = false;
}

}  // namespace limiter::detail
