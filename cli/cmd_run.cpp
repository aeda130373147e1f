// limiter run [options] -- app args: profile every kernel of any CUDA application through
// liblimiter_inject.so (CUDA_INJECTION64_PATH). The app's output and exit code pass through.
#include <dlfcn.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>
#ifdef LIMITER_HAVE_CUPTI
#include <cupti.h>
#endif

#include "commands.hpp"
#include "limiter/analysis.hpp"
#include "limiter/error.hpp"
#include "limiter/json_text.hpp"
#include "limiter/metric_plans.hpp"
#include "limiter/nvtx_ranges.hpp"
#include "limiter/record_json.hpp"
#include "limiter/reports.hpp"
#include "limiter/run_summary.hpp"
#include "options.hpp"

extern char** environ;

namespace limiter::cli {
namespace {

namespace fs = std::filesystem;

fs::path inject_library() {
  if (const char* explicit_path = std::getenv("LIMITER_INJECT_LIBRARY")) return explicit_path;
  const fs::path exe = fs::read_symlink("/proc/self/exe").parent_path();
  for (const fs::path& candidate : {exe / "../lib/liblimiter_inject.so", exe / "liblimiter_inject.so",
                                    exe / "../lib/limiter/liblimiter_inject.so"}) {
    if (fs::exists(candidate)) return fs::canonical(candidate);
  }
  throw SystemError("liblimiter_inject.so not found next to the limiter executable (looked in " +
                    (exe / "../lib").string() + "); build the limiter_inject target or set LIMITER_INJECT_LIBRARY");
}

// The libcupti that liblimiter_inject.so loads, for NVTX_INJECTION64_PATH: the app's NVTX then
// reports its ranges to the collector's CUPTI, also for NVTX calls made before cuInit.
std::string cupti_library() {
#ifdef LIMITER_HAVE_CUPTI
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&cuptiGetVersion), &info) && info.dli_fname) {
    std::error_code error;
    const fs::path path = fs::canonical(info.dli_fname, error);
    if (!error) return path.string();
  }
#endif
  return "";  // the injection sets it at cuInit
}

volatile sig_atomic_t app_pid = 0;

// SIGTERM, SIGHUP or a SIGINT sent to limiter alone (kill, a job scheduler) goes on to the app,
// which then writes its record; limiter waits for it. A SIGINT from the terminal reached the
// app already (same process group): limiter only waits.
void forward_to_app(int signal, siginfo_t* info, void*) {
  if (app_pid > 0 && (signal != SIGINT || info->si_code == SI_USER || info->si_code == SI_QUEUE)) kill(app_pid, signal);
}

void forward_signals_to(pid_t child) {
  app_pid = child;
  struct sigaction action{};
  action.sa_sigaction = forward_to_app;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) sigaction(signal, &action, nullptr);
}

struct AppEnd {
  int exit_code = 0;
  std::string ended;  // as RunRecord::ended spells it
};

AppEnd wait_for(pid_t child) {
  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) throw SystemError("waitpid failed");
  }
  if (WIFEXITED(status)) return {WEXITSTATUS(status), "exit"};
  if (WIFSIGNALED(status)) {
    std::cerr << "limiter: the application was killed by " << ended_by_signal(WTERMSIG(status)) << "\n";
    return {128 + WTERMSIG(status), ended_by_signal(WTERMSIG(status))};
  }
  return {kExitFailure, ""};
}

// A partial file of the sampling mode (a snapshot of aggregates) rather than of decoded launches.
bool sampled_partial(const std::string& partial) {
  std::ifstream in(partial);
  std::string header;
  if (!std::getline(in, header)) return false;
  try {
    return nlohmann::json::parse(header).contains("sampling");
  } catch (const std::exception&) {
    return false;
  }
}

