// liblimiter_inject.so: loaded by the CUDA driver into any application through
// CUDA_INJECTION64_PATH (set by `limiter run`). Profiles every kernel launch with the
// collector, streams each completed launch to a partial file (flushed: a crash loses no
// decoded launch), and at exit or on a fatal signal writes the run record atomically. Options come from
// LIMITER_* environment variables; names accept %p (pid), %h (host), %r (rank) and %q{ENV}.
// A rank of a job (torchrun, mpirun, srun) records its rank, world size and host, and is
// named by its rank when the output name is the default.
#include <dlfcn.h>
#include <unistd.h>

#include <cupti.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collect/collector_internal.hpp"
#include "collect/forked_child.hpp"
#include "inject/fatal_signals.hpp"
#include "inject/launch_progress.hpp"
#include "inject/nvtx_injection.hpp"
#include "inject/output_names.hpp"
#include "inject/rank_detection.hpp"
#include "limiter/collector.hpp"
#include "limiter/json_text.hpp"
#include "limiter/record_json.hpp"

namespace {

struct Injection {
  limiter::Collector* collector = nullptr;  // never destroyed: the driver may still call back at exit
  std::string output, partial;
  bool app_process = true;  // limiter run started this process itself (not a worker the app started)
  bool pc_sampling = false;  // --stalls: samples read at the end, none on disk before it
  bool phased = false;       // the default run: counters, samples, timeline (phases.hpp)
  std::ofstream partial_out;
  limiter::RunRecord header;
  bool header_written = false;
  limiter::detail::LaunchProgress* progress = nullptr;  // never destroyed, like the collector
  // The partial file's writers: launches and status under the collector's lock, timeline chunks
  // from CUPTI's buffer thread. Events that complete before the header waits here.
  std::mutex partial_mutex;
  std::vector<limiter::TimelineEvent> early_events;
  std::string pending_status;  // a finished phase's status line that came before the header
  std::optional<limiter::RunRecord> phases_part;  // the last of them: a record with no launch is made of it
  std::optional<limiter::Timeline> timeline;  // the whole timeline when the process ends (LaunchSink::on_timeline_final)
};

Injection* injection = nullptr;

std::string env(const char* name, const std::string& fallback = "") {
  const char* value = std::getenv(name);
  return value ? value : fallback;
}

std::string canonical_path_of(const void* symbol) {
  Dl_info info{};
  if (!dladdr(symbol, &info) || !info.dli_fname) return "";
  std::error_code error;
  const auto path = std::filesystem::canonical(info.dli_fname, error);
  return error ? "" : path.string();
}

// The app's NVTX reaches the collector through this library's own NVTX tool (nvtx_injection.hpp):
// limiter run names this library in NVTX_INJECTION64_PATH, and a program a child execs inherits
// it. Unset (an environment the app rebuilt), it is set here for NVTX not started yet and for
// children; another value takes the app's NVTX elsewhere: said, with the fix.
void check_nvtx_injection() {
  // This library's file, by a function no other library exports: InitializeInjectionNvtx2 is also
  // libcupti's, and where libcupti is in the global scope dladdr would name that one (a review's
  // finding, 2026-11-26).
  const std::string ours = canonical_path_of(reinterpret_cast<const void*>(&check_nvtx_injection));
  if (ours.empty()) return;
  const std::string set = env("NVTX_INJECTION64_PATH");
  if (set.empty()) {
    setenv("NVTX_INJECTION64_PATH", ours.c_str(), 1);
    return;
  }
  std::error_code error;
  const std::string named = std::filesystem::canonical(set, error).string();
  if (named == ours) return;
  if (named == canonical_path_of(reinterpret_cast<const void*>(&cuptiSubscribe))) {
    std::fprintf(stderr, "limiter: NVTX_INJECTION64_PATH is the libcupti limiter uses: NVTX ranges are recorded "
                 "through CUPTI's NVTX callbacks (~9 us a range); unset it for limiter's own (~0.5 us)\n");
    return;
  }
  std::fprintf(stderr, "limiter: NVTX_INJECTION64_PATH is '%s', not limiter's NVTX tool (%s): NVTX ranges are not "
               "recorded; unset it\n", set.c_str(), ours.c_str());
}

// Sampling mode: the aggregates so far replace the partial file (written aside, then renamed:
// `limiter run` recovers a whole snapshot from a process that died without its handlers).
void write_snapshot(const limiter::RunRecord& snapshot) {
  static std::mutex writing;  // the first launch's thread and the decode thread
  std::lock_guard lock(writing);
  limiter::RunRecord header = snapshot;
  header.launches.clear();
  header.tool_version = injection->header.tool_version;
  header.command_line = injection->header.command_line;
  header.created_at = injection->header.created_at;
  header.rank = injection->header.rank;
  header.host = injection->header.host;
  const std::string aside = injection->partial + ".tmp";
  {
    std::ofstream out(aside, std::ios::trunc);
    out << limiter::partial_run_header(header) << "\n";
    for (const auto& launch : snapshot.launches) out << limiter::json_text(limiter::launch_json(launch)) << "\n";
    if (!out.flush()) return;
  }
  std::error_code error;
  std::filesystem::rename(aside, injection->partial, error);
}

// Sampling modes, on a fatal signal: no CUDA or CUPTI call and no lock of the sampler (the signal
// may have hit its decode thread inside CUPTI). PM sampling: the last snapshot becomes the record.
// PC sampling (--stalls) keeps no snapshot: the record says the samples were lost, and why.
void write_sampled_record_on_signal(const std::string& ended) {
  if (injection->pc_sampling) {
    std::fprintf(stderr, "limiter: the app ended by %s while PC sampling; its samples are read only at the end, so "
                 "the record holds none\n", ended.c_str());
    limiter::RunRecord run = injection->header;
    run.source = "cupti-pc-sampling";
    run.ended = ended;
    run.missed.push_back({"the process ended by " + ended + " before PC sampling's samples were read (they are read "
                          "when the app exits normally)",
                          0, "let the app end normally (catch the signal and exit), or sample a shorter run"});
    limiter::write_run_file(run, injection->output);
    return;
  }
  std::fprintf(stderr, "limiter: the app ended by %s while PM sampling; the record holds the last snapshot of the "
               "aggregates (up to ~3 s old)\n", ended.c_str());
  if (std::filesystem::exists(injection->partial)) {
    limiter::finish_partial_run(injection->partial, injection->output, ended);
    std::filesystem::remove(injection->partial);
    return;
  }
  limiter::RunRecord run = injection->header;
  run.source = "cupti-pm-sampling";
  run.sampling = limiter::SamplingInfo{};
  run.ended = ended;
  run.missed.push_back({"the process ended before PM sampling started", 0, "run the exact mode (limiter run without --sampling)"});
  limiter::write_run_file(run, injection->output);
}

// The default run's phases (phases.hpp), as a status line of the partial file: their windows, the
// samples of a finished sampling phase, the launches seen and what was missed so far.
void write_phases_status(const limiter::RunRecord& part) {
  if (!injection->phased) return;
  limiter::RunRecord status;
  status.phases = part.phases;
  status.stalls = part.stalls;
  status.missed = part.missed;
  status.launches_seen = part.launches_seen;
  std::lock_guard lock(injection->partial_mutex);
  if (!injection->header_written) {  // no device yet (the counters phase describes it): written with the header
    if (injection->phases_part) {  // a later part keeps what an earlier one had (a finished window's samples)
      if (!status.stalls) status.stalls = injection->phases_part->stalls;
      if (part.device.name.empty()) status.device = injection->phases_part->device;
    }
    if (!part.device.name.empty()) status.device = part.device;
    injection->pending_status = limiter::partial_status_line(status);
    injection->phases_part = status;
    return;
  }
  injection->partial_out << limiter::partial_status_line(status) << "\n";
  injection->partial_out.flush();
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
    part.missed.push_back({"the process ended by " + ended + " inside the PC-sampling window: its samples are read at "
                           "the window's end, so the record holds none (what finished phases hold is kept)",
                           0, "let the app end normally, or a shorter --stall-window"});
  write_phases_status(part);
}

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
    if (!injection->app_process && injection->collector->launches_seen() == 0 && injection->collector->missed().empty()) {
      injection->partial_out.close();
      std::filesystem::remove(injection->partial);
      return;
    }
    if (injection->collector->sampling()) {  // a few aggregates: written whole, not streamed
      if (ended != "exit") return write_sampled_record_on_signal(ended);
      limiter::RunRecord run = injection->collector->take_run();
      if (!env("LIMITER_TIMING").empty()) std::fputs(("limiter: " + injection->collector->timings().to_text()).c_str(), stderr);
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
    if (!env("LIMITER_TIMING").empty()) std::fputs(("limiter: " + injection->collector->timings().to_text()).c_str(), stderr);
    if (!injection->header_written) {  // no kernel ran: an empty record, with what was missed
      injection->header.created_at = limiter::utc_timestamp();
      injection->header.missed = injection->collector->missed();
      injection->header.launches_seen = injection->collector->launches_seen();
      injection->header.kernels_seen = injection->collector->kernels_seen();
      injection->header.ended = ended;
      injection->header.timeline = injection->timeline;  // copies and syncs, if no kernel was profiled
      if (const auto& part = injection->phases_part) {  // the default run ended in its sampling phase
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
      std::fprintf(stderr, "limiter: the record written at the app's exit in %.2f s (%zu launches, %zu timeline events)\n",
                   seconds, launches, injection->timeline ? injection->timeline->events.size() : std::size_t{0});
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "limiter: could not write %s (%s); the launches are in %s\n", injection->output.c_str(),
                 e.what(), injection->partial.c_str());
  }
}

void write_record_at_exit() { write_final_record("exit"); }

// The partial file, opened at the first device: the header, then launches and status lines.
void open_partial(const limiter::DeviceDescription& device) {
  std::lock_guard lock(injection->partial_mutex);
  if (injection->header_written) return;
  injection->header.device = device;
  injection->partial_out.open(injection->partial, std::ios::trunc);
  injection->partial_out << limiter::partial_run_header(injection->header) << "\n";
  if (!injection->early_events.empty()) {
    injection->partial_out << limiter::partial_timeline_line(injection->early_events) << "\n";
    injection->early_events.clear();
  }
  if (!injection->pending_status.empty()) {
    injection->partial_out << injection->pending_status << "\n";
    injection->pending_status.clear();
  }
  injection->partial_out.flush();
  injection->header_written = true;
}

// The activity timeline as it arrives (collector_internal.hpp): a chunk line per buffer, and the
// window with the dropped-record count in a status line, so a killed app keeps its timeline.
void write_timeline_events(const std::vector<limiter::TimelineEvent>& events) {
  std::lock_guard lock(injection->partial_mutex);
  if (!injection->header_written) {
    injection->early_events.insert(injection->early_events.end(), events.begin(), events.end());
    return;
  }
  injection->partial_out << limiter::partial_timeline_line(events) << "\n";
  injection->partial_out.flush();
}

void write_timeline_status(const limiter::Timeline& window) {
  std::lock_guard lock(injection->partial_mutex);
  if (!injection->header_written) return;
  limiter::RunRecord status;
  status.timeline = window;
  injection->partial_out << limiter::partial_status_line(status) << "\n";
  injection->partial_out.flush();
}

void register_output(const std::string& session_dir) {
  if (session_dir.empty()) return;
  // Tells `limiter run` which files this process writes (children get their own).
  nlohmann::json entry = {{"pid", getpid()}, {"output", injection->output}, {"partial", injection->partial}};
  std::ofstream(session_dir + "/" + std::to_string(getpid()) + ".json") << limiter::json_text(entry);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  static std::atomic<bool> initialized{false};
  if (initialized.exchange(true)) return 1;
  try {
    // What limiter run asked for, validated there before the app started (collector_options.hpp);
    // the launches stream to the partial file.
    limiter::CollectorOptions options = limiter::collector_options_from_environment();
    options.keep_launches = false;
    if (options.nvtx) check_nvtx_injection();
    const std::optional<limiter::RankInfo> rank = limiter::detail::detect_rank();
    if (!options.raw_dir.empty())  // a folder per process
      options.raw_dir = limiter::detail::expand_output_name(options.raw_dir, rank) + "/" + std::to_string(getpid());
    if (options.sampling && !options.raw_dir.empty()) std::filesystem::create_directories(options.raw_dir);
    if (!options.cubin_dir.empty())  // a folder per process, as the raw data's
      options.cubin_dir = limiter::detail::expand_output_name(options.cubin_dir, rank) + "/" + std::to_string(getpid());

    injection = new Injection;
    const std::string given = env("LIMITER_OUTPUT", limiter::detail::kDefaultOutput);
    const bool default_name = env("LIMITER_OUTPUT").empty() || env("LIMITER_OUTPUT_IS_DEFAULT") == "1";
    const std::string pattern = limiter::detail::output_pattern_for(given, default_name, rank);
    if (rank && rank->world_size > 1 && !limiter::detail::names_each_process(pattern)) {
      std::fprintf(stderr, "limiter: rank %d of %d writes to '%s', as every rank does: they overwrite each other; "
                   "put %%r in the name (-o 'run_rank%%r.json')\n", rank->rank, rank->world_size, pattern.c_str());
    }
    const std::string session = env("LIMITER_SESSION_DIR");
    const std::string named = limiter::detail::expand_output_name(pattern, rank);
    // Another process of this run (the app, a worker it spawned, a program a child execs) may have
    // been given the same name: the first keeps it, the others write beside it under their pid.
    injection->output = limiter::detail::claim_output_name(session, named);
    if (injection->output != named) {
      std::fprintf(stderr, "limiter: process %d writes its own record, %s (%s is another process's)\n",
                   static_cast<int>(getpid()), injection->output.c_str(), named.c_str());
    }
    injection->app_process = env("LIMITER_RUN_PID").empty() || env("LIMITER_RUN_PID") == std::to_string(getppid());
    injection->header.rank = rank;
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) == 0) injection->header.host = host;
    injection->partial = injection->output + ".partial";
    injection->header.command_line = options.command_line;
    injection->header.tool_version = limiter::tool_version();
    injection->header.source = "cupti";
    injection->header.created_at = limiter::utc_timestamp();
    // The exact mode streams its record from this header: it says the caches its counters saw
    // (sampling's record comes from the collector, --trace and --stalls have no counters).
    if (!options.sampling && !options.trace && !options.stalls) injection->header.cache_control = options.cache_control;

