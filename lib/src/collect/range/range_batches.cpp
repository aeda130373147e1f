// The range-profiler session of one context (CUPTI's documentation): a Range Profiler in auto range
// mode, started once and decoded after every launch (kernel replay) or every batch (user
// replay) — never Start/Stop per launch: that drops kernels on other streams and corrupted
// application memory on an H200 (range_batches.hpp).
#include <cupti.h>

#include <cmath>
#include <cstdlib>
#include <string_view>
#include <thread>

#include "collect/collector_internal.hpp"

#include "collect/cupti/cupti_check.hpp"
#include "collect/range/range_batches.hpp"
#include "collect/range/user_range_work.hpp"
#include "collect/trace.hpp"
#include "limiter/user_range_time.hpp"

namespace limiter::detail {

thread_local bool inside_flush = false;  // set while a flush synchronises a context

// The replay mode follows the pass count. One pass needs no save/restore: user replay runs
// each kernel once and decodes batches at Stop (1.3-1.6 ms per launch on an H200, against ~52 ms
// with kernel replay; bench/results/). Several passes need kernel replay: CUPTI saves device
// memory and replays each kernel once per pass, decoding after every launch. Graph launches keep
// user replay (CUPTI gives graph kernels no auto range under it): their kernels are ranged node
// by node (graph_replay.cpp), as every launch after them (user_ranges.cpp).
// False when the process's turn on the counters did not come: the context stays paused.
bool RangeBatches::start_profiler(ContextProfiler& p, std::size_t launches) {
  p.paused = true;
  if (!events_.take_turn(p, launches)) return false;
  p.user_replay = wants_user_replay(p);
  // User-range mode (user_ranges.cpp) after a graph launch, and whenever selection filters
  // launches: then only the selected ones are ranged, and the unselected run at full speed
  // without pausing the profiler (a resume costs ~270 ms in PyTorch on an H100).
  // CollectorOptions::auto_range_for_filters keeps auto range under filters (the earlier behaviour).
  // --cache-control all: our flush kernel runs before each profiled launch, outside its range.
  p.user_range = p.user_replay && (p.graphs_launched || ranges_selected_only_);
  try {
    enable_profiler(p);
    configure_and_start(p);
  } catch (...) {
    events_.end_turn(p);
    throw;
  }
  p.paused = false;
  return true;
}

// A paused context's profiler, started again for a launch; false when it cannot be (the
// LAUNCHES are counted as missed): no turn on the counters, or another tool holds them.
bool RangeBatches::resume(ContextProfiler& p, std::size_t launches) {
  if (Clock::now() < p.busy_until) {
    events_.miss(MissReason::counters_busy, launches);
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
        backend_.disable(p.profiler);
        p.profiler = nullptr;
      }
      if (e.status != CUPTI_ERROR_HARDWARE_BUSY) {
        LIMITER_TRACE("start failed: %s", e.what());
        if (!events_.rebuild_config(p)) throw;
        continue;  // once more, with the device's counter availability
      }
      LIMITER_TRACE("counters busy (attempt %d): %s", attempt + 1, e.what());
      ++times_.busy_retries;
      if (attempt == kBusyAttempts - 1) break;
      std::this_thread::sleep_for(backoff);
      backoff *= 2;
    }
  }
  p.busy_until = Clock::now() + kBusyRetry;
  events_.miss(MissReason::counters_busy, launches);
  return false;
}

void RangeBatches::enable_profiler(ContextProfiler& p) {
  const auto started = Clock::now();
  p.profiler = backend_.enable(p.context);
  p.image.assign(backend_.counter_data_size(p.profiler, metrics_, p.ranges_per_image), 0);
  reinitialize_image(p);
  times_.enable_s += seconds_since(started);
}

void RangeBatches::configure_and_start(ContextProfiler& p) {
  const auto started = Clock::now();
  RangeConfig config;
  config.config = &p.config;
  config.image = &p.image;
  config.user_range = p.user_range;
  config.user_replay = p.user_replay;
  config.ranges_per_pass = p.ranges_per_image;
  backend_.set_config(p.profiler, config);
  const double set_config_s = seconds_since(started);
  times_.set_config_s += set_config_s;
  const auto starting = Clock::now();
  backend_.start(p.profiler);
  const double start_s = seconds_since(starting);
  times_.start_s += start_s;
  LIMITER_TRACE("config %zu bytes, %zu passes, image %zu bytes, %s replay, %s range: SetConfig %.1f ms, Start %.1f ms",
                p.config.size(), p.passes, p.image.size(), p.user_replay ? "user" : "kernel",
                p.user_range ? "user" : "auto", set_config_s * 1e3, start_s * 1e3);
}