// Each profiled process registered its files in the session folder; a process that did not
// reach its exit handlers (SIGKILL, _exit) left only its partial file: recover it.
std::vector<std::string> collect_outputs(const fs::path& session, pid_t child, const AppEnd& app_end) {
  std::vector<std::string> outputs;
  for (const auto& entry : fs::directory_iterator(session)) {
    nlohmann::json registered;
    try {
      registered = nlohmann::json::parse(std::ifstream(entry.path()));
    } catch (const std::exception&) {
      continue;
    }
    const std::string output = registered.value("output", "");
    const std::string partial = registered.value("partial", "");
    if (!fs::exists(output) && fs::exists(partial)) {
      const pid_t pid = registered.value("pid", 0);
      // The app's own end where limiter saw it; a child of the app ended unseen.
      const std::string ended = pid == child && app_end.ended != "exit" ? app_end.ended : "killed";
      const bool sampled = sampled_partial(partial);
      const std::size_t recovered = finish_partial_run(partial, output, ended);
      fs::remove(partial);
      if (sampled) {
        std::cerr << "limiter: process " << pid << " ended without its exit handlers (" << ended << "); recovered "
                  << "its last snapshot of " << recovered << " sampled kernel aggregates; the samples of its last "
                  << "seconds are lost\n";
      } else {
        std::cerr << "limiter: process " << pid << " ended without its exit handlers (" << ended << "); recovered "
                  << recovered << " decoded launches; launches of its last batch, since its last "
                  << "synchronisation, are lost\n";
      }
    }
    if (fs::exists(output)) outputs.push_back(output);
  }
  return outputs;
}

}  // namespace

