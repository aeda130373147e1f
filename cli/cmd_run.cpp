// limiter run [options] -- app args: profile every kernel of any CUDA application through
// liblimiter_inject.so (CUDA_INJECTION64_PATH). The app's output and exit code pass through.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "limiter/analysis.hpp"
#include "limiter/stall_sass.hpp"
#include "limiter/error.hpp"
#include "limiter/record_json.hpp"
#include "limiter/reports.hpp"
#include "limiter/run_summary.hpp"
#include "options.hpp"
#include "run_options.hpp"

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

volatile sig_atomic_t app_pid = 0;

// SIGTERM, SIGHUP or a SIGINT sent to limiter alone (kill, a job scheduler) goes on to the app,
// which then writes its record; limiter waits for it. A SIGINT from the terminal reached the
// app already (same process group): limiter only waits.
void forward_to_app(int signal, siginfo_t* info, void*) {
  if (app_pid > 0 && (signal != SIGINT || info->si_code == SI_USER || info->si_code == SI_QUEUE)) kill(app_pid, signal);
}

void forward_signals_to(pid_t child) {
  app_pid = child;
  struct sigaction action {};
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

// The hot PCs' SASS from the cubins the processes kept (RAW_ROOT/<pid>/cubins), by nvdisasm, here
// after the app ended rather than inside it; the record rewritten with it.
// CLOSING: the run's last line names the record (--stalls); the default run closes with its launches' line.
// The record as written, for the summary to read from memory (read again it costs ~1 s per 100,000
// timeline events); nothing where it was not read or holds no samples.
std::optional<RunRecord> add_stall_sass(const std::string& path, const std::string& raw_root, bool closing) {
  try {
    RunRecord run = read_run_file(path);
    if (!run.stalls) return std::nullopt;
    std::vector<std::string> dirs;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(raw_root, error))
      dirs.push_back((entry.path() / "cubins").string());
    const auto sass_started = std::chrono::steady_clock::now();
    SassRuns runs;
    const std::string note = fill_sass(*run.stalls, dirs, find_nvdisasm(), std::chrono::seconds(30), &runs);
    const double sass_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - sass_started).count();
    if (!note.empty()) std::cerr << "limiter: SASS of the hot PCs: " << note << "\n";
    write_run_file(run, path);
    std::cerr << "limiter: " << run.stalls->samples << " PC samples in " << run.stalls->kernels.size() << " kernels ("
              << run.stalls->dropped_samples << " dropped, hardware buffer full " << run.stalls->hardware_buffer_full
              << " times; SASS after the app " << std::fixed << std::setprecision(1) << sass_s
              << " s: " << runs.raw_instructions << " hot instructions in " << runs.raw_runs << " nvdisasm run(s), "
              << runs.cubin_runs << " cubin(s) one by one)" << (closing ? " -> " + path : "") << "\n";
    if (run.stalls->hardware_buffer_full > 0)
      std::cerr << "limiter: PC samples were lost: the hardware buffer filled " << run.stalls->hardware_buffer_full
                << " times (CUPTI keeps nothing of a full buffer); fix: a longer --stall-period (2^11 cycles, "
                   "the default on an H100, lost none where 2^8 lost all)\n";
    return run;
  } catch (const std::exception& e) {
    std::cerr << "limiter: no SASS for the hot PCs of " << path << ": " << e.what() << "\n";
    return std::nullopt;
  }
}

// The default run's phases in one line: where each answer came from, and what each cost.
std::string phases_line(const std::vector<PhaseWindow>& phases) {
  std::ostringstream line;
  line << std::fixed << std::setprecision(2);
  for (std::size_t i = 0; i < phases.size(); ++i) {
    const PhaseWindow& p = phases[i];
    line << (i ? "; " : "") << p.name;
    if (p.ended_by == "never began") {
      line << " never began";
      continue;
    }
    line << " " << static_cast<double>(p.duration_ns()) / 1e9 << " s, " << p.launches << " launches (" << p.ended_by
         << ")";
  }
  return line.str();
}

