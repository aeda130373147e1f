#pragma once
// The activity timeline of a profiled window (CUPTI Activity records: kernels, copies, memsets,
// synchronisations, the driver calls that issued them, NVTX ranges), as plain values: what the
// program verdict (program_verdict.hpp) and the Perfetto export read. The collector fills it
// (ActivitySession); everything that reads it builds and is tested without a GPU.
//
// JSON ("timeline" in a run record, before "launches"):
//   {"start_ns": N, "end_ns": N, "dropped_records": N,
//    "events": [{"kind": "kernel", "start_ns": N, "end_ns": N, "stream_id": N, ...}, ...]}
// with the field names below; an unset optional is left out.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "limiter/dim3.hpp"

namespace limiter {

enum class ActivityKind { kernel, memcpy, memset, synchronization, api_call, nvtx_range };

// "kernel", "memcpy", "memset", "synchronization", "api_call", "nvtx_range".
std::string_view to_string(ActivityKind kind);
// The kind named by TEXT; empty for a name this version does not know.
std::optional<ActivityKind> activity_kind_from_string(std::string_view text);

struct TimelineEvent {
  ActivityKind kind = ActivityKind::kernel;
  std::uint64_t start_ns = 0, end_ns = 0;  // CUPTI timestamps, ns, one clock per process
  std::optional<std::uint64_t> stream_id, context_id;
  std::optional<int> device;
  std::uint32_t correlation_id = 0;  // joins an API call to the GPU work it issued (0: none)
  // kernel: demangled name; memcpy: "HtoD"/"DtoH"/"DtoD"/"HtoH"/"PtoP"; memset: "memset";
  // synchronization: "context"/"stream"/"event"/"stream wait event"; api_call: the driver
  // function ("cuLaunchKernel", "cuMemcpyHtoD_v2", "cuStreamSynchronize", ...); nvtx_range: its
  // path "outer/inner/".
  std::string name;
  std::optional<std::uint64_t> bytes;            // memcpy, memset
  std::optional<bool> pageable;                  // memcpy: host side in pageable memory
  std::optional<std::uint32_t> thread_id;        // api_call, synchronization, nvtx_range: the host thread
  std::optional<std::uint64_t> launch_sequence;  // kernel: the KernelLaunch::sequence it is, when the record has it
  // kernel: its launch configuration, which keys per-kernel figures as launches' do (unset in
  // records before it: such events match a kernel by name alone).
  std::optional<Dim3> grid, block;
  std::uint64_t duration_ns() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
  friend bool operator==(const TimelineEvent&, const TimelineEvent&) = default;
};

struct Timeline {
  std::uint64_t start_ns = 0, end_ns = 0;  // the profiled window (first to last activity or region bounds)
  std::vector<TimelineEvent> events;       // sorted by start_ns
  std::uint64_t dropped_records = 0;       // activity records CUPTI dropped, and launch calls over limiter's
                                           // bound: reported, never silent
  // NVTX ranges not kept (over the collector's bound), and those still open at the end, closed at
  // the window's end ("nvtx_ranges_dropped", "nvtx_ranges_unclosed"; left out when 0).
  std::uint64_t nvtx_ranges_dropped = 0, nvtx_ranges_unclosed = 0;
  std::uint64_t duration_ns() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
  friend bool operator==(const Timeline&, const Timeline&) = default;
};

// Sorts EVENTS by start (then end, kind) and widens the window to hold them all: what a reader
// or a collector does before handing a timeline on.
void normalize_timeline(Timeline& timeline);
// What normalize_timeline would leave as it is (sorted, the window covering the events).
bool is_normalized(const Timeline& timeline);

// TIMELINE's events that overlap [START_NS, END_NS), clipped to it, in a timeline whose window is
// exactly that (an instant event is kept when it lies inside): one phase of a run of several.
// Dropped-record counts are the whole timeline's.
Timeline timeline_between(const Timeline& timeline, std::uint64_t start_ns, std::uint64_t end_ns);

}  // namespace limiter