int run_run(const Args& args) {
  // Everything after "--" is the application, untouched by option parsing.
  Args ours = args, app;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--") {
      ours.assign(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(i));
      app.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      break;
    }
  }
  po::options_description visible("options");
  std::string output, kernel_regex, plan, metrics, raw_dir, replay, graph_profiling, push_pop_scope;
  std::string capture_range = "none";
  std::uint64_t skip = 0, count = 0, sample_every = 1, per_kernel_skip = 0, per_kernel_count = 0;
  bool quiet = false, timing = false, fail_on_missed = false, no_nvtx = false, budget_by_range = false;
  bool sampling = false;
  std::uint64_t sampling_interval_us = 100, exact_undecided = 0, sampling_phase = 20000;
  std::vector<std::string> nvtx_include, nvtx_exclude;
  double lock_timeout = 60;
  visible.add_options()
      ("output,o", po::value(&output)->default_value("limiter_%p.json"),
       "run record per process; %p = pid of the process that writes (a forked child writes none; a process that starts CUDA itself, spawned or exec'd, writes its own, named by its pid when the name is taken), %h = host, %r = rank in a job, %q{ENV} = an environment value. "
       "By default a rank of a job (torchrun, mpirun, srun) writes limiter_rank<N>.json")
      ("kernel-regex,k", po::value(&kernel_regex), "profile only kernels whose (demangled) name matches")
      ("launch-skip,s", po::value(&skip)->default_value(0), "matching launches to skip first")
      ("launch-count,c", po::value(&count), "then profile at most this many (the app then runs unprofiled)")
      ("per-kernel-count", po::value(&per_kernel_count),
       "profile only the first N launches of each kernel and launch configuration; the others run at full speed "
       "(a steady-state training loop pays only for its first steps)")
      ("per-kernel-skip", po::value(&per_kernel_skip)->default_value(0),
       "launches of each kernel and launch configuration to skip before its budget starts (warm-up)")
      ("nvtx-include", po::value(&nvtx_include)->composing(),
       "profile only launches inside these NVTX ranges, in Nsight Compute's syntax (repeatable: any of them): "
       "\"A/\" push/pop range A at any level, \"A/B/\" B directly inside A, \"A/*/B/\" B anywhere inside A, "
       "\"[A/\" A outermost, \"A/B]\" B innermost, \"A\" start/end range A, \"Domain@A/\" a domain, "
       "\"regex:...\" names as regular expressions; other launches run at full speed")
      ("nvtx-exclude", po::value(&nvtx_exclude)->composing(),
       "profile no launch inside these NVTX ranges (same syntax; repeatable)")
      ("budget-by-range", po::bool_switch(&budget_by_range),
       "--per-kernel-count/--per-kernel-skip count per kernel, launch configuration AND enclosing NVTX ranges "
       "(a kernel used in forward and backward gets a budget in each)")
      ("nvtx-push-pop-scope", po::value(&push_pop_scope)->default_value("thread"),
       "thread: push/pop ranges belong to the thread that pushed them (Nsight Compute's default); process: one "
       "stack for all threads, so kernels that PyTorch's autograd thread launches fall inside the main thread's "
       "\"backward\" range")
      ("no-nvtx", po::bool_switch(&no_nvtx),
       "do not record NVTX ranges (by default each launch records its enclosing ranges and reports roll up by range)")
      ("sample-every", po::value(&sample_every)->default_value(1), "profile every Nth launch of each kernel; a paused profiler resumes only for a new kernel or once half the kernels are due (a round), since each resume costs ~0.3 s")
      ("plan", po::value(&plan)->default_value("default"), "metric plan (`limiter metrics` lists them)")
      ("metrics", po::value(&metrics), "comma-separated metrics instead of a plan (with --sampling alone: the sampled metrics; with --sampling --per-kernel-count: the exact phase's, the sampler keeps its plan)")
      ("save-raw", po::value(&raw_dir), "keep raw counter images in DIR for `limiter analyze DIR`")
      ("replay", po::value(&replay)->default_value("auto"),
       "auto: user replay when the plan needs one pass (~1.5 ms per launch; CUDA graph launches too, see "
       "--graph-profiling), kernel replay when it needs several; kernel: kernel replay always (~50 ms per launch)")
      ("graph-profiling", po::value(&graph_profiling)->default_value("node"),
       "CUDA graph launches under user replay. node: each kernel node in its own range (~1.7 ms per node; the "
       "app's graphs are kept alive until their executable graphs are destroyed); graph: one range per graph "
       "launch, a verdict for the whole graph (as ncu --graph-profiling graph)")
      ("sampling", po::bool_switch(&sampling),
       "PM-sampling mode: GPU-wide counters sampled at a fixed interval, no replay and no serialisation (the app "
       "runs at about full speed); samples attributed to kernels by time and aggregated per kernel and "
       "configuration; a verdict only where the samples support it; no LMEM shares. With --per-kernel-count N, "
       "each kernel's first N launches are profiled exactly before sampling begins: their verdict stands where the "
       "samples cannot decide, and they give the LMEM shares (on an H100 the samples then miss most SM-side work, "
       "and the exact launches judge every kernel)")
      ("sampling-interval", po::value(&sampling_interval_us)->default_value(100),
       "with --sampling: microseconds between samples (50 judges more kernels but loses samples, counted)")
      ("exact-undecided", po::value(&exact_undecided),
       "with --sampling: after the sampling phase, the next N launches of each kernel and configuration its samples "
       "could not judge (and of any new one) are profiled exactly, for their verdict and LMEM shares; the rest of "
       "the run is only counted (no samples: they miss the SMs after the range profiler ran, on an H100)")
      ("sampling-phase", po::value(&sampling_phase)->default_value(20000),
       "with --exact-undecided: launches sampled before the exact phase (a run that ends first keeps the samples only)")
      ("timing", po::bool_switch(&timing), "print where the collector's time went, per launch")
      ("capture-range", po::value(&capture_range)->default_value("none"),
       "none: profile from the start; cudaProfilerApi: only between cudaProfilerStart and cudaProfilerStop "
       "(any number of times; torch.cuda.profiler.start/stop), the rest of the app at full speed")
      ("lock-timeout", po::value(&lock_timeout)->default_value(60),
       "seconds a process waits for its turn on a GPU's counters while other profiled processes have it")
      ("fail-on-missed", po::bool_switch(&fail_on_missed),
       "exit with code 5 when launches could not be profiled (busy GPU, no turn, a crash), after the app's own code")
      ("quiet,q", po::bool_switch(&quiet), "no live progress and no summary table at the end");
  po::positional_options_description positional;
  po::variables_map vm;
  if (!parse_options(ours, "limiter run [options] -- app [args...]", visible, positional, vm)) return kExitOk;
  if (app.empty()) throw InputError("no application given: limiter run [options] -- ./app args");
  if (metrics.empty()) metric_plan(plan);  // unknown plan: fail before the app runs
  if (sample_every == 0) throw InputError("--sample-every must be at least 1");
  if (replay == "graphs") replay = "auto";  // the opt-in name of what auto now does
  if (replay != "auto" && replay != "kernel") throw InputError("--replay must be auto or kernel");
  if (graph_profiling != "node" && graph_profiling != "graph")
    throw InputError("--graph-profiling must be node or graph");
  if (sampling_interval_us == 0) throw InputError("--sampling-interval must be at least 1 (microseconds)");
  if (sampling && (replay != "auto" || !vm["graph-profiling"].defaulted() || vm.count("launch-count") || skip ||
                   sample_every > 1 || capture_range != "none" || !kernel_regex.empty() || !nvtx_include.empty() ||
                   !nvtx_exclude.empty() || budget_by_range)) {
    throw InputError("--sampling samples the whole GPU without replay: --replay, --graph-profiling and the launch "
                     "filters (-k, -s, -c, --sample-every, --capture-range, --nvtx-include/--nvtx-exclude, "
                     "--budget-by-range) belong to the exact mode; filter the report instead (limiter report -k). "
                     "--per-kernel-count/--per-kernel-skip go with it: each kernel's first launches exactly, then "
                     "sampling");
  }
  if (vm.count("exact-undecided") && (!sampling || exact_undecided == 0))
    throw InputError("--exact-undecided N goes with --sampling, N at least 1");
  if (vm.count("exact-undecided") && (vm.count("per-kernel-count") || per_kernel_skip))
    throw InputError("--exact-undecided (sampling, then the undecided kernels exactly) cannot go with "
                     "--per-kernel-count/--per-kernel-skip (each kernel's first launches exactly, then sampling)");
  if (!vm["sampling-phase"].defaulted() && !vm.count("exact-undecided"))
    throw InputError("--sampling-phase goes with --exact-undecided");
  if (capture_range != "none" && capture_range != "cudaProfilerApi")
    throw InputError("--capture-range must be none or cudaProfilerApi (for NVTX ranges: --nvtx-include)");
  if (no_nvtx && (!nvtx_include.empty() || !nvtx_exclude.empty() || budget_by_range))
    throw InputError("--no-nvtx cannot go with --nvtx-include, --nvtx-exclude or --budget-by-range");
  if (push_pop_scope != "thread" && push_pop_scope != "process")
    throw InputError("--nvtx-push-pop-scope must be thread or process");
  if (budget_by_range && !vm.count("per-kernel-count") && per_kernel_skip == 0)
    throw InputError("--budget-by-range needs --per-kernel-count N (or --per-kernel-skip N)");
  [[maybe_unused]] const NvtxFilter checked(nvtx_include, nvtx_exclude);  // a bad expression fails before the app runs

  const fs::path session = fs::temp_directory_path() / ("limiter-session-" + std::to_string(getpid()));
  fs::create_directories(session);
  std::vector<std::string> environment;
  for (char** variable = environ; *variable; ++variable) environment.emplace_back(*variable);
  auto set = [&](const std::string& name, const std::string& value) { environment.push_back(name + "=" + value); };
  set("CUDA_INJECTION64_PATH", inject_library().string());
  set("LIMITER_OUTPUT", fs::absolute(output).string());
  set("LIMITER_OUTPUT_IS_DEFAULT", vm["output"].defaulted() ? "1" : "0");  // ranks then name theirs by rank
  set("LIMITER_SESSION_DIR", session.string());
  set("LIMITER_RUN_PID", std::to_string(getpid()));  // the app's own process is our child; its workers are not
  set("LIMITER_PLAN", plan);
  set("LIMITER_REPLAY", replay);
  set("LIMITER_GRAPH_PROFILING", graph_profiling);
  set("LIMITER_COMMAND", json_text(nlohmann::json(app)));
  if (!metrics.empty()) set("LIMITER_METRICS", metrics);
  if (!kernel_regex.empty()) set("LIMITER_KERNEL_REGEX", kernel_regex);
  if (skip) set("LIMITER_SKIP", std::to_string(skip));
  if (vm.count("launch-count")) set("LIMITER_COUNT", std::to_string(count));
  if (sample_every > 1) set("LIMITER_SAMPLE_EVERY", std::to_string(sample_every));
  if (vm.count("per-kernel-count")) set("LIMITER_PER_KERNEL_COUNT", std::to_string(per_kernel_count));
  if (per_kernel_skip) set("LIMITER_PER_KERNEL_SKIP", std::to_string(per_kernel_skip));
  if (!raw_dir.empty()) set("LIMITER_SAVE_RAW", fs::absolute(raw_dir).string());
  if (timing) set("LIMITER_TIMING", "1");
  if (sampling) {
    set("LIMITER_SAMPLING", "1");
    set("LIMITER_SAMPLING_INTERVAL_US", std::to_string(sampling_interval_us));
    if (exact_undecided) {
      set("LIMITER_EXACT_UNDECIDED", std::to_string(exact_undecided));
      set("LIMITER_SAMPLING_PHASE", std::to_string(sampling_phase));
    }
  }
  if (capture_range != "none") set("LIMITER_CAPTURE_RANGE", capture_range);
  set("LIMITER_LOCK_TIMEOUT", std::to_string(lock_timeout));
  if (!no_nvtx && !sampling) {  // sampled aggregates carry no NVTX ranges
    set("LIMITER_NVTX", "1");
    if (!nvtx_include.empty()) set("LIMITER_NVTX_INCLUDE", json_text(nlohmann::json(nvtx_include)));
    if (!nvtx_exclude.empty()) set("LIMITER_NVTX_EXCLUDE", json_text(nlohmann::json(nvtx_exclude)));
    if (budget_by_range) set("LIMITER_BUDGET_BY_RANGE", "1");
    if (push_pop_scope == "process") set("LIMITER_NVTX_PUSH_POP_SCOPE", "process");
    const std::string cupti = cupti_library();
    if (!cupti.empty() && !std::getenv("NVTX_INJECTION64_PATH")) {
      set("NVTX_INJECTION64_PATH", cupti);
      set("LIMITER_NVTX_INJECTION", cupti);  // ours: the injection may point it at the libcupti the app loaded
    }
  }
  // Live progress from inside the application, on a terminal only (logs stay clean).
  if (!quiet && isatty(STDERR_FILENO)) set("LIMITER_PROGRESS", "1");

  std::vector<char*> argv, envp;
  for (auto& arg : app) argv.push_back(arg.data());
  argv.push_back(nullptr);
  for (auto& variable : environment) envp.push_back(variable.data());
  envp.push_back(nullptr);
  pid_t child = 0;
  if (const int error = posix_spawnp(&child, argv[0], nullptr, nullptr, argv.data(), envp.data()); error != 0) {
    fs::remove_all(session);
    throw InputError("cannot start '" + app[0] + "': " + std::strerror(error));
  }
  forward_signals_to(child);
  const AppEnd app_end = wait_for(child);

  const auto outputs = collect_outputs(session, child, app_end);
  fs::remove_all(session);
  if (outputs.empty()) {
    std::cerr << "limiter: no kernel was profiled (the app launched none, or profiling was disabled: see the "
                 "messages above)\n";
  }
  std::uint64_t missed_total = 0, profiled_total = 0;
  for (const auto& path : outputs) {
    SummaryOptions summary_options;
    summary_options.keep_launches_up_to = 10000;  // the automatic view of a small run lists launches
    const RunSummary summary = summarize_run_file(path, {}, summary_options);
    if (!quiet && summary.launches > 0) {
      ReportOptions report_options;
      report_options.details = false;
      std::cerr << "\n";
      write_text_report(summary, std::cerr, report_options);
    }
    // A sampled record holds a few aggregates: read whole for its sampling figures.
    const std::optional<SamplingInfo> sampled =
        summary.run.source == "cupti-pm-sampling" ? read_run_file(path).sampling : std::nullopt;
    if (sampled) {
      std::cerr << "limiter: " << summary.launches << " launches sampled, " << sampled->samples << " samples ("
                << sampled->samples_lost << " lost) -> " << path << "\n";
    } else {
      std::cerr << "limiter: " << summary.launches << " launches profiled -> " << path << "\n";
    }
    profiled_total += summary.launches;
    for (const auto& missed : summary.run.missed) {
      const std::string what = sampled && missed.launches == 0
                                   ? "limiter: NOT sampled: "
                                   : "limiter: " + std::to_string(missed.launches) + " launches NOT profiled: ";
      std::cerr << what << missed.reason << "; fix: " << missed.fix << "\n";
      missed_total += missed.launches;
    }
  }
  if (!nvtx_include.empty() && profiled_total == 0) {
    std::cerr << "limiter: no launch was inside the --nvtx-include ranges: check the expressions against the app's "
                 "ranges (a record without filters lists them per launch), push/pop ranges end with '/'\n";
  }
  if (fail_on_missed && missed_total > 0 && app_end.exit_code == 0) return kExitMissed;
  return app_end.exit_code;
}

}  // namespace limiter::cli
