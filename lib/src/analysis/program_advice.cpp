// The program verdict in words: its reason, its advice and the program-level fixes, each with
// the numbers it rests on (program_verdict.hpp).
#include <algorithm>

#include "limiter/format.hpp"
#include "limiter/program_verdict.hpp"

namespace limiter::detail {
namespace {

std::string pct(double share) { return format_percent(share); }
std::string ms(double ns) { return format_duration_ns(ns); }

// The idle causes with any time, most first: "host outside CUDA 61.0%, launch calls 28.0%".
std::string idle_parts(const TimeSplit& s) {
  struct Part {
    const char* what;
    double ns;
  };
  std::vector<Part> parts = {{"the host outside CUDA", s.idle_host_ns},
                             {"inside launch calls", s.idle_launch_ns},
                             {"synchronising", s.idle_sync_ns},
                             {"inside copy calls", s.idle_copy_ns},
                             {"with no host activity recorded", s.idle_unattributed_ns}};
  std::stable_sort(parts.begin(), parts.end(), [](const Part& a, const Part& b) { return a.ns > b.ns; });
  std::string text;
  for (const auto& p : parts) {
    if (p.ns <= 0) continue;
    text += (text.empty() ? "" : ", ") + std::string(p.what) + " " + pct(s.idle_ns > 0 ? p.ns / s.idle_ns : 0);
  }
  return text;
}

bool short_kernels(const ProgramVerdict& p) {
  return p.evidence.kernels > 0 && p.evidence.mean_kernel_ns < p.thresholds.short_kernel_ns;
}

const char* kGraphs =
    "capture the steady loop in a CUDA graph (torch.cuda.graphs, torch.compile(mode=\"reduce-overhead\"), "
    "cudaStreamBeginCapture) so that one launch replays every kernel";

std::string advice_for(ProgramBound bound, const ProgramVerdict& p) {
  const auto& s = p.split;
  const auto& ev = p.evidence;
  switch (bound) {
    case ProgramBound::gpu:
      return "The GPU is busy " + pct(s.busy_share()) +
             " of the window: the kernels' own verdicts below say what to fix.";
    case ProgramBound::launch:
      return "The queue runs dry between launches: the GPU is idle " + ms(s.idle_launch_ns) + " (" +
             pct(s.share(s.idle_launch_ns)) + " of the window) while the host is inside launch calls (" +
             std::to_string(ev.launch_calls) + " calls of " + ms(ev.mean_launch_call_ns) + " on average, kernels of " +
             ms(ev.mean_kernel_ns) + "): " + kGraphs + "; or launch fewer, larger kernels (fusion, larger batches).";
    case ProgramBound::sync:
      return "The host waits in synchronisations while the GPU is idle: " + ms(s.idle_sync_ns) + " (" +
             pct(s.share(s.idle_sync_ns)) + " of the window, " + std::to_string(ev.synchronizations) +
             " synchronisations): synchronise less (no .item(), .cpu() or printing of GPU tensors inside the loop; "
             "cudaStreamSynchronize only where a result is needed, events otherwise) and copy asynchronously "
             "(cudaMemcpyAsync from pinned memory, non_blocking=True).";
    case ProgramBound::copy:
      return "Copies are on the critical path: " + ms(s.idle_copy_ns) + " idle while the host copies and " +
             ms(s.copy_only_ns) + " of copies with no kernel running (" + pct(s.share(s.time_of(ProgramBound::copy))) +
             " of the window; " + std::to_string(ev.pageable_copies) + " of " + std::to_string(ev.copies) +
             " copies from pageable memory, " + format_bytes(static_cast<double>(ev.pageable_copy_bytes)) +
             "): use pinned host memory (cudaMallocHost, pin_memory=True), cudaMemcpyAsync on a second stream "
             "to overlap copies with kernels, and keep data on the GPU between steps.";
    case ProgramBound::host: {
      std::string text = "The host works outside CUDA while the GPU is idle: " + ms(s.idle_host_ns) + " (" +
                         pct(s.share(s.idle_host_ns)) + " of the window, " + format_fixed(ev.launches_per_second, 0) +
                         " launches a second): larger batches, fused kernels (torch.compile), less Python between "
                         "launches, data loading off the training thread (DataLoader workers)";
      if (short_kernels(p))
        text += std::string("; with kernels of ") + ms(ev.mean_kernel_ns) + " on average, " + kGraphs;
      return text + ".";
    }
    case ProgramBound::unknown:
      return "The GPU is idle " + pct(s.share(s.idle_ns)) +
             " of the window, and the record holds no API calls or synchronisations to say what the host was doing.";
  }
  return "";
}

std::string headline_for(ProgramBound bound, const ProgramVerdict& p) {
  switch (bound) {
    case ProgramBound::gpu:
      return "the kernels below";
    case ProgramBound::launch:
      return "CUDA graphs or torch.compile(mode=\"reduce-overhead\"): fewer launches";
    case ProgramBound::sync:
      return "fewer synchronisations, asynchronous copies";
    case ProgramBound::copy:
      return "pinned memory, copies overlapped with kernels";
    case ProgramBound::host:
      return short_kernels(p) ? "larger batches, fusion, less Python between launches (or CUDA graphs)"
                              : "larger batches, fusion, less Python between launches";
    case ProgramBound::unknown:
      return "record the host's API calls to say why the GPU idles";
  }
  return "";
}

// "1 pause of 5.6 s" / "3 pauses of 7.2 s in all, the longest 5.6 s".
std::string pauses_text(const ProgramVerdict& p) {
  if (p.pauses.size() == 1) return "1 pause of " + ms(p.paused_ns);
  double longest = 0;
  for (const auto& pause : p.pauses) longest = std::max(longest, pause.duration_ns());
  return std::to_string(p.pauses.size()) + " pauses of " + ms(p.paused_ns) + " in all, the longest " + ms(longest);
}

std::string pause_advice(const ProgramVerdict& p) {
  const double window = static_cast<double>(p.window_end_ns - p.window_start_ns);
  const auto& first = p.pauses.front();
  return "Set aside from the verdict: " + pauses_text(p) + " (" + pct(window > 0 ? p.paused_ns / window : 0) +
         " of the " + ms(window) + " recorded; the first " +
         ms(static_cast<double>(first.start_ns - p.window_start_ns)) + " into it), where the host worked for " +
         ms(p.thresholds.min_pause_ns) +
         " or more with the GPU idle and no CUDA call: imports, model building, compilation, loading, checkpoints. "
         "Where such a pause repeats in the work you care about, it is host time on the critical path: move that "
         "work off the training thread or overlap it with the GPU. To judge one loop alone, mark it with an NVTX "
         "range (it gets its own verdict) or profile it alone with --capture-range cudaProfilerApi.";
}

}  // namespace

void word_program_verdict(ProgramVerdict& p) {
  const auto& s = p.split;
  p.reason = std::string(to_string(p.verdict)) + ": the GPU is busy " + pct(s.busy_share()) + " of the " +
             ms(s.wall_ns) + " window" + (p.pauses.empty() ? "" : " without its pauses") + " (kernels " +
             pct(s.kernel_share()) + ", copies alone " + pct(s.share(s.copy_only_ns)) + ")";
  if (s.idle_ns > 0) p.reason += "; idle " + pct(s.share(s.idle_ns)) + ": " + idle_parts(s);
  p.reason += ".";
  if (!p.pauses.empty()) p.reason += " Set aside: " + pauses_text(p) + " of host work with the GPU idle.";
  if (p.evidence.dropped_records > 0)
    p.reason += " " + std::to_string(p.evidence.dropped_records) +
                " timeline records were dropped (CUPTI's activity records, or launch calls over limiter's bound or "
                "not written at the process's end): "
                "the busy and launch-call times are lower bounds.";
  p.advice = {advice_for(p.verdict, p)};
  if (p.verdict != ProgramBound::gpu && s.kernel_ns > 0)
    p.advice.push_back("Faster kernels shorten the run only where the host waits for them: the GPU is idle " +
                       pct(s.share(s.idle_ns)) + " of the window.");
  for (const auto bound :
       {ProgramBound::launch, ProgramBound::sync, ProgramBound::copy, ProgramBound::host, ProgramBound::unknown}) {
    const double ns = s.time_of(bound);
    if (s.wall_ns <= 0 || s.share(ns) < p.thresholds.fix_min_share) continue;
    p.fixes.push_back({bound, ns, s.share(ns), headline_for(bound, p), advice_for(bound, p)});
    if (bound != p.verdict && p.verdict != ProgramBound::gpu) p.advice.push_back(p.fixes.back().advice);
  }
  if (!p.pauses.empty()) p.advice.push_back(pause_advice(p));
  std::stable_sort(p.fixes.begin(), p.fixes.end(),
                   [](const ProgramFix& a, const ProgramFix& b) { return a.saveable_ns > b.saveable_ns; });
}

}  // namespace limiter::detail