    injection->pc_sampling = options.stalls;
    injection->phased = limiter::runs_default_phases(options);
    // A worker the app started (compile workers, an exec'd helper) prepares nothing ahead: it
    // seldom profiles, and the preparation's CUPTI calls ran there outside the counters' turn
    // while the app profiled, its exit waiting for them (the device suite's fork programs ran
    // 2-4 s longer; H100, 2026-11-26). It sets up at its first selected launch, as before.
    // A rank of a job is no such helper: it is the job's own work, and its set-up at the first
    // launch (114-169 ms in a torchrun rank, 2 H100s, 2026-11-26) holds up every other rank at
    // the next collective. A rank's own workers inherit its variables: their parent is that rank
    // (its environment read from /proc: a mark set here would not reach Python's os.environ,
    // which torch.compile's workers are started with; a review's finding, 2026-11-26).
    const bool job_rank = rank.has_value() && !limiter::detail::started_by_its_rank(
                                                   *rank, limiter::detail::environment_of_process(getppid()));
    options.prepare_ahead = injection->app_process || job_rank;
    injection->collector = new limiter::Collector(options, limiter::Collector::AlreadyValidated{});
    auto& sink = injection->collector->impl_sink();
    sink.on_device = open_partial;
    injection->progress = new limiter::detail::LaunchProgress(STDERR_FILENO, env("LIMITER_PROGRESS") == "1");
    sink.on_launch = [](const limiter::KernelLaunch& launch) {
      std::lock_guard lock(injection->partial_mutex);
      injection->partial_out << limiter::json_text(limiter::launch_json(launch)) << "\n";
      injection->partial_out.flush();
      injection->progress->launch(launch.name);
    };
    sink.on_timeline_events = write_timeline_events;
    sink.on_timeline_status = write_timeline_status;
    sink.on_timeline_final = [](limiter::Timeline&& timeline) {
      std::lock_guard lock(injection->partial_mutex);
      injection->timeline = std::move(timeline);
    };
    sink.on_snapshot = write_snapshot;
    sink.on_phase_over = write_phases_status;
    sink.on_sampling_started = [] { std::atexit(write_record_at_exit); };  // runs once: see write_final_record
    sink.on_status = [](const std::vector<limiter::MissedLaunches>& missed, std::uint64_t launches_seen) {
      std::lock_guard lock(injection->partial_mutex);
      if (!injection->header_written) return;  // no device yet: the record gets the tally at exit
      limiter::RunRecord status;
      status.missed = missed;
      status.launches_seen = launches_seen;
      injection->partial_out << limiter::partial_status_line(status) << "\n";
      injection->partial_out.flush();
    };
    register_output(session);
    std::atexit(write_record_at_exit);
    limiter::detail::install_fatal_signal_handlers(write_final_record, options.debug);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "limiter: profiling disabled: %s\n", e.what());
  }
  return 1;
}
