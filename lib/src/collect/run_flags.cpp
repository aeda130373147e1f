// limiter run's options, one row each (limiter/run_flags.hpp). A new option is a field of
// CollectorOptions and a row here; its flag, variable, --help line and mode rule follow.
#include "limiter/run_flags.hpp"

#include <cctype>
#include <cstdlib>
#include <stdexcept>

#include "collect/run_flag_codecs.hpp"
#include "limiter/error.hpp"

namespace limiter {
namespace {

using namespace detail;
using O = CollectorOptions;
constexpr auto kUnset = std::numeric_limits<std::uint64_t>::max();
constexpr ModeSet kExact = kDefaultRun | kEveryLaunch;  // the modes with launch filters
constexpr ModeSet kCounters = kExact | kSamplingMode;   // the modes that read counters

std::vector<RunFlag> flag_rows() {
  return {
      {.name = "kernel-regex",
       .short_name = 'k',
       .help = "profile only kernels whose (demangled) name matches",
       .field = "kernel_regex",
       .modes = kExact,
       .codec = text_codec(&O::kernel_regex)},
      {.name = "launch-skip",
       .short_name = 's',
       .type = ValueType::number,
       .default_text = "0",
       .help = "matching launches to skip first",
       .field = "skip",
       .modes = kExact,
       .alias = "LIMITER_SKIP",
       .codec = number_codec(&O::skip)},
      {.name = "launch-count",
       .short_name = 'c',
       .type = ValueType::number,
       .help = "then profile at most this many (the app then runs unprofiled)",
       .field = "count",
       .modes = kExact,
       .alias = "LIMITER_COUNT",
       .codec = optional_number_codec(&O::count, kUnset)},
      {.name = "per-kernel-count",
       .type = ValueType::number,
       .help = "the budget: profile only the first N launches of each kernel and launch configuration; the others "
               "run at full speed (a steady-state training loop pays only for its first steps). The default run's "
               "counters phase has a budget of " +
               std::to_string(kDefaultBudgetCount) + "; with --every-launch no budget unless given",
       .field = "per_kernel_count",
       .modes = kCounters,
       .codec = optional_number_codec(&O::per_kernel_count, kUnset)},
      {.name = "per-kernel-skip",
       .type = ValueType::number,
       .default_text = "0",
       .help = "launches of each kernel and launch configuration to skip before its budget starts (warm-up)",
       .field = "per_kernel_skip",
       .modes = kCounters,
       .codec = number_codec(&O::per_kernel_skip)},
      {.name = "every-launch",
       .type = ValueType::on_off,
       .default_text = "0",
       .help = "exact counters alone, for every launch the filters select (-k, -s, -c, budgets), each one serialised "
               "(~1.5 ms a launch): the kernel verdicts without the timeline or stall reasons. By default limiter "
               "run samples stall reasons for --stall-window, then profiles each kernel's first launches, then "
               "records the timeline to the end: every answer in one run",
       .field = "every_launch",
       .modes = kEveryLaunch,
       .chooses = kEveryLaunch,
       .codec = on_off_codec(&O::every_launch)},
      {.name = "stall-window",
       .type = ValueType::number,
       .default_text = "1000",
       .help = "the longest the default run's first phase, PC sampling, lasts, in milliseconds from its first launch "
               "(once sampling's set-up is done); it ends sooner once 256 launches in a row bring no new kernel (after "
               "100 ms); kernels first seen after it have no stall reasons",
       .field = "stall_window_ms",
       .modes = kDefaultRun,
       .why = "--stall-window bounds the default run's PC-sampling phase",
       .alias = "LIMITER_STALL_WINDOW_MS",
       .codec = number_codec(&O::stall_window_ms, 1, "milliseconds")},
      {.name = "nvtx-include",
       .type = ValueType::list,
       .help = "profile only launches inside these NVTX ranges, in Nsight Compute's syntax (repeatable: any of "
               "them): \"A/\" push/pop range A at any level, \"A/B/\" B directly inside A, \"A/*/B/\" B anywhere "
               "inside A, \"[A/\" A outermost, \"A/B]\" B innermost, \"A\" start/end range A, \"Domain@A/\" a "
               "domain, \"regex:...\" names as regular expressions; other launches run at full speed",
       .field = "nvtx_include",
       .modes = kExact,
       .codec = json_list_codec(&O::nvtx_include)},
      {.name = "nvtx-exclude",
       .type = ValueType::list,
       .help = "profile no launch inside these NVTX ranges (same syntax; repeatable)",
       .field = "nvtx_exclude",
       .modes = kExact,
       .codec = json_list_codec(&O::nvtx_exclude)},
      {.name = "budget-by-range",
       .type = ValueType::on_off,
       .default_text = "0",
       .help = "--per-kernel-count/--per-kernel-skip count per kernel, launch configuration AND enclosing NVTX "
               "ranges (a kernel used in forward and backward gets a budget in each)",
       .field = "budget_by_range",
       .modes = kExact,
       .codec = on_off_codec(&O::budget_by_range)},
      {.name = "nvtx-push-pop-scope",
       .type = ValueType::choice,
       .default_text = "thread",
       .help = "thread: push/pop ranges belong to the thread that pushed them (Nsight Compute's default); process: "
               "one stack for all threads, so kernels that PyTorch's autograd thread launches fall inside the main "
               "thread's \"backward\" range",
       .field = "nvtx_process_scope",
       .codec = two_choice_codec(&O::nvtx_process_scope, "thread", "process")},
      {.name = "no-nvtx",
       .type = ValueType::on_off,
       .default_text = "0",
       .help = "do not record NVTX ranges (by default each launch records its enclosing ranges and reports roll up "
               "by range; --sampling records none)",
       .field = "nvtx (inverted)",
       .alias = "LIMITER_NVTX",
       .alias_codec = on_off_codec(&O::nvtx),
       .alias_note = "1: record them",
       .codec = on_off_codec(&O::nvtx, /*inverted=*/true)},
      {.name = "sample-every",
       .type = ValueType::number,
       .default_text = "1",
       .help = "profile every Nth launch of each kernel; a paused profiler resumes only for a new kernel or once "
               "half the kernels are due (a round), since each resume costs ~0.3 s",
       .field = "sample_every",
       .modes = kExact,
       .codec = number_codec(&O::sample_every, 1)},
      {.name = "plan",
       .default_text = "default",
       .help = "metric plan (`limiter metrics` lists them)",
       .field = "plan",
       .modes = kCounters,
       .codec = text_codec(&O::plan)},
      {.name = "metrics",
       .help = "comma-separated metrics instead of a plan (with --sampling alone: the sampled metrics; with "
               "--sampling --per-kernel-count: the exact phase's, the sampler keeps its plan)",
       .field = "metrics",
       .modes = kCounters,
       .codec = comma_list_codec(&O::metrics)},
      {.name = "save-raw",
       .help = "keep raw counter images in DIR for `limiter analyze DIR`",
       .field = "raw_dir",
       .modes = kAllModes & ~kTraceMode,
       .codec = text_codec(&O::raw_dir)},
      {.name = "replay",
       .type = ValueType::choice,
       .default_text = "auto",
       .help = "auto: user replay when the plan needs one pass (~1.5 ms per launch; CUDA graph launches too, see "
               "--graph-profiling), kernel replay when it needs several; kernel: kernel replay always (~50 ms per "
               "launch)",
       .field = "replay",
       .modes = kExact,
       .codec = choice_codec(&O::replay, {"auto", "kernel"}, {{"graphs", "auto"}})},
      {.name = "graph-profiling",
       .type = ValueType::choice,
       .default_text = "node",
       .help = "CUDA graph launches under user replay. node: each kernel node in its own range (~1.7 ms per node; "
               "the app's graphs are kept alive until their executable graphs are destroyed); graph: one range per "
               "graph launch, a verdict for the whole graph (as ncu --graph-profiling graph)",
       .field = "graph_profiling",
       .modes = kExact,
       .codec = choice_codec(&O::graph_profiling, {"node", "graph"})},
      {.name = "sampling",
       .type = ValueType::on_off,
       .default_text = "0",
       .help = "PM-sampling mode: GPU-wide counters sampled at a fixed interval, no replay and no serialisation (the "
               "app runs at about full speed); samples attributed to kernels by time and aggregated per kernel and "
               "configuration; a verdict only where the samples support it; no LMEM shares. With "
               "--per-kernel-count N, each kernel's first N launches are profiled exactly before sampling begins: "
               "their verdict stands where the samples cannot decide, and they give the LMEM shares (on an H100 the "
               "samples then miss most SM-side work, and the exact launches judge every kernel)",
       .field = "sampling",
       .modes = kSamplingMode,
       .chooses = kSamplingMode,
       .codec = on_off_codec(&O::sampling)},
      {.name = "sampling-interval",
       .type = ValueType::number,
       .default_text = "100",
       .help = "with --sampling: microseconds between samples (50 judges more kernels but loses samples, counted)",
       .field = "sampling_interval_ns (in ns)",
       .alias = "LIMITER_SAMPLING_INTERVAL_NS",
       .alias_codec = number_codec(&O::sampling_interval_ns, 1000, "nanoseconds"),
       .alias_note = "in nanoseconds",
       .codec = microseconds_codec(&O::sampling_interval_ns, 1)},
      {.name = "exact-undecided",
       .type = ValueType::number,
       .help = "with --sampling: after the sampling phase, the next N launches of each kernel and configuration its "
               "samples could not judge (and of any new one) are profiled exactly, for their verdict and LMEM "
               "shares; the rest of the run is only counted (no samples: they miss the SMs after the range "
               "profiler ran, on an H100)",
       .field = "exact_undecided_count",
       .modes = kSamplingMode,
       .why = "--exact-undecided is --sampling's exact phase, for the kernels its samples left undecided",
       .codec = optional_number_codec(&O::exact_undecided_count, std::uint64_t{0}, 1)},
      {.name = "sampling-phase",
       .type = ValueType::number,
       .default_text = "20000",
       .help = "with --exact-undecided: launches sampled before the exact phase (a run that ends first keeps the "
               "samples only)",
       .field = "sampling_phase_launches",
       .modes = kSamplingMode,
       .why = "--sampling-phase is the length of --sampling --exact-undecided's sampling phase",
       .codec = number_codec(&O::sampling_phase_launches)},
      {.name = "trace",
       .type = ValueType::on_off,
       .default_text = "0",
       .help = "the activity timeline alone: kernels, copies, memsets, synchronisations and the driver calls that "
               "issued them, with no counters and no range profiler (the app runs at about full speed); the report "
               "leads with the program verdict (is the GPU the bottleneck, or launches, synchronisations, copies, "
               "the host?) and `limiter export --format perfetto` draws the timeline",
       .field = "trace",
       .modes = kTraceMode,
       .chooses = kTraceMode,
       .alias = "LIMITER_ACTIVITY_TRACE",
       .codec = on_off_codec(&O::trace)},
      {.name = "stalls",
       .type = ValueType::on_off,
       .default_text = "0",
       .help = "PC sampling alone (CUPTI's PC Sampling API, continuous; no counters: not with --plan, --metrics, the "
               "launch filters, --sampling or --trace): why each kernel waits. Warp samples per kernel by stall "
               "reason (named as Nsight Compute's Warp State section names them), its 20 hottest instructions with "
               "their source lines (build with -lineinfo) and SASS (nvdisasm, run after the app; --save-raw DIR "
               "keeps the cubins), and the samples lost to full buffers; a latency-limited kernel's verdict names "
               "its dominant stall reasons",
       .field = "stalls",
       .modes = kStallsMode,
       .chooses = kStallsMode,
       .codec = on_off_codec(&O::stalls)},
      {.name = "stall-period",
       .type = ValueType::number,
       .help = "with --stalls or the default run: one sample per SM every 2^N cycles, N from 5 to 31 (default: "
               "--stalls CUPTI's, 2^11 on an H100; the default run's window at most ~40M samples a second over the "
               "GPU, 2^13 on an H100 or H200; smaller: more samples, more cost, and below ~2^10 the hardware buffer "
               "can fill: its samples are lost, and counted)",
       .field = "stall_period_log2",
       .modes = kDefaultRun | kStallsMode,
       .why = "--stall-period sets PC sampling's period, which only --stalls and the default run use",
       .codec = optional_number_codec(&O::stall_period_log2, std::uint32_t{0}, 5, "one sample every 2^N cycles", 31,
                                      /*unset_as_number=*/true)},
      {.name = "cache-control",
       .type = ValueType::choice,
       .default_text = "none",
       .help = "none: measure each kernel in the app's own cache state (limiter's default); all: flush and "
               "invalidate L2 before each exactly profiled launch, as Nsight Compute does by default (its DRAM "
               "figures of short kernels then match ncu's)",
       .field = "cache_control",
       .modes = kCounters,
       .why = "--cache-control all flushes L2 before each exactly profiled launch",
       .codec = choice_codec(&O::cache_control, {"none", "all"})},
      {.name = "timeline",
       .type = ValueType::on_off,
       .default_text = "0",
       .help = "with --every-launch: the activity timeline beside the exact counters, for the program verdict too. "
               "Kernel records instrument the kernels: on an H100 the counters then read one more L2 write sector "
               "per kernel and up to +60 % instructions issued",
       .field = "timeline",
       .modes = kEveryLaunch,
       .why = "--timeline records the timeline beside --every-launch's counters (the default run records it after "
              "its counters phase, --trace alone)",
       .codec = on_off_codec(&O::timeline)},
      {.name = "capture-range",
       .type = ValueType::choice,
       .default_text = "none",
       .help = "none: profile from the start; cudaProfilerApi: only between cudaProfilerStart and cudaProfilerStop "
               "(any number of times; torch.cuda.profiler.start/stop), the rest of the app at full speed",
       .field = "profiler_api_regions",
       .modes = kAllModes & ~kSamplingMode,
       .hint = "for NVTX ranges: --nvtx-include",
       .codec = two_choice_codec(&O::profiler_api_regions, "none", "cudaProfilerApi")},
      {.name = "lock-timeout",
       .type = ValueType::seconds,
       .default_text = "60",
       .help = "seconds a process waits for its turn on a GPU's counters while other profiled processes have it",
       .field = "lock_timeout_s",
       .codec = seconds_codec(&O::lock_timeout_s)},
  };
}

// Variables alone: measurement knobs, and what limiter run itself passes on.
std::vector<RunFlag> variable_rows() {
  const auto knob = [](std::string name, ValueType type, std::string default_text, std::string help, std::string field,
                       FlagCodec codec) {
    return RunFlag{.name = std::move(name),
                   .kind = FlagKind::knob,
                   .type = type,
                   .default_text = std::move(default_text),
                   .help = std::move(help),
                   .field = std::move(field),
                   .codec = std::move(codec)};
  };
  std::vector<RunFlag> rows = {
      knob("debug", ValueType::on_off, "0", "1: trace the collector's steps on stderr", "debug",
           on_off_codec(&O::debug)),
      knob("lock-dir", ValueType::text, "/tmp",
           "where the per-GPU counter locks live (every profiled process of a machine must share it)", "lock_dir",
           text_codec(&O::lock_dir)),
      knob("ranges-per-image", ValueType::number, "0", "ranges per counter-data image and user-replay batch (0: 128)",
           "ranges_per_image", number_codec(&O::ranges_per_image)),
      knob("filter-ranges", ValueType::choice, "user",
           "auto: auto range under selection filters, the earlier behaviour, for benchmarks", "auto_range_for_filters",
           two_choice_codec(&O::auto_range_for_filters, "user", "auto")),
      knob("range-sync", ValueType::choice, "none",
           "synchronise before each user range's pop: none, graph (graph nodes) or all", "range_sync",
           choice_codec(&O::range_sync, {"none", "graph", "all"})),
      knob("pm-buffer-mib", ValueType::number, "512", "the PM sampler's hardware buffer, in MiB", "pm_buffer_mib",
           number_codec(&O::pm_buffer_mib, 1)),
      knob("pm-raw-images", ValueType::on_off, "0",
           "1: with --save-raw, the PM sampler's counter-data images too (~58 kB a sample)", "keep_pm_images",
           on_off_codec(&O::keep_pm_images)),
      knob("api-records", ValueType::on_off, "1",
           "0: launch calls from the driver's callbacks, copies and waits from their GPU-side records, instead of "
           "CUPTI's API records",
           "api_records", on_off_codec(&O::api_records)),
      knob("stall-window-samples", ValueType::number, "5000000",
           "the default run's PC-sampling phase ends at this many samples, counted as CUPTI hands them over (on an "
           "H100 or H200 with CUDA 13.0 only at the window's end: there it never shortens the window)",
           "stall_window_samples", number_codec(&O::stall_window_samples)),
  };
  rows.back().modes = kDefaultRun;
  rows.back().why = "LIMITER_STALL_WINDOW_SAMPLES bounds the default run's PC-sampling phase";
  const auto internal = [&](std::string name, ValueType type, std::string help, std::string field, FlagCodec codec) {
    RunFlag row = knob(std::move(name), type, "", std::move(help), std::move(field), std::move(codec));
    row.kind = FlagKind::internal;
    return row;
  };
  rows.push_back(internal("command", ValueType::list, "the application's command line, recorded in the run",
                          "command_line", json_list_codec(&O::command_line)));
  rows.push_back(internal("cubin-dir", ValueType::text, "where PC sampling keeps the sampled kernels' cubins",
                          "cubin_dir", text_codec(&O::cubin_dir)));
  rows.push_back(internal("always-active", ValueType::on_off,
                          "profile from the first launch (not under --capture-range cudaProfilerApi)", "always_active",
                          on_off_codec(&O::always_active)));
  return rows;
}

}  // namespace

ModeSet mode_of(const CollectorOptions& o) {
  if (o.every_launch) return kEveryLaunch;
  if (o.trace) return kTraceMode;
  if (o.stalls) return kStallsMode;
  if (o.sampling) return kSamplingMode;
  return kDefaultRun;
}

const std::vector<RunFlag>& run_flags() {
  static const std::vector<RunFlag> rows = [] {
    std::vector<RunFlag> all = flag_rows();
    for (auto& row : variable_rows()) all.push_back(std::move(row));
    return all;
  }();
  return rows;
}

const RunFlag& run_flag(const std::string& name) {
  for (const auto& row : run_flags())
    if (row.name == name) return row;
  throw std::logic_error("no row '" + name + "' in limiter run's table of flags");
}

std::string environment_name(const RunFlag& flag) {
  std::string name = "LIMITER_";
  for (char c : flag.name) name += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return name;
}

std::string display_name(const RunFlag& flag) {
  return flag.kind == FlagKind::flag ? "--" + flag.name : environment_name(flag);
}

bool in_effect(const RunFlag& flag, const CollectorOptions& options) {
  return flag.codec.get(options) != flag.default_text;
}

void set_run_flag(const RunFlag& flag, CollectorOptions& options, const std::string& text, const std::string& who,
                  const FlagCodec* codec) {
  const std::string problem = (codec ? *codec : flag.codec).set(options, text);
  if (problem.empty()) return;
  throw InputError(who + " " + problem + ", not '" + text + "'" + (flag.hint.empty() ? "" : " (" + flag.hint + ")"));
}

bool set_from_environment(const RunFlag& flag, CollectorOptions& options, const EnvironmentLookup& lookup) {
  const auto value = [&](const std::string& name) { return lookup ? lookup(name.c_str()) : std::getenv(name.c_str()); };
  const std::string name = environment_name(flag);
  const char* text = value(name);
  if (!text && !flag.alias.empty()) {  // the older name, in its own unit where it has one
    if (const char* old_text = value(flag.alias); old_text && *old_text) {
      set_run_flag(flag, options, old_text, flag.alias, flag.alias_codec ? &*flag.alias_codec : nullptr);
      return true;
    }
  }
  if (!text || !*text) return false;
  set_run_flag(flag, options, text, name);
  return true;
}

}  // namespace limiter
