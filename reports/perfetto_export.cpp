// The timeline as a Chrome trace (perfetto_export.hpp). An event per line, so a trace of a
// million events is written without a DOM of them all.
#include "limiter/perfetto_export.hpp"

#include <map>
#include <ostream>
#include <tuple>

#include "limiter/format.hpp"
#include "limiter/json_text.hpp"
#include "verdict_colours.hpp"

namespace limiter {
namespace {

using ordered_json = nlohmann::ordered_json;

const char* kind_color(ActivityKind kind) {
  switch (kind) {
    case ActivityKind::kernel:
      return "grey";
    case ActivityKind::memcpy:
      return "rail_load";
    case ActivityKind::memset:
      return "olive";
    case ActivityKind::synchronization:
      return "bad";
    case ActivityKind::api_call:
      return "generic_work";
    case ActivityKind::nvtx_range:
      return "rail_idle";
  }
  return "grey";
}

// The track an event goes on: a GPU stream, or one of a host thread's three tracks.
struct TrackKey {
  int group = 0;  // 0: GPU stream, 1: CUDA calls, 2: synchronisations, 3: NVTX
  std::int64_t device = -1;
  std::uint64_t id = 0;  // stream or thread
  bool has_id = false;
  auto tie() const { return std::tie(group, device, id, has_id); }
  bool operator<(const TrackKey& other) const { return tie() < other.tie(); }
};

TrackKey track_of(const TimelineEvent& e) {
  switch (e.kind) {
    case ActivityKind::kernel:
    case ActivityKind::memcpy:
    case ActivityKind::memset:
      return {0, e.device.value_or(-1), e.stream_id.value_or(0), e.stream_id.has_value()};
    case ActivityKind::api_call:
      return {1, -1, e.thread_id.value_or(0), e.thread_id.has_value()};
    case ActivityKind::synchronization:
      return {2, -1, e.thread_id.value_or(0), e.thread_id.has_value()};
    case ActivityKind::nvtx_range:
      return {3, -1, e.thread_id.value_or(0), e.thread_id.has_value()};
  }
  return {};
}

std::string track_name(const TrackKey& t) {
  if (t.group == 0) {
    std::string name = t.device >= 0 ? "GPU " + std::to_string(t.device) + " " : "GPU ";
    return name + (t.has_id ? "stream " + std::to_string(t.id) : "(no stream)");
  }
  const std::string thread = t.has_id ? "thread " + std::to_string(t.id) : "host";
  return thread + (t.group == 1 ? ": CUDA calls" : t.group == 2 ? ": synchronisations" : ": NVTX ranges");
}

double us(std::uint64_t ns) { return static_cast<double>(ns) / 1000.0; }

void put(ordered_json& args, const char* key, const std::optional<double>& value) {
  if (value) args[key] = *value;
}

ordered_json event_args(const TimelineEvent& e, const PerfettoKernelArgs* kernel) {
  ordered_json args = ordered_json::object();
  if (kernel) {
    args["verdict"] = kernel->verdict ? to_string(*kernel->verdict) : "none";
    if (kernel->balanced) args["balanced"] = true;
    if (!kernel->limiting_unit.empty()) args["limiting_unit"] = kernel->limiting_unit;
    put(args, "issue_utilization", kernel->issue);
    put(args, "l2_utilization", kernel->l2);
    put(args, "dram_utilization", kernel->dram);
    put(args, "compute_utilization", kernel->compute);
    put(args, "memory_utilization", kernel->memory);
    put(args, "lmem_l2_share", kernel->lmem_l2_share);
    put(args, "lmem_instruction_share", kernel->lmem_instruction_share);
  }
  if (e.kind == ActivityKind::kernel && kernel) args["kernel"] = e.name;  // the full name; the event's is the short one
  if (e.launch_sequence) args["sequence"] = *e.launch_sequence;
  if (e.grid) args["grid"] = {e.grid->x, e.grid->y, e.grid->z};  // a kernel's configuration, where the record has it
  if (e.block) args["block"] = {e.block->x, e.block->y, e.block->z};
  if (e.correlation_id) args["correlation_id"] = e.correlation_id;
  if (e.stream_id) args["stream_id"] = *e.stream_id;
  if (e.context_id) args["context_id"] = *e.context_id;
  if (e.device) args["device"] = *e.device;
  if (e.bytes) args["bytes"] = *e.bytes;
  if (e.pageable) args["pageable"] = *e.pageable;
  args["duration_ns"] = e.duration_ns();
  return args;
}

std::string event_name(const TimelineEvent& e, const PerfettoKernelArgs* kernel) {
  switch (e.kind) {
    case ActivityKind::kernel:
      return kernel && !kernel->display_name.empty() ? kernel->display_name : e.name;
    case ActivityKind::memcpy:
      return "memcpy " + e.name;
    case ActivityKind::synchronization:
      return "sync " + e.name;
    default:
      return e.name.empty() ? std::string(to_string(e.kind)) : e.name;
  }
}

}  // namespace

const char* perfetto_verdict_color(const std::optional<Verdict>& verdict) { return verdict_colour(verdict).trace_name; }

PerfettoKernelArgs perfetto_kernel_args(const KernelAnalysis& k, const std::string& display_name) {
  PerfettoKernelArgs args;
  args.verdict = k.verdict;
  args.balanced = k.balanced;
  args.display_name = display_name;
  args.limiting_unit = k.limiting_unit;
  args.issue = k.utilization.issue;
  args.l2 = k.utilization.l2;
  args.dram = k.utilization.dram;
  args.compute = k.utilization.compute();
  args.memory = k.utilization.memory();
  args.lmem_l2_share = k.lmem.l2_share;
  args.lmem_instruction_share = k.lmem.instruction_share;
  return args;
}

std::size_t write_perfetto_trace(const std::vector<PerfettoProcess>& processes, std::ostream& out) {
  out << "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [";
  bool first = true;
  const auto emit = [&](const ordered_json& event) {
    out << (first ? "\n" : ",\n") << json_text(event);
    first = false;
  };
  std::size_t complete = 0;
  for (std::size_t p = 0; p < processes.size(); ++p) {
    const auto& process = processes[p];
    const int pid = static_cast<int>(p + 1);
    emit({{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"tid", 0}, {"args", {{"name", process.name}}}});
    emit({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", pid}, {"tid", 0}, {"args", {{"sort_index", pid}}}});
    if (process.program) {
      const auto& verdict = *process.program;
      emit({{"ph", "M"},
            {"name", "process_labels"},
            {"pid", pid},
            {"tid", 0},
            {"args",
             {{"labels", std::string(to_string(verdict.verdict)) + ", GPU busy " +
                             std::to_string(static_cast<int>(100 * verdict.split.busy_share() + 0.5)) + "%" +
                             (verdict.pauses.empty()
                                  ? ""
                                  : " (pauses of " + format_duration_ns(verdict.paused_ns) + " set aside)")}}}});
    }
    if (!process.timeline) continue;
    const Timeline& timeline = *process.timeline;
    std::map<TrackKey, int> tracks;  // GPU streams first, then each thread's tracks
    for (const auto& e : timeline.events) tracks.emplace(track_of(e), 0);
    int tid = 1;
    for (auto& [key, id] : tracks) {
      id = tid++;
      emit({{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", id}, {"args", {{"name", track_name(key)}}}});
      emit({{"ph", "M"}, {"name", "thread_sort_index"}, {"pid", pid}, {"tid", id}, {"args", {{"sort_index", id}}}});
    }
    const std::uint64_t base = timeline.start_ns;
    for (const auto& e : timeline.events) {
      const PerfettoKernelArgs* kernel = nullptr;
      if (e.kind == ActivityKind::kernel && e.launch_sequence)
        if (auto it = process.kernels.find(*e.launch_sequence); it != process.kernels.end()) kernel = &it->second;
      ordered_json event = {{"ph", "X"},
                            {"name", event_name(e, kernel)},
                            {"cat", to_string(e.kind)},
                            {"pid", pid},
                            {"tid", tracks.at(track_of(e))},
                            {"ts", us(e.start_ns >= base ? e.start_ns - base : 0)},
                            {"dur", us(e.duration_ns())}};
      event["cname"] =
          e.kind == ActivityKind::kernel && kernel ? perfetto_verdict_color(kernel->verdict) : kind_color(e.kind);
      event["args"] = event_args(e, kernel);
      emit(event);
      ++complete;
    }
  }
  out << "\n]}\n";
  return complete;
}

}  // namespace limiter
