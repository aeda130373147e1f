#pragma once
// A hand-made record of `limiter run`'s default run (three phases), for the unit tests and for
// tests/data/default_run/synthetic_default_run.json (written from it, default_run_report_test.cpp):
//   counters  1.000-1.050 s: stream_copy twice and pointer_chase once, profiled (the H200 probe's
//             counters, tests/data/cupti/h200_probe_run.json);
//   samples   1.050-1.450 s: PC sampling; the host mostly idle outside CUDA (2 copies, 2 chases);
//   timeline  1.450-1.750 s: kernels back to back — stream_copy 10 x 12 ms, pointer_chase 5 x 20 ms
//             and late_kernel 4 x 15 ms, a kernel first seen there (no counters).
// The timeline starts at the counters phase's end. Judged on the timeline phase the program is
// GPU-bound; on the whole timeline it would read host-bound. PC samples: pointer_chase and
// late_kernel.
#include <cstdint>
#include <string>

#include "limiter/record.hpp"
#include "limiter/record_json.hpp"
#include "synthetic_timelines.hpp"
#include "test_data.hpp"

namespace limiter::testing {

inline constexpr std::uint64_t kCountersStart = 1'000'000'000, kSamplesStart = 1'050'000'000,
                               kTimelineStart = 1'450'000'000, kRunEnd = 1'750'000'000;
inline constexpr const char* kLateKernel = "late_kernel(float*, int)";

inline KernelStalls kernel_stalls(const std::string& name, StallCounts reasons, std::uint64_t pc, std::string sass,
                                  std::uint32_t line) {
  KernelStalls k;
  k.name = name;
  for (const auto& [reason, samples] : reasons) k.samples += samples;
  k.reasons = reasons;
  HotPc hot;
  hot.pc_offset = pc;
  hot.samples = k.samples;
  hot.reasons = std::move(reasons);
  hot.sass = std::move(sass);
  hot.file = "app.cu";
  hot.line = line;
  k.hot_pcs.push_back(std::move(hot));
  return k;
}

inline RunRecord synthetic_default_run() {
  const RunRecord probe = read_run_file(kData + "/cupti/h200_probe_run.json");
  RunRecord run;
  run.tool_version = "0.1.0";
  run.source = "cupti";
  run.created_at = "2026-11-28T00:00:00Z";
  run.command_line = {"synthetic", "default", "run"};
  run.device = probe.device;
  run.ended = "exit";
  run.cache_control = "none";
  const KernelLaunch& copy = probe.launches[0];   // stream_copy: bandwidth-limited
  const KernelLaunch& chase = probe.launches[4];  // pointer_chase: latency-limited
  for (const KernelLaunch* launch : {&copy, &chase, &copy}) {
    run.launches.push_back(*launch);
    run.launches.back().sequence = run.launches.size() - 1;
  }
  run.kernels_seen = {{copy.name, copy.grid, copy.block, 2}, {chase.name, chase.grid, chase.block, 1}};
  run.launches_seen = 26;  // 3 while profiling, 4 while sampling, 19 after
  run.phases = {{"counters", kCountersStart, kSamplesStart, 3, "budgets spent"},
                {"samples", kSamplesStart, kTimelineStart, 4, "window over"},
                {"timeline", kTimelineStart, kRunEnd, 19, "the app ended"}};

  Timeline t;
  t.start_ns = kSamplesStart;
  t.end_ns = kRunEnd;
  std::uint32_t correlation = 100;
  const auto launch = [&](const std::string& name, const Dim3& grid, const Dim3& block, std::uint64_t start,
                          std::uint64_t ns) {
    t.events.push_back(timeline_event(ActivityKind::api_call, start - 20'000, start - 10'000, "cuLaunchKernel"));
    t.events.back().correlation_id = correlation;
    t.events.push_back(timeline_event(ActivityKind::kernel, start, start + ns, name));
    t.events.back().correlation_id = correlation++;
    t.events.back().grid = grid;
    t.events.back().block = block;
    return start + ns;
  };
  // Sampling: a 1 ms kernel every 100 ms, the host busy outside CUDA in between.
  std::uint64_t now = kSamplesStart + 50'000'000;
  for (const KernelLaunch* k : {&copy, &chase, &copy, &chase}) {
    launch(k->name, k->grid, k->block, now, 1'000'000);
    now += 100'000'000;
  }
  // The app's own pace: back to back, each launched while the one before runs.
  now = kTimelineStart + 10'000'000;
  for (int i = 0; i < 10; ++i) now = launch(copy.name, copy.grid, copy.block, now, 12'000'000);
  for (int i = 0; i < 5; ++i) now = launch(chase.name, chase.grid, chase.block, now, 20'000'000);
  for (int i = 0; i < 4; ++i) now = launch(kLateKernel, {64, 1, 1}, {256, 1, 1}, now, 15'000'000);
  normalize_timeline(t);
  run.timeline = std::move(t);

  StallInfo stalls;
  stalls.sample_period_cycles = 4096;
  stalls.kernels = {kernel_stalls(chase.name, {{"long_scoreboard", 5200}, {"selected", 400}, {"wait", 400}}, 0x1a0,
                                  "LDG.E R2, [R2.64]", 41),
                    kernel_stalls(kLateKernel, {{"barrier", 2600}, {"selected", 300}, {"short_scoreboard", 100}}, 0x2f0,
                                  "BAR.SYNC.DEFER_BLOCKING 0x0", 77)};
  for (const auto& k : stalls.kernels) stalls.samples += k.samples;
  run.stalls = std::move(stalls);
  return run;
}

}  // namespace limiter::testing
