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
#include "inject/injection.hpp"
#include "inject/launch_progress.hpp"
#include "inject/nvtx_injection.hpp"
#include "inject/output_names.hpp"
#include "inject/rank_detection.hpp"
#include "limiter/collector.hpp"
#include "limiter/json_text.hpp"
#include "limiter/record_json.hpp"

namespace limiter::inject {

Injection* injection = nullptr;

}  // namespace limiter::inject

namespace {

using namespace limiter::inject;

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
    std::fprintf(stderr,
                 "limiter: NVTX_INJECTION64_PATH is the libcupti limiter uses: NVTX ranges are recorded "
                 "through CUPTI's NVTX callbacks (~9 us a range); unset it for limiter's own (~0.5 us)\n");
    return;
  }
  std::fprintf(stderr,
               "limiter: NVTX_INJECTION64_PATH is '%s', not limiter's NVTX tool (%s): NVTX ranges are not "
               "recorded; unset it\n",
               set.c_str(), ours.c_str());
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
      std::fprintf(stderr,
                   "limiter: rank %d of %d writes to '%s', as every rank does: they overwrite each other; "
                   "put %%r in the name (-o 'run_rank%%r.json')\n",
                   rank->rank, rank->world_size, pattern.c_str());
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
