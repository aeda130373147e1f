// Launch metadata from the driver's launch callbacks: names, configuration, resources, stream
// and context, graph nodes; which launches are selected; each selected launch queued for the
// range that CUPTI gives it. The ENTER callback takes the collector's lock and EXIT gives it
// back, so a launch and its range are never split by another thread's.
#include <sys/resource.h>
#include <time.h>

#include "collect/range/range_session.hpp"

namespace limiter::detail {
thread_local bool holds_launch_lock = false;
extern thread_local bool inside_flush;
extern thread_local bool inside_graph_replay;
thread_local Clock::time_point launch_call_start;  // when our ENTER callback handed back to the driver
// The launching thread's CPU time and voluntary switches then: is CUPTI's range work busy, or waiting?
thread_local double launch_call_cpu_start = 0;
thread_local long launch_call_switches_start = 0;

double thread_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

long thread_voluntary_switches() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return usage.ru_nvcsw;
}

// Our ENTER work is done: the driver's launch (with CUPTI's range work) starts, timed to EXIT.
void hand_over_launch() {
  launch_call_cpu_start = thread_cpu_seconds();
  launch_call_switches_start = thread_voluntary_switches();
  launch_call_start = Clock::now();
}

KernelInfo RangeSession::kernel_info_of(CUfunction function, CUcontext context, const char* mangled_name) {
  const char* mangled = mangled_name ? mangled_name : "";
  {
    std::lock_guard lock(kernel_info_mutex);
    auto it = kernel_info.find({function, context});
    if (it != kernel_info.end() && it->second.mangled_name == mangled) return it->second;
  }
  KernelInfo info;
  info.mangled_name = mangled;
  info.name = demangle(mangled_name, "(unknown kernel)");
  info.resources = backend.kernel_attributes(function);
  backend.load_function(function);
  std::lock_guard lock(kernel_info_mutex);
  kernel_info[{function, context}] = info;
  return info;
}

// The kernels a launch runs, with their metadata: one, or a graph's kernel nodes.
std::vector<PendingLaunch> RangeSession::launches_of(const LaunchCall& call, GraphExec*& graph) {
  std::vector<PendingLaunch> launches;
  if (call.is_graph()) {
    if (GraphExec* found = graphs_.find(call.graph)) {
      graph = found;
      for (const auto& node : graph->nodes)
        if (node.kernel) launches.push_back({*node.kernel, false, false, call.correlation_id});
    }
    return launches;
  }
  PendingLaunch pending;
  pending.correlation_id = call.correlation_id;
  auto info = kernel_info_of(call.function, call.context, call.symbol_name);
  pending.launch.mangled_name = std::move(info.mangled_name);
  pending.launch.name = std::move(info.name);
  pending.launch.grid = call.grid;
  pending.launch.block = call.block;
  pending.launch.dynamic_shared_bytes = call.dynamic_shared_bytes;
  pending.launch.registers_per_thread = info.resources.registers;
  pending.launch.static_shared_bytes = static_cast<std::uint64_t>(info.resources.static_shared);
  pending.launch.local_bytes_per_thread = static_cast<std::uint64_t>(info.resources.local);
  launches.push_back(std::move(pending));
  return launches;
}

void RangeSession::on_launch(const LaunchCall& call) {
  // Our own launches of a graph's nodes (graph_replay.cpp): the lock is ours already.
  if (inside_graph_replay) return;
  LIMITER_TRACE("launch enter %s", call.symbol_name ? call.symbol_name : (call.is_graph() ? "graph" : "?"));
  // Outside a profiled region the context's profiler is paused (disabled): nothing to follow.
  if (!active() || budgets_.spent()) return;
  try {
    const auto entered = Clock::now();
    GraphExec* graph = nullptr;
    std::vector<PendingLaunch> launches;
    {
      // The graph execs change under the lock (resource callbacks); kernel metadata is read outside it.
      if (call.is_graph()) {
        std::lock_guard lock(mutex);
        launches = launches_of(call, graph);
      } else {
        launches = launches_of(call, graph);
      }
    }
    // Launches into a capturing stream are not executions; touching them breaks the capture.
    if (backend.stream_capturing(call.stream)) return;
    // The NVTX ranges around the launch, on its own thread, before the lock.
    std::optional<NvtxRanges> ranges;
    if (options.nvtx && nvtx.seen()) {
      ranges = nvtx.current();
      const auto paths = nvtx_paths(*ranges);
      for (auto& pending : launches) pending.launch.nvtx = paths;
    }
    LIMITER_TRACE("metadata done, %zu kernels", launches.size());
    mutex.lock();
    holds_launch_lock = true;
    launch_call_start = Clock::now();  // replaced below once our work is done
    const auto existing = contexts.find(call.context);
    const bool running = existing != contexts.end() && !existing->second->paused && !existing->second->retired &&
                         !existing->second->fresh;
    const bool user_range = running && existing->second->user_range;
    const auto decision = budgets_.decide(launches, ranges ? &*ranges : nullptr, {running, user_range});
    times.host_timed_launches += decision.host_timed;
    launches_seen_ += launches.size();
    // An exec instantiated before we subscribed (an in-process region after the app's warm-up):
    // its nodes are unknown, so its kernels run unprofiled; the record says so, launch by launch.
    if (call.is_graph() && !graph) miss(MissReason::graph_unknown, 1);
    const std::size_t selected = decision.selected;
    if (decision.next == LaunchBudgets::Next::pause || decision.next == LaunchBudgets::Next::end_phase) {
      LIMITER_TRACE("%llu unselected launches in a row: pausing",
                    static_cast<unsigned long long>(kPauseAfterUnselected));
      ++times.filter_pauses;
      if (decision.next == LaunchBudgets::Next::end_phase) {
        // The session ends where a budget run would pause: the next phase from the next launch on.
        LIMITER_TRACE("per-kernel budgets spent: exact phase over, %zu launches", completed.size());
        retire_all();
        budgets_.spend(running);
        return;  // EXIT releases the lock
      }
      batches_.pause(*existing->second);
      return;  // EXIT releases the lock
    }
    if (!running && selected == 0) return;  // EXIT releases the lock
    profile_launches(call, graph, launches, selected, entered);
  } catch (const std::exception& e) {
    // A callback cannot throw into the driver: reported, counted, and the app runs on unprofiled.
    std::fprintf(stderr, "limiter: profiling error: %s\n", e.what());
    if (holds_launch_lock) miss(MissReason::error, 1, e.what());  // EXIT releases the lock
  }
}

