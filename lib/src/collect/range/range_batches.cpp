// The range-profiler session of one context (CUPTI's documentation): a Range Profiler in auto range
// mode, started once and decoded after every launch (kernel replay) or every batch (user
// replay) — never Start/Stop per launch: that drops kernels on other streams and corrupted
// application memory on an H200. Also the turns on the GPU's counters between processes.
#include <cupti.h>

#include <cmath>
#include <cstdlib>
#include <string_view>
#include <thread>

#include "collect/cupti/cupti_check.hpp"
#include "collect/range/range_session.hpp"
#include "collect/range/user_range_work.hpp"
#include "limiter/user_range_time.hpp"

namespace limiter::detail {

thread_local bool inside_flush = false;  // set while flush_batch synchronises a context

// The replay mode follows the pass count. One pass needs no save/restore: user replay runs
// each kernel once and decodes batches at Stop (1.3-1.6 ms per launch on an H200, against ~52 ms
// with kernel replay; bench/results/). Several passes need kernel replay: CUPTI saves device
// memory and replays each kernel once per pass, decoding after every launch. Graph launches keep
// user replay (CUPTI gives graph kernels no auto range under it): their kernels are ranged node
// by node (graph_replay.cpp), as every launch after them (user_ranges.cpp).
// False when the process's turn on the counters did not come: the context stays paused.
bool RangeSession::start_profiler(ContextProfiler& p, std::size_t launches) {
  p.paused = true;
  if (!take_turn(p, launches)) return false;
  p.user_replay = wants_user_replay(p);
  // User-range mode (user_ranges.cpp) after a graph launch, and whenever selection filters
  // launches: then only the selected ones are ranged, and the unselected run at full speed
  // without pausing the profiler (a resume costs ~270 ms in PyTorch on an H100).
  // CollectorOptions::auto_range_for_filters keeps auto range under filters (the earlier behaviour).
  // --cache-control all: our flush kernel runs before each profiled launch, outside its range.
  p.user_range = p.user_replay && (p.graphs_launched || (budgets_.selector().filters() && !options.auto_range_for_filters) ||
                                   options.cache_control == "all");
  try {
    enable_profiler(p);
    configure_and_start(p);
  } catch (...) {
    end_turn(p);
    throw;
  }
  p.paused = false;
  return true;
}

// A paused context's profiler, started again for a launch; false when it cannot be (the
// LAUNCHES are counted as missed): no turn on the counters, or another tool holds them.
bool RangeSession::resume(ContextProfiler& p, std::size_t launches) {
  if (Clock::now() < p.busy_until) {
    miss(MissReason::counters_busy, launches);
    return false;
  }
  // The hardware may still be busy for a moment after the previous holder disabled its
  // profiler: tried a few times, backing off, before the launches are given up.
  auto backoff = std::chrono::milliseconds(5);
  for (int attempt = 0;; ++attempt) {
    try {
      return start_profiler(p, launches);
    } catch (const CuptiError& e) {
      if (p.profiler) {  // enabled but not started: give the object back before trying again
        backend.disable(p.profiler);
        p.profiler = nullptr;
      }
      if (e.status != CUPTI_ERROR_HARDWARE_BUSY) {
        LIMITER_TRACE("start failed: %s", e.what());
        if (!check_counter_availability(p)) throw;
        continue;  // once more, with the device's counter availability
      }
      LIMITER_TRACE("counters busy (attempt %d): %s", attempt + 1, e.what());
      ++times.busy_retries;
      if (attempt == kBusyAttempts - 1) break;
      std::this_thread::sleep_for(backoff);
      backoff *= 2;
    }
  }
  p.busy_until = Clock::now() + kBusyRetry;
  miss(MissReason::counters_busy, launches);
  return false;
}

void RangeSession::enable_profiler(ContextProfiler& p) {
  const auto started = Clock::now();
  p.profiler = backend.enable(p.context);
  p.image.assign(backend.counter_data_size(p.profiler, metrics, p.ranges_per_image), 0);
  reinitialize_image(p);
  times.enable_s += seconds_since(started);
}

void RangeSession::configure_and_start(ContextProfiler& p) {
  const auto started = Clock::now();
  RangeConfig config;
  config.config = &p.config;
  config.image = &p.image;
  config.user_range = p.user_range;
  config.user_replay = p.user_replay;
  config.ranges_per_pass = p.ranges_per_image;
  backend.set_config(p.profiler, config);
  const double set_config_s = seconds_since(started);
  times.set_config_s += set_config_s;
  const auto starting = Clock::now();
  backend.start(p.profiler);
  const double start_s = seconds_since(starting);
  times.start_s += start_s;
  LIMITER_TRACE("config %zu bytes, %zu passes, image %zu bytes, %s replay, %s range: SetConfig %.1f ms, Start %.1f ms",
                p.config.size(), p.passes, p.image.size(), p.user_replay ? "user" : "kernel",
                p.user_range ? "user" : "auto", set_config_s * 1e3, start_s * 1e3);
}

// User replay: the ranges of a batch become readable once its pass is submitted by Stop.
// Stop leaves the profiler stopped (stop_and_decode), started again only for the next launch it
// ranges (start_batch): a Start costs ~45 ms, 75-110 ms in a torchrun rank (H100/H200,
// 2026-11-26), and after a budget run's kernels are profiled no launch may need it again.
// A batch that cannot be stopped or started again pauses the context (its launches counted as
// missed, with the error): its next selected launch starts a new profiler object, where the
// old one would fail at every launch (--per-kernel-count 3 lost 487 launches so on an H200).
void RangeSession::flush_batch(ContextProfiler& p, bool restart) {
  if (p.retired || p.paused || !p.user_replay || p.stopped || (p.pending.empty() && restart)) return;
  if (!restart) return stop_and_decode(p);
  try {
    stop_and_decode(p);
  } catch (...) {
    try {
      stop_for_now(p);
    } catch (const std::exception&) {  // the same error, reported once by the caller
    }
    throw;
  }
}

void RangeSession::start_batch(ContextProfiler& p) {
  p.fresh = false;
  if (!p.stopped) return;
  try {
    configure_and_start(p);  // SetConfig (~0 ms on an H100) and Start
  } catch (...) {
    try {
      stop_for_now(p);  // disabled without a Stop: it is stopped
    } catch (const std::exception&) {  // the same error, reported once by the caller
    }
    throw;
  }
  p.stopped = false;
}

// Waits for the context first, so no kernel of the batch is still running at Stop.
void RangeSession::stop_and_decode(ContextProfiler& p) {
  LIMITER_TRACE("flush batch of %zu", p.pending.size());
  if (!p.pending.empty()) {
    const auto started = Clock::now();
    // The profiler's own context, whichever context the calling thread has current.
    inside_flush = true;
    try {
      backend.synchronize_context(p.context);
    } catch (...) {
      inside_flush = false;
      throw;
    }
    inside_flush = false;
    times.synchronize_s += seconds_since(started);
  }
  const auto started = Clock::now();
  backend.stop(p.profiler);
  p.stopped = true;  // also where the decode below fails: disabled without another Stop
  times.stop_s += seconds_since(started);
  ++times.batches;
  try {
    decode(p);
  } catch (const std::exception& e) {  // never matched to a later batch's ranges
    lose_batch(p, e.what());
    throw;
  }
  if (p.ranges_consumed > 0) {
    keep_raw_image(p);
    ++p.images_written;
    reinitialize_image(p);
  }
  report_status(false);
}


// Stops the context's profiler, decodes what it holds and disables it: the context's launches
// run unprofiled (and at full speed) until enable_profiler.
// A failed Stop loses the batch (its launches are counted as missed, with the error), and the
// object is disabled all the same: the context starts again with a new one at its next
// selected launch instead of failing at every launch.
void RangeSession::disable_profiler(ContextProfiler& p) {
  std::exception_ptr failure;
  try {
    if (p.user_replay) {
      flush_batch(p, /*restart=*/false);
    } else {
      bool stopped = true;
      try {
        backend.stop(p.profiler);
      } catch (const CuptiError& e) {  // nothing more to decode; the object is disabled below
        LIMITER_TRACE("Stop: %s", e.what());
        stopped = false;
      }
      if (stopped) decode(p);
      keep_raw_image(p);
      if (p.ranges_consumed > 0) ++p.images_written;
    }
  } catch (const std::exception& e) {
    lose_batch(p, e.what());
    failure = std::current_exception();
  }
  backend.disable(p.profiler);
  p.profiler = nullptr;
  p.stopped = false;
  p.fresh = false;
  if (failure) std::rethrow_exception(failure);
}

void RangeSession::lose_batch(ContextProfiler& p, const std::string& error) {
  std::uint64_t kept = 0;
  for (const auto& pending : p.pending) kept += pending.keep ? 1 : 0;
  p.pending.clear();
  if (kept) miss(MissReason::error, kept, error);
}

void RangeSession::reinitialize_image(ContextProfiler& p) {
  const auto started = Clock::now();
  backend.initialize_image(p.profiler, p.image);
  p.ranges_consumed = 0;
  times.image_init_s += seconds_since(started);
}

void RangeSession::keep_raw_image(ContextProfiler& p) {
  if (raw_dir.empty() || p.ranges_consumed == 0) return;
  write_raw_image(raw_dir, p.images_written, p.image);
}

void RangeSession::decode(ContextProfiler& p) {
  LIMITER_TRACE("decode, %zu pending", p.pending.size());
  auto started = Clock::now();
  const std::size_t dropped = backend.decode(p.profiler);
  times.decode_s += seconds_since(started);
  started = Clock::now();
  if (dropped > 0) {
    miss(MissReason::dropped, dropped);
    std::fprintf(stderr, "limiter: warning: CUPTI dropped %zu ranges (counter-data image full)\n", dropped);
  }
  const std::size_t total = p.host->range_count(p.image);
  if (p.user_range) {
    // User-range mode (user_ranges.cpp): ranges named by their launch's place in the batch, and
    // matched by name; ranges of names this batch did not push are left alone.
    std::vector<std::optional<std::size_t>> range_of(p.pending.size());
    for (std::size_t range = 0; range < total; ++range)
      if (const auto index = user_range_index(*p.host, p.image, range); index && *index < range_of.size())
        range_of[*index] = range;
    std::deque<PendingLaunch> unranged;
    for (std::size_t index = 0; index < range_of.size(); ++index) {
      if (range_of[index]) complete(p, std::move(p.pending[index]), *range_of[index]);
      else unranged.push_back(std::move(p.pending[index]));
    }
    p.pending = std::move(unranged);
  } else {
    for (std::size_t range = p.ranges_consumed; range < total; ++range) {
      if (p.pending.empty()) {
        // A kernel we saw no launch for (a graph instantiated before us): no metadata, not recorded.
        LIMITER_TRACE("range %zu has no launch", range);
        continue;
      }
      PendingLaunch pending = std::move(p.pending.front());
      p.pending.pop_front();
      complete(p, std::move(pending), range);
    }
  }
  p.ranges_consumed = total;
  times.evaluate_s += seconds_since(started);
  // A launch CUPTI did not range (a failed launch, a graph kernel) leaves pending
  // entries behind: they have no counters, so they are not launches of the record, but the
  // record says how many there were.
  // The ranges CUPTI dropped (counted above) are some of them: those launches are counted once.
  std::uint64_t unranged = 0;
  for (const auto& pending : p.pending) unranged += pending.keep ? 1 : 0;
  unranged -= std::min<std::uint64_t>(unranged, dropped);
  if (unranged) miss(MissReason::not_ranged, unranged);
  p.pending.clear();
  if (!p.user_replay && p.ranges_consumed >= p.ranges_per_image) {
    keep_raw_image(p);
    ++p.images_written;
    reinitialize_image(p);
  }
}

void RangeSession::complete(ContextProfiler& p, PendingLaunch&& pending, std::size_t range) {
  if (!pending.keep && !pending.measures_range_work) return;
  KernelLaunch launch = std::move(pending.launch);
  const auto values = p.host->evaluate(p.image, range, metrics);
  for (std::size_t i = 0; i < metrics.size(); ++i)
    if (!std::isnan(values[i])) launch.counters[metrics[i]] = values[i];
  if (pending.measures_range_work) return UserRanges::keep_range_work(p.range_work_ns, launch);
  launch.sequence = next_sequence++;
  if (on_launch_completed && pending.correlation_id) on_launch_completed(pending.correlation_id, launch.sequence);
  if (p.user_range) {  // the kernel's time, not the host's between push and pop, nor the profiler's
    if (p.range_work_ns) launch.counters[kRangeWorkCounter] = *p.range_work_ns;
    time_user_range(launch);
  }
  if (!raw_dir.empty()) append_raw_launch(raw_launches, launch, p.images_written, range);
  if (sink && sink->on_launch) sink->on_launch(launch);
  if (options.keep_launches) completed.push_back(std::move(launch));
}

void RangeSession::retire(ContextProfiler& p) {
  if (p.retired) return;
  const bool running = !p.paused;
  try {
    if (running) stop_for_now(p);
  } catch (...) {
    p.retired = true;
    throw;
  }
  p.retired = true;
}

void RangeSession::pause(ContextProfiler& p) {
  if (p.retired || p.paused) return;
  LIMITER_TRACE("pause context %p", static_cast<void*>(p.context));
  stop_for_now(p);
}

// Decodes and disables a running profiler, and ends the turn: the context is paused, also when
// its last batch failed (disable_profiler disabled the object all the same).
void RangeSession::stop_for_now(ContextProfiler& p) {
  try {
    disable_profiler(p);
  } catch (...) {
    p.paused = true;
    end_turn(p);
    throw;
  }
  p.paused = true;
  end_turn(p);
}

void RangeSession::flush_all(Clock::duration min_age) {
  std::lock_guard lock(mutex);
  const auto now = Clock::now();
  for (auto& [context, profiler] : contexts) {
    if (min_age > Clock::duration::zero() && now - profiler->oldest_pending < min_age) continue;
    flush_batch(*profiler);
    yield_if_others_wait(*profiler);  // the app waited for the GPU: a good moment to hand over
  }
}

}  // namespace limiter::detail
