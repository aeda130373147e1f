#include "run_options.hpp"

#include <filesystem>

#include "limiter/error.hpp"
#include "options.hpp"

namespace limiter::cli {

bool parse_run_flags(const Args& ours, RunFlags& flags) {
  po::options_description visible("options");
  std::string output, kernel_regex, plan, metrics, raw_dir, replay, graph_profiling, push_pop_scope;
  std::string capture_range = "none";
  std::uint64_t skip = 0, count = 0, sample_every = 1, per_kernel_skip = 0, per_kernel_count = 0;
  bool quiet = false, timing = false, fail_on_missed = false, no_nvtx = false, budget_by_range = false;
  bool sampling = false, trace = false, stalls = false, every_launch = false;
  std::uint64_t stall_window_ms = CollectorOptions{}.stall_window_ms;
  std::uint32_t stall_period = 0;
  std::string cache_control = "none";
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
       ("the budget: profile only the first N launches of each kernel and launch configuration; the others run at "
        "full speed (a steady-state training loop pays only for its first steps). The default run's counters "
        "phase has a budget of " + std::to_string(kDefaultBudgetCount) + "; with --every-launch no budget unless given").c_str())
      ("per-kernel-skip", po::value(&per_kernel_skip)->default_value(0),
       "launches of each kernel and launch configuration to skip before its budget starts (warm-up)")
      ("every-launch", po::bool_switch(&every_launch),
       "exact counters alone, for every launch the filters select (-k, -s, -c, budgets), each one serialised "
       "(~1.5 ms a launch): the kernel verdicts without the timeline or stall reasons. By default limiter run "
       "samples stall reasons for --stall-window, then profiles each kernel's first launches, then records the "
       "timeline to the end: every answer in one run")
      ("stall-window", po::value(&stall_window_ms)->default_value(stall_window_ms),
       "the longest the default run's first phase, PC sampling, lasts, in milliseconds from its first launch "
       "(once sampling's set-up is done); it "
       "ends sooner at 5 million samples, or once 256 launches in a row bring no new kernel (after 100 ms); "
       "kernels first seen after it have no stall reasons")
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
      ("trace", po::bool_switch(&trace),
       "the activity timeline alone: kernels, copies, memsets, synchronisations and the driver calls that issued "
       "them, with no counters and no range profiler (the app runs at about full speed); the report leads with the "
       "program verdict (is the GPU the bottleneck, or launches, synchronisations, copies, the host?) and `limiter "
       "export --format perfetto` draws the timeline. The exact modes record no timeline: kernel records "
       "instrument the kernels and change their counters")
      ("stalls", po::bool_switch(&stalls),
       "PC sampling alone (CUPTI's PC Sampling API, continuous; no counters: not with --plan, --metrics, the "
       "launch filters, --sampling or --trace): why each kernel waits. Warp samples per kernel by stall reason "
       "(named as Nsight Compute's Warp State section names them), its 20 hottest instructions with their source "
       "lines (build with -lineinfo) and SASS (nvdisasm, run after the app; --save-raw DIR keeps the cubins), and "
       "the samples lost to full buffers; a latency-limited kernel's verdict names its dominant stall reasons")
      ("stall-period", po::value(&stall_period),
       "with --stalls or the default run: one sample per SM every 2^N cycles, N from 5 to 31 (default: CUPTI's, 2^11 on an H100; "
       "smaller: more samples, more cost, and below ~2^10 the hardware buffer can fill: its samples are lost, and "
       "counted)")
      ("cache-control", po::value(&cache_control)->default_value("none"),
       "none: measure each kernel in the app's own cache state (limiter's default); all: flush and invalidate L2 "
       "before each exactly profiled launch, as Nsight Compute does by default (its DRAM figures of short kernels "
       "then match ncu's)")
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
  if (!parse_options(ours, "limiter run [options] -- app [args...]", visible, positional, vm)) return false;
  if (!vm["plan"].defaulted() && vm.count("metrics"))  // a typed --plan; its default goes with --metrics
    throw InputError("--plan and --metrics cannot go together: --metrics replaces the plan");
  if (vm.count("exact-undecided") && exact_undecided == 0)
    throw InputError("--exact-undecided N goes with --sampling, N at least 1");
  if (capture_range != "none" && capture_range != "cudaProfilerApi")
    throw InputError("--capture-range must be none or cudaProfilerApi (for NVTX ranges: --nvtx-include)");
  if (push_pop_scope != "thread" && push_pop_scope != "process")
    throw InputError("--nvtx-push-pop-scope must be thread or process");

  // Knobs without flags come from our own environment; every flag sets its field.
  CollectorOptions& o = flags.collector;
  o = collector_options_from_environment();
  o.plan = plan;
  o.metrics.clear();
  for (std::size_t start = 0; start < metrics.size();) {
    const std::size_t comma = std::min(metrics.find(',', start), metrics.size());
    if (comma > start) o.metrics.push_back(metrics.substr(start, comma - start));
    start = comma + 1;
  }
  o.kernel_regex = kernel_regex;
  o.skip = skip;
  o.count = vm.count("launch-count") ? count : CollectorOptions{}.count;
  o.sample_every = sample_every;
  o.per_kernel_skip = per_kernel_skip;
  o.per_kernel_count = vm.count("per-kernel-count") ? per_kernel_count : CollectorOptions{}.per_kernel_count;
  o.nvtx = !no_nvtx && !sampling;  // sampled aggregates carry no NVTX ranges
  o.nvtx_include = nvtx_include;
  o.nvtx_exclude = nvtx_exclude;
  o.nvtx_process_scope = push_pop_scope == "process";
  o.budget_by_range = budget_by_range;
  o.raw_dir = raw_dir.empty() ? "" : std::filesystem::absolute(raw_dir).string();
  o.replay = replay == "graphs" ? "auto" : replay;  // the opt-in name of what auto now does
  o.graph_profiling = graph_profiling;
  o.profiler_api_regions = capture_range == "cudaProfilerApi";
  o.always_active = !o.profiler_api_regions;
  o.sampling = sampling;
  o.trace = trace;
  o.stalls = stalls;
  o.every_launch = every_launch;
  o.stall_window_ms = stall_window_ms;
  o.stall_period_log2 = stall_period;
  o.cache_control = cache_control;
  o.sampling_interval_ns = sampling_interval_us * 1000;
  o.exact_undecided_count = exact_undecided;
  o.sampling_phase_launches = sampling_phase;
  o.lock_timeout_s = lock_timeout;
  validate_collector_options(o);  // --sampling turns NVTX off: its message comes before --no-nvtx's
  flags.output = output;
  flags.output_is_default = vm["output"].defaulted();
  flags.quiet = quiet;
  flags.timing = timing;
  flags.fail_on_missed = fail_on_missed;
  return true;
}

}  // namespace limiter::cli
