#pragma once
// Hand-made timelines, one per program verdict, for the unit tests: what the collector would
// record of a program that is launch-, sync-, copy-, host- or GPU-bound (timestamps in ns).
#include <algorithm>
#include <cstdint>
#include <string>

#include "limiter/timeline.hpp"

namespace limiter::testing {

inline TimelineEvent timeline_event(ActivityKind kind, std::uint64_t start, std::uint64_t end, std::string name) {
  TimelineEvent e;
  e.kind = kind;
  e.start_ns = start;
  e.end_ns = end;
  e.name = std::move(name);
  if (kind == ActivityKind::kernel || kind == ActivityKind::memcpy || kind == ActivityKind::memset) {
    e.stream_id = 7;
    e.device = 0;
    e.context_id = 1;
  } else {
    e.thread_id = 100;
  }
  return e;
}

enum class Shape { launch_bound, gpu_bound, sync_bound, copy_bound, host_bound };

// KERNELS steps of the program of SHAPE, each step one kernel (sequence = step).
inline Timeline synthetic_timeline(Shape shape, std::uint64_t kernels = 2000) {
  Timeline t;
  std::uint64_t now = 1'000'000;
  t.start_ns = now;
  std::uint32_t correlation = 1;
  for (std::uint64_t i = 0; i < kernels; ++i) {
    const auto add = [&](ActivityKind kind, std::uint64_t start, std::uint64_t end,
                         std::string name) -> TimelineEvent& {
      t.events.push_back(timeline_event(kind, start, end, std::move(name)));
      t.events.back().correlation_id = correlation;
      return t.events.back();
    };
    std::uint64_t kernel_start = 0, kernel_ns = 0;
    switch (shape) {
      case Shape::launch_bound:  // a 2 us kernel after each 8 us launch call: the queue runs dry
        add(ActivityKind::api_call, now, now + 8'000, "cuLaunchKernel");
        kernel_start = now + 6'000, kernel_ns = 2'000;
        now += 8'500;
        break;
      case Shape::gpu_bound:  // 500 us kernels back to back, launched well ahead
        add(ActivityKind::api_call, now, now + 5'000, "cuLaunchKernel");
        kernel_start = 1'010'000 + i * 500'000, kernel_ns = 500'000;
        now = i + 1 < kernels ? kernel_start : kernel_start + kernel_ns;
        break;
      case Shape::sync_bound:  // a kernel, then a synchronisation that returns 60 us after it ends
        add(ActivityKind::api_call, now, now + 4'000, "cuLaunchKernel");
        kernel_start = now + 3'000, kernel_ns = 20'000;
        add(ActivityKind::api_call, now + 4'000, kernel_start + kernel_ns + 60'000, "cuStreamSynchronize");
        add(ActivityKind::synchronization, now + 4'000, kernel_start + kernel_ns + 60'000, "stream");
        now = kernel_start + kernel_ns + 65'000;
        break;
      case Shape::copy_bound: {  // a pageable 8 MB HtoD copy staged by the host before a short kernel
        add(ActivityKind::api_call, now, now + 90'000, "cuMemcpyHtoD_v2");
        auto& copy = add(ActivityKind::memcpy, now + 70'000, now + 88'000, "HtoD");
        copy.bytes = 8u << 20;
        copy.pageable = true;
        ++correlation;
        add(ActivityKind::api_call, now + 90'000, now + 94'000, "cuLaunchKernel");
        kernel_start = now + 93'000, kernel_ns = 10'000;
        now += 104'000;
        break;
      }
      case Shape::host_bound:  // 80 us of Python between 5 us launch calls of 30 us kernels
        add(ActivityKind::api_call, now, now + 5'000, "cuLaunchKernel");
        kernel_start = now + 4'000, kernel_ns = 30'000;
        now += 85'000;
        break;
    }
    auto& kernel = add(ActivityKind::kernel, kernel_start, kernel_start + kernel_ns, "kernel_" + std::to_string(i % 3));
    kernel.launch_sequence = i;
    ++correlation;
  }
  normalize_timeline(t);
  return t;
}

}  // namespace limiter::testing
