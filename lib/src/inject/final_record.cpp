// The injected process's record at its end (injection.hpp): at exit, or on a fatal signal.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "collect/forked_child.hpp"
#include "inject/injection.hpp"
#include "limiter/record_json.hpp"

namespace limiter::inject {

namespace {

// Sampling modes, on a fatal signal: no CUDA or CUPTI call and no lock of the sampler (the signal
// may have hit its decode thread inside CUPTI). PM sampling: the last snapshot becomes the record.
// PC sampling (--stalls) keeps no snapshot: the record says the samples were lost, and why.
void write_sampled_record_on_signal(const std::string& ended) {
  if (injection->pc_sampling) {
    std::fprintf(stderr,
                 "limiter: the app ended by %s while PC sampling; its samples are read only at the end, so "
                 "the record holds none\n",
                 ended.c_str());
    limiter::RunRecord run = injection->header;
    run.source = "cupti-pc-sampling";
    run.ended = ended;
    run.missed.push_back({"the process ended by " + ended +
                              " before PC sampling's samples were read (they are read "
                              "when the app exits normally)",
                          0, "let the app end normally (catch the signal and exit), or sample a shorter run"});
    limiter::write_run_file(run, injection->output);
    return;
  }
  std::fprintf(stderr,
               "limiter: the app ended by %s while PM sampling; the record holds the last snapshot of the "
               "aggregates (up to ~3 s old)\n",
               ended.c_str());
  if (std::filesystem::exists(injection->partial)) {
    limiter::finish_partial_run(injection->partial, injection->output, ended);
    std::filesystem::remove(injection->partial);
    return;
  }
  limiter::RunRecord run = injection->header;
  run.source = "cupti-pm-sampling";
  run.sampling = limiter::SamplingInfo{};
  run.ended = ended;
  run.missed.push_back(
      {"the process ended before PM sampling started", 0, "run the exact mode (limiter run without --sampling)"});
  limiter::write_run_file(run, injection->output);
}

// The default run at its end: at a normal exit the phases end (the samples of a window the app
// ended in are read); on a fatal signal no CUPTI call is made, and samples not yet read (read at
// the window's end) are said lost. What finished phases handed over is on disk already.
void finish_phases(const std::string& ended) {
  if (ended == "exit") {
    limiter::RunRecord run = injection->collector->take_run();
    run.missed = injection->collector->missed();
    run.launches_seen = injection->collector->launches_seen();
    write_phases_status(run);
    return;
  }
  limiter::RunRecord part;
  part.phases = injection->collector->phase_windows();
  const bool in_window = injection->collector->current_phase() == "samples";
  for (auto& window : part.phases)
    if (window.ended_by == "running") window.ended_by = "the app ended by " + ended;
  part.missed = injection->collector->missed();
  part.launches_seen = injection->collector->launches_seen();
  if (in_window)
    part.missed.push_back({"the process ended by " + ended +
                               " inside the PC-sampling window: its samples are read at "
                               "the window's end, so the record holds none (what finished phases hold is kept)",
                           0, "let the app end normally, or a shorter --stall-window"});
  write_phases_status(part);
}

}  // namespace

// At exit, or on a fatal signal (fatal_signals.hpp): the pending batch is decoded (CUDA calls:
// our exit handler was registered inside cuInit, after the runtime's, so it runs before the
// runtime tears its context down), then the partial file becomes the record. Runs once.
void write_final_record(const std::string& ended) {
  // A forked child inherited this handler, the parent's files and its half-written state: the
  // record is the parent's to write (forked_child.hpp).
  if (limiter::detail::in_forked_child_by_pid()) return;
  static std::atomic<bool> written{false};
  if (!injection || !injection->collector || written.exchange(true)) return;
  if (injection->progress) injection->progress->finish();
  try {
    // A worker the app started (a compile worker, a helper that only queried the GPU) that
    // launched nothing leaves no record behind; the app's own process always writes one.
    if (!injection->app_process && injection->collector->launches_seen() == 0 &&
        injection->collector->missed().empty()) {
      injection->partial_out.close();
      std::filesystem::remove(injection->partial);
      return;
    }
    if (injection->collector->sampling()) {  // a few aggregates: written whole, not streamed
      if (ended != "exit") return write_sampled_record_on_signal(ended);
      limiter::RunRecord run = injection->collector->take_run();
      if (!env("LIMITER_TIMING").empty())
        std::fputs(("limiter: " + injection->collector->timings().to_text()).c_str(), stderr);
      run.rank = injection->header.rank;
      run.host = injection->header.host;
      run.ended = ended;
      limiter::write_run_file(run, injection->output);
      std::filesystem::remove(injection->partial);
      return;
    }
    // A signal inside the default run's sampling window: PC sampling's flush would take its lock
    // and call CUPTI from the handler (the signal may have hit that thread); its samples are said lost.
    const bool in_window = injection->phased && ended != "exit" && injection->collector->current_phase() == "samples";
    if (!in_window) injection->collector->flush_before_exit(std::chrono::seconds(2));
    injection->collector->write_raw_files();
    if (injection->phased) finish_phases(ended);
    if (!env("LIMITER_TIMING").empty())
      std::fputs(("limiter: " + injection->collector->timings().to_text()).c_str(), stderr);
    if (!injection->header_written) {  // no kernel ran: an empty record, with what was missed
      injection->header.created_at = limiter::utc_timestamp();
      injection->header.missed = injection->collector->missed();
      injection->header.launches_seen = injection->collector->launches_seen();
      injection->header.kernels_seen = injection->collector->kernels_seen();
      injection->header.ended = ended;
      injection->header.timeline = injection->timeline;  // copies and syncs, if no kernel was profiled
      if (const auto& part = injection->phases_part) {   // the default run ended in its sampling phase
        injection->header.phases = part->phases;
        injection->header.stalls = part->stalls;
        injection->header.missed = part->missed;
        if (!part->device.name.empty()) injection->header.device = part->device;
      }
      limiter::write_run_file(injection->header, injection->output);
      return;
    }
    // The launches are on disk already (the partial file): streamed into the record, never
    // held in memory, so 100,000 launches cost no more memory than 10.
    auto seen = injection->collector->kernels_seen();  // before the writers' lock: it takes the session's
    std::lock_guard lock(injection->partial_mutex);
    if (!seen.empty()) {  // per-kernel budgets: launches per kernel
      limiter::RunRecord status;
      status.kernels_seen = std::move(seen);
      injection->partial_out << limiter::partial_status_line(status) << "\n";
    }
    injection->partial_out.close();
    const auto written_from = std::chrono::steady_clock::now();
    const std::size_t launches = limiter::finish_partial_run(injection->partial, injection->output, ended,
                                                             injection->timeline ? &*injection->timeline : nullptr);
    std::filesystem::remove(injection->partial);
    if (!env("LIMITER_TIMING").empty()) {  // the app's exit waits for it: a timeline's events are most of it
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - written_from).count();
      std::fprintf(stderr,
                   "limiter: the record written at the app's exit in %.2f s (%zu launches, %zu timeline events)\n",
                   seconds, launches, injection->timeline ? injection->timeline->events.size() : std::size_t{0});
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "limiter: could not write %s (%s); the launches are in %s\n", injection->output.c_str(),
                 e.what(), injection->partial.c_str());
  }
}

void write_record_at_exit() { write_final_record("exit"); }

}  // namespace limiter::inject