void RangeSession::profile_launches(const LaunchCall& call, GraphExec* graph, std::vector<PendingLaunch>& launches,
                                    std::size_t selected, const Clock::time_point& entered) {
  const bool first = contexts.find(call.context) == contexts.end();
  ContextProfiler* profiler = context_profiler(call.context, selected);
  const double set_up = first ? seconds_since(entered) : 0.0;
  times.set_up_s += set_up;
  if (!profiler || profiler->retired) return;  // EXIT releases the lock
  const std::uint64_t stream_id = backend.stream_id(call.stream);
  const std::uint64_t context_id = backend.context_id(call.context);
  times.metadata_s += seconds_since(entered) - set_up;
  yield_if_others_wait(*profiler);                                        // after a fair turn, another process's
  if (profiler->paused && !batches_.resume(*profiler, selected)) return;  // a new region, or a new turn
  if (selected == 0 && profiler->user_range)
    ++times.unranged_launches;
  else
    ++times.launches;
  for (auto& pending : launches) {
    pending.launch.stream_id = stream_id;
    pending.launch.context_id = context_id;
    pending.launch.device = static_cast<int>(profiler->device);
  }
  if (graph && profiler->user_replay) {
    // Graph kernels get no auto range under user replay: profiled node by node, or as one
    // range; a graph launch with nothing selected runs at full speed, but not inside an
    // auto-range session: under --per-kernel-count 3 graph launches with nothing selected ran
    // in one, and its Stop then failed with CUPTI_ERROR_UNKNOWN (H100, 2026-11-24). So the
    // context goes to user-range mode at its first graph launch, selected or not.
    if (selected > 0)
      profile_graph_launch(*profiler, *graph, call.stream, call.per_thread_stream, launches);
    else
      enter_user_range_mode(*profiler);
    hand_over_launch();
    return;  // EXIT finishes the launch and releases the lock
  }
  if (profiler->user_replay && !profiler->pending.empty()) {
    // A full batch, or one whose first launch completed long ago: decoded before this launch.
    const bool full = profiler->pending.size() + launches.size() > profiler->ranges_per_image;
    if (full || Clock::now() - profiler->oldest_pending >= kMaxBatchAge) batches_.flush(*profiler);
  }
  if (profiler->user_range) {
    // User-range mode (from the context's first graph launch on): a selected
    // launch in its own range, closed at EXIT; an unselected one runs unranged.
    if (selected > 0) open_launch_range(*profiler, call.stream, call.per_thread_stream, std::move(launches.front()));
    hand_over_launch();
    return;  // EXIT closes the range and releases the lock
  }
  // Auto range ranges every launch of a started profiler; a stopped one starts only for a
  // selected launch, and an unselected one runs unranged.
  if (!profiler->stopped || selected > 0) {
    batches_.start(*profiler);
    if (profiler->pending.empty()) profiler->oldest_pending = Clock::now();
    for (auto& pending : launches) profiler->pending.push_back(std::move(pending));
  }
  hand_over_launch();
}

void RangeSession::on_launch_exit(const LaunchCall& call) {
  if (!holds_launch_lock || inside_graph_replay) return;
  try {
    times.launch_call_s += seconds_since(launch_call_start);
    if (launch_call_cpu_start > 0) {  // set only where the launch was handed to a profiler
      times.launch_call_cpu_s += thread_cpu_seconds() - launch_call_cpu_start;
      times.launch_call_switches +=
          static_cast<std::uint64_t>(thread_voluntary_switches() - launch_call_switches_start);
      launch_call_cpu_start = 0;
    }
    finish_launch(call.failed);  // a graph's nodes enabled again, a user range closed
    auto it = contexts.find(call.context);
    if (it != contexts.end() && !it->second->retired && !it->second->paused) {
      if (!it->second->user_replay) batches_.decode(*it->second);
      // Once --count launches are profiled, stop the profiler: the rest of the app runs at speed.
      if (budgets_.selector().exhausted() && (it->second->user_replay || it->second->pending.empty()))
        batches_.retire(*it->second);
    }
    report_status(false);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "limiter: profiling error: %s\n", e.what());
    miss(MissReason::error, 1, e.what());
  }
  holds_launch_lock = false;
  mutex.unlock();
}

}  // namespace limiter::detail