// User replay: the ranges of a batch become readable once its pass is submitted by Stop.
// Stop leaves the profiler stopped (stop_and_decode), started again only for the next launch it
// ranges (start): a Start costs ~45 ms, 75-110 ms in a torchrun rank (H100/H200,
// 2026-11-26), and after a budget run's kernels are profiled no launch may need it again.
// A batch that cannot be stopped or started again pauses the context (its launches counted as
// missed, with the error): its next selected launch starts a new profiler object, where the
// old one would fail at every launch (--per-kernel-count 3 lost 487 launches so on an H200).
void RangeBatches::flush(ContextProfiler& p, bool restart) {
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

void RangeBatches::start(ContextProfiler& p) {
  p.fresh = false;
  if (!p.stopped) return;
  try {
    configure_and_start(p);  // SetConfig (~0 ms on an H100) and Start
  } catch (...) {
    try {
      stop_for_now(p);                 // disabled without a Stop: it is stopped
    } catch (const std::exception&) {  // the same error, reported once by the caller
    }
    throw;
  }
  p.stopped = false;
}

// Waits for the context first, so no kernel of the batch is still running at Stop.
void RangeBatches::stop_and_decode(ContextProfiler& p) {
  LIMITER_TRACE("flush batch of %zu", p.pending.size());
  if (!p.pending.empty()) {
    const auto started = Clock::now();
    // The profiler's own context, whichever context the calling thread has current.
    inside_flush = true;
    try {
      backend_.synchronize_context(p.context);
    } catch (...) {
      inside_flush = false;
      throw;
    }
    inside_flush = false;
    times_.synchronize_s += seconds_since(started);
  }
  const auto started = Clock::now();
  backend_.stop(p.profiler);
  p.stopped = true;  // also where the decode below fails: disabled without another Stop
  times_.stop_s += seconds_since(started);
  ++times_.batches;
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
  events_.batch_decoded();
}

// Stops the context's profiler, decodes what it holds and disables it: the context's launches
// run unprofiled (and at full speed) until enable_profiler.
// A failed Stop loses the batch (its launches are counted as missed, with the error), and the
// object is disabled all the same: the context starts again with a new one at its next
// selected launch instead of failing at every launch.
void RangeBatches::disable(ContextProfiler& p) {
  std::exception_ptr failure;
  try {
    if (p.user_replay) {
      flush(p, /*restart=*/false);
    } else {
      bool stopped = true;
      try {
        backend_.stop(p.profiler);
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
  backend_.disable(p.profiler);
  p.profiler = nullptr;
  p.stopped = false;
  p.fresh = false;
  if (failure) std::rethrow_exception(failure);
}

void RangeBatches::lose_batch(ContextProfiler& p, const std::string& error) {
  std::uint64_t kept = 0;
  for (const auto& pending : p.pending) kept += pending.keep ? 1 : 0;
  p.pending.clear();
  if (kept) events_.miss(MissReason::error, kept, error);
}

void RangeBatches::reinitialize_image(ContextProfiler& p) {
  const auto started = Clock::now();
  backend_.initialize_image(p.profiler, p.image);
  p.ranges_consumed = 0;
  times_.image_init_s += seconds_since(started);
}

void RangeBatches::keep_raw_image(ContextProfiler& p) {
  if (raw_dir_.empty() || p.ranges_consumed == 0) return;
  write_raw_image(raw_dir_, p.images_written, p.image);
}

void RangeBatches::decode(ContextProfiler& p) {
  LIMITER_TRACE("decode, %zu pending", p.pending.size());
  auto started = Clock::now();
  const std::size_t dropped = backend_.decode(p.profiler);
  times_.decode_s += seconds_since(started);
  started = Clock::now();
  if (dropped > 0) {
    events_.miss(MissReason::dropped, dropped);
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
      if (range_of[index])
        complete(p, std::move(p.pending[index]), *range_of[index]);
      else
        unranged.push_back(std::move(p.pending[index]));
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
  times_.evaluate_s += seconds_since(started);
  // A launch CUPTI did not range (a failed launch, a graph kernel) leaves pending
  // entries behind: they have no counters, so they are not launches of the record, but the
  // record says how many there were.
  // The ranges CUPTI dropped (counted above) are some of them: those launches are counted once.
  std::uint64_t unranged = 0;
  for (const auto& pending : p.pending) unranged += pending.keep ? 1 : 0;
  unranged -= std::min<std::uint64_t>(unranged, dropped);
  if (unranged) events_.miss(MissReason::not_ranged, unranged);
  p.pending.clear();
  if (!p.user_replay && p.ranges_consumed >= p.ranges_per_image) {
    keep_raw_image(p);
    ++p.images_written;
    reinitialize_image(p);
  }
}

void RangeBatches::complete(ContextProfiler& p, PendingLaunch&& pending, std::size_t range) {
  if (!pending.keep && !pending.measures_range_work) return;
  KernelLaunch launch = std::move(pending.launch);
  const auto values = p.host->evaluate(p.image, range, metrics_);
  for (std::size_t i = 0; i < metrics_.size(); ++i)
    if (!std::isnan(values[i])) launch.counters[metrics_[i]] = values[i];
  if (pending.measures_range_work) return UserRanges::keep_range_work(p.range_work_ns, launch);
  events_.launch_decoded(p, std::move(launch), pending.correlation_id, range);
}

void RangeBatches::retire(ContextProfiler& p) {
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

void RangeBatches::pause(ContextProfiler& p) {
  if (p.retired || p.paused) return;
  LIMITER_TRACE("pause context %p", static_cast<void*>(p.context));
  stop_for_now(p);
}

// Decodes and disables a running profiler, and ends the turn: the context is paused, also when
// its last batch failed (disable disabled the object all the same).
void RangeBatches::stop_for_now(ContextProfiler& p) {
  try {
    disable(p);
  } catch (...) {
    p.paused = true;
    events_.end_turn(p);
    throw;
  }
  p.paused = true;
  events_.end_turn(p);
}

}  // namespace limiter::detail