// What a default run that ended early lacks, and the mode that gets it: a short program can end
// inside the sampling window (no counters) or before the timeline phase (no program verdict).
std::string phases_hint(const std::vector<PhaseWindow>& phases) {
  const auto never = [&](const char* name) {
    return std::any_of(phases.begin(), phases.end(),
                       [&](const PhaseWindow& p) { return p.name == name && p.ended_by == "never began"; });
  };
  if (never("counters"))
    return "the app ended inside the PC-sampling window, so no kernel has counters: --every-launch profiles every "
           "launch exactly (or give a shorter --stall-window)";
  if (never("timeline"))
    return "the app ended before the timeline phase, so there is no program verdict: --trace records the timeline "
           "alone";
  return "";
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
  RunFlags flags;
  if (!parse_run_flags(ours, flags)) return kExitOk;
  if (app.empty()) throw InputError("no application given: limiter run [options] -- ./app args");
  flags.collector.command_line = app;
  const fs::path session = fs::temp_directory_path() / ("limiter-session-" + std::to_string(getpid()));
  // PC sampling (--stalls, the default run) keeps the sampled kernels' cubins (under --save-raw, else in
  // the session folder) for their SASS.
  const bool samples_pcs = flags.collector.stalls || runs_default_phases(flags.collector);
  if (samples_pcs)
    flags.collector.cubin_dir = flags.collector.raw_dir.empty() ? (session / "raw").string() : flags.collector.raw_dir;
  const CollectorOptions& options = flags.collector;
  fs::create_directories(session);
  std::vector<std::string> ours_set = collector_options_environment(options);
  auto set = [&](const std::string& name, const std::string& value) { ours_set.push_back(name + "=" + value); };
  const std::string injection = inject_library().string();
  set("CUDA_INJECTION64_PATH", injection);
  set("LIMITER_OUTPUT", fs::absolute(flags.output).string());
  set("LIMITER_OUTPUT_IS_DEFAULT", flags.output_is_default ? "1" : "0");  // ranks then name theirs by rank
  set("LIMITER_SESSION_DIR", session.string());
  set("LIMITER_RUN_PID", std::to_string(getpid()));  // the app's own process is our child; its workers are not
  if (flags.timing) set("LIMITER_TIMING", "1");
  // The app's NVTX calls go to limiter's own NVTX tool in the same library (nvtx_injection.hpp), not
  // to CUPTI's NVTX callbacks (~9 us a range); set before the app starts, so NVTX calls before
  // cuInit find it, and inherited by the programs it execs. A value of the user's is kept (the
  // injection says the ranges are then not recorded).
  if (options.nvtx && !std::getenv("NVTX_INJECTION64_PATH")) set("NVTX_INJECTION64_PATH", injection);
  // Live progress from inside the application, on a terminal only (logs stay clean).
  if (!flags.quiet && isatty(STDERR_FILENO)) set("LIMITER_PROGRESS", "1");
  // The app's environment: ours, less the variables we set (getenv would find the first).
  std::vector<std::string> environment;
  for (char** variable = environ; *variable; ++variable) {
    const std::string entry = *variable;
    const std::string name = entry.substr(0, entry.find('='));
    const bool replaced = std::any_of(ours_set.begin(), ours_set.end(), [&](const std::string& mine) {
      return mine.compare(0, name.size() + 1, name + "=") == 0;
    });
    if (!replaced) environment.push_back(entry);
  }
  environment.insert(environment.end(), ours_set.begin(), ours_set.end());

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
  std::map<std::string, RunRecord> with_sass;  // records read whole for their SASS: summarised from memory
  if (samples_pcs)
    for (const auto& path : outputs)
      if (auto run = add_stall_sass(path, options.cubin_dir, options.stalls)) with_sass.emplace(path, std::move(*run));
  fs::remove_all(session);
  if (outputs.empty()) {
    std::cerr << "limiter: no kernel was profiled (the app launched none, or profiling was disabled: see the "
                 "messages above)\n";
  }
  std::uint64_t missed_total = 0, profiled_total = 0;
  for (const auto& path : outputs) {
    SummaryOptions summary_options;
    summary_options.keep_launches_up_to = 10000;  // the automatic view of a small run lists launches
    const auto summary_started = std::chrono::steady_clock::now();
    const auto read = with_sass.find(path);
    const RunSummary summary = read != with_sass.end() ? summarize_record(read->second, {}, summary_options)
                                                       : summarize_run_file(path, {}, summary_options);
    if (read != with_sass.end()) with_sass.erase(read);  // its memory back before the next record
    if (flags.timing) {
      std::cerr << "limiter: " << path << " read back and summarised after the app in " << std::fixed
                << std::setprecision(2)
                << std::chrono::duration<double>(std::chrono::steady_clock::now() - summary_started).count() << " s\n";
    }
    if (!flags.quiet && (summary.launches > 0 || summary.program)) {  // --trace: the program verdict alone
      ReportOptions report_options;
      report_options.details = false;
      std::cerr << "\n";
      write_text_report(summary, std::cerr, report_options);
    }
    // A sampled record holds a few aggregates: read whole for its sampling figures.
    const std::optional<SamplingInfo> sampled =
        summary.run.source == "cupti-pm-sampling" ? read_run_file(path).sampling : std::nullopt;
    if (summary.run.source == "cupti" && summary.launches == 0 && summary.program) {  // --trace
      std::cerr << "limiter: timeline of " << summary.run.launches_seen.value_or(0) << " launches -> " << path << "\n";
    } else if (sampled) {
      std::cerr << "limiter: " << summary.launches << " launches sampled, " << sampled->samples << " samples ("
                << sampled->samples_lost << " lost) -> " << path << "\n";
    } else if (summary.run.source != "cupti-pc-sampling") {  // --stalls: said with its samples
      std::cerr << "limiter: " << summary.launches << " launches profiled -> " << path << "\n";
    }
    if (const auto& phases = summary.run.phases; !phases.empty()) {
      std::cerr << "limiter: phases: " << phases_line(phases) << "\n";
      if (const std::string hint = phases_hint(phases); !hint.empty()) std::cerr << "limiter: " << hint << "\n";
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
  if (!options.nvtx_include.empty() && profiled_total == 0) {
    std::cerr << "limiter: no launch was inside the --nvtx-include ranges: check the expressions against the app's "
                 "ranges (a record without filters lists them per launch), push/pop ranges end with '/'\n";
  }
  if (flags.fail_on_missed && missed_total > 0 && app_end.exit_code == 0) return kExitMissed;
  return app_end.exit_code;
}

}  // namespace limiter::cli
