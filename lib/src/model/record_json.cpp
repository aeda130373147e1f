#include "limiter/record_json.hpp"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

#include "limiter/error.hpp"
#include "limiter/file_io.hpp"
#include "limiter/json_text.hpp"
#include "model/launch_fields.hpp"
#include "model/record_faults.hpp"

namespace limiter {
namespace {

using ordered_json = nlohmann::ordered_json;
using json = nlohmann::json;

template <typename T>
void put_optional(ordered_json& out, const char* key, const std::optional<T>& value) {
  out[key] = value ? ordered_json(*value) : ordered_json(nullptr);
}

template <typename T>
std::optional<T> get_optional(const json& in, const char* key) {
  auto it = in.find(key);
  if (it == in.end() || it->is_null()) return std::nullopt;
  return it->get<T>();
}

ordered_json dim3_json(const Dim3& d) { return ordered_json::array({d.x, d.y, d.z}); }

Dim3 dim3_from(const json& in) {
  if (!in.is_array() || in.size() != 3) throw InputError("expected [x, y, z]");
  return Dim3{in[0].get<std::uint32_t>(), in[1].get<std::uint32_t>(), in[2].get<std::uint32_t>()};
}

}  // namespace

ordered_json device_json(const DeviceDescription& d) {
  ordered_json out;
  out["name"] = d.name;
  out["arch"] = d.arch;
  out["chip"] = d.chip;
  out["sm_count"] = d.sm_count;
  put_optional(out, "sm_clock_hz", d.sm_clock_hz);
  put_optional(out, "memory_clock_hz", d.memory_clock_hz);
  put_optional(out, "memory_bus_width_bits", d.memory_bus_width_bits);
  put_optional(out, "l2_bytes", d.l2_bytes);
  put_optional(out, "global_memory_bytes", d.global_memory_bytes);
  if (!d.uuid.empty()) out["uuid"] = d.uuid;  // absent in records of sources that have none
  return out;
}

DeviceDescription device_from(const json& in) {
  DeviceDescription d;
  d.name = in.value("name", "");
  d.arch = in.value("arch", "");
  d.chip = in.value("chip", "");
  d.sm_count = in.value("sm_count", 0);
  d.sm_clock_hz = get_optional<double>(in, "sm_clock_hz");
  d.memory_clock_hz = get_optional<double>(in, "memory_clock_hz");
  d.memory_bus_width_bits = get_optional<int>(in, "memory_bus_width_bits");
  d.l2_bytes = get_optional<std::uint64_t>(in, "l2_bytes");
  d.global_memory_bytes = get_optional<std::uint64_t>(in, "global_memory_bytes");
  d.uuid = in.value("uuid", "");
  return d;
}

ordered_json rank_json(const RankInfo& rank) {
  ordered_json out;
  out["rank"] = rank.rank;
  out["world_size"] = rank.world_size;
  put_optional(out, "local_rank", rank.local_rank);
  out["launcher"] = rank.launcher;
  return out;
}

RankInfo rank_from(const json& in) {
  if (!in.is_object()) throw InputError("\"rank\" must be an object");
  RankInfo rank;
  rank.rank = in.at("rank").get<int>();
  rank.world_size = in.at("world_size").get<int>();
  rank.local_rank = get_optional<int>(in, "local_rank");
  rank.launcher = in.value("launcher", "");
  if (rank.rank < 0 || rank.world_size < 1 || rank.rank >= rank.world_size)
    throw InputError("\"rank\" " + std::to_string(rank.rank) + " of world size " + std::to_string(rank.world_size) +
                     " is out of range");
  return rank;
}

ordered_json launch_json(const KernelLaunch& k) {
  ordered_json out;
  out["sequence"] = k.sequence;
  out["name"] = k.name;
  out["mangled_name"] = k.mangled_name;
  out["grid"] = dim3_json(k.grid);
  out["block"] = dim3_json(k.block);
  put_optional(out, "registers_per_thread", k.registers_per_thread);
  put_optional(out, "static_shared_bytes", k.static_shared_bytes);
  put_optional(out, "dynamic_shared_bytes", k.dynamic_shared_bytes);
  put_optional(out, "local_bytes_per_thread", k.local_bytes_per_thread);
  put_optional(out, "stream_id", k.stream_id);
  put_optional(out, "context_id", k.context_id);
  put_optional(out, "device", k.device);
  put_optional(out, "graph_id", k.graph_id);
  put_optional(out, "graph_node", k.graph_node);
  put_optional(out, "user_range_ns", k.user_range_ns);
  put_optional(out, "kernel_active_ns", k.kernel_active_ns);
  if (!k.nvtx.empty()) out["nvtx"] = k.nvtx;  // records without NVTX ranges stay as they were
  if (k.sampled) {
    const auto& s = *k.sampled;
    out["sampled"] = {{"launches", s.launches},   {"kernel_time_ns", s.kernel_time_ns}, {"samples", s.samples},
                      {"purity", s.purity},       {"overlap_share", s.overlap_share}};
    if (s.separability) out["sampled"]["separability"] = *s.separability;
    for (const auto& [metric, error] : s.standard_errors) out["sampled"][kStandardErrorPrefix + metric] = error;
    if (s.exact_launches > 0) {
      out["sampled"]["exact_launches"] = s.exact_launches;
      for (const auto& [metric, value] : s.exact_counters) out["sampled"][kExactCounterPrefix + metric] = value;
    }
  }
  ordered_json counters = ordered_json::object();
  for (const auto& [metric, value] : k.counters) counters[metric] = value;
  out["counters"] = std::move(counters);
  return out;
}

ordered_json sampling_json(const SamplingInfo& s) {
  ordered_json out = {{"mode", s.mode},       {"interval_ns", s.interval_ns}, {"samples", s.samples},
                      {"samples_lost", s.samples_lost}, {"attribution", s.attribution}, {"metrics", s.metrics}};
  if (!s.sm_side_counted) out["sm_side_counted"] = false;  // written only when it did not
  if (s.exact_after_sampling) out["exact_phase"] = "after_sampling";  // else before, if any
  return out;
}

SamplingInfo sampling_from(const json& in) {
  SamplingInfo s;
  s.mode = in.value("mode", "pm-sampling");
  s.interval_ns = in.at("interval_ns").get<std::uint64_t>();
  s.samples = in.value("samples", std::uint64_t{0});
  s.samples_lost = in.value("samples_lost", std::uint64_t{0});
  s.attribution = in.value("attribution", "");
  s.metrics = in.value("metrics", std::vector<std::string>{});
  s.sm_side_counted = in.value("sm_side_counted", true);
  s.exact_after_sampling = in.value("exact_phase", std::string()) == "after_sampling";
  return s;
}

namespace {

KernelLaunch launch_fields_from(const json& in) {
  KernelLaunch k;
  k.sequence = in.at("sequence").get<std::uint64_t>();
  k.name = in.at("name").get<std::string>();
  k.mangled_name = in.value("mangled_name", "");
  k.grid = dim3_from(in.at("grid"));
  k.block = dim3_from(in.at("block"));
  k.registers_per_thread = get_optional<int>(in, "registers_per_thread");
  k.static_shared_bytes = get_optional<std::uint64_t>(in, "static_shared_bytes");
  k.dynamic_shared_bytes = get_optional<std::uint64_t>(in, "dynamic_shared_bytes");
  k.local_bytes_per_thread = get_optional<std::uint64_t>(in, "local_bytes_per_thread");
  k.stream_id = get_optional<std::uint64_t>(in, "stream_id");
  k.context_id = get_optional<std::uint64_t>(in, "context_id");
  k.device = get_optional<int>(in, "device");
  k.graph_id = get_optional<std::uint64_t>(in, "graph_id");
  k.graph_node = get_optional<std::uint64_t>(in, "graph_node");
  k.user_range_ns = get_optional<double>(in, "user_range_ns");
  k.kernel_active_ns = get_optional<double>(in, "kernel_active_ns");
  if (const auto nvtx = in.find("nvtx"); nvtx != in.end() && !nvtx->is_null()) {
    if (!nvtx->is_array()) throw InputError("\"nvtx\" must be an array of strings");
    for (const auto& path : *nvtx) {
      if (!path.is_string()) throw InputError("\"nvtx\" must be an array of strings");
      k.nvtx.push_back(path.get<std::string>());
    }
  }
  if (auto sampled = in.find("sampled"); sampled != in.end()) {
    SampleSupport s;
    s.launches = sampled->at("launches").get<std::uint64_t>();
    s.kernel_time_ns = sampled->at("kernel_time_ns").get<double>();
    s.samples = sampled->at("samples").get<std::uint64_t>();
    s.purity = sampled->value("purity", 0.0);
    s.overlap_share = sampled->value("overlap_share", 0.0);
    if (auto fit = sampled->find("separability"); fit != sampled->end() && fit->is_number()) s.separability = fit->get<double>();
    for (const auto& [key, value] : sampled->items())  // the errors and exact counters, as the streaming readers
      if (value.is_number() && (key.starts_with(kStandardErrorPrefix) || key.starts_with(kExactCounterPrefix) ||
                                key == "exact_launches"))
        detail::set_sample_support(s, key, value.get<double>());
    k.sampled = s;
  }
  for (const auto& [metric, value] : in.at("counters").items()) {
    // NaN is written as null by nlohmann-json: a counter the hardware could not provide.
    if (!value.is_null()) k.counters[metric] = value.get<double>();
  }
  return k;
}

}  // namespace

KernelLaunch launch_from(const json& in) {
  try {
    return launch_fields_from(in);
  } catch (const json::exception& e) {  // named in the user's words, not the library's
    const std::string fault = detail::launch_field_fault(in);
    throw InputError(fault.empty() ? "malformed launch: " + detail::json_error_words(e) : fault);
  }
}

ordered_json missed_json(const std::vector<MissedLaunches>& missed) {
  ordered_json out = ordered_json::array();
  for (const auto& m : missed) out.push_back({{"reason", m.reason}, {"launches", m.launches}, {"fix", m.fix}});
  return out;
}

ordered_json kernels_seen_json(const std::vector<KernelSeen>& seen) {
  ordered_json out = ordered_json::array();
  for (const auto& k : seen)
    out.push_back({{"name", k.name}, {"grid", dim3_json(k.grid)}, {"block", dim3_json(k.block)}, {"launches", k.launches}});
  return out;
}

std::vector<KernelSeen> kernels_seen_from(const json& in) {
  if (!in.is_array()) throw InputError("\"kernels_seen\" must be an array");
  std::vector<KernelSeen> seen;
  for (const auto& entry : in) {
    seen.push_back({entry.at("name").get<std::string>(), dim3_from(entry.at("grid")), dim3_from(entry.at("block")),
                    entry.at("launches").get<std::uint64_t>()});
  }
  return seen;
}

std::vector<MissedLaunches> missed_from(const json& in) {
  if (!in.is_array()) throw InputError("\"missed\" must be an array");
  std::vector<MissedLaunches> missed;
  for (const auto& entry : in) {
    MissedLaunches m;
    m.reason = entry.at("reason").get<std::string>();
    m.launches = entry.at("launches").get<std::uint64_t>();
    m.fix = entry.value("fix", "");
    missed.push_back(std::move(m));
  }
  return missed;
}

namespace {

// The run's fields but its launches, in the order every writer puts them.
ordered_json run_fields_json(const RunRecord& run) {
  ordered_json out;
  out["schema_version"] = run.sampling ? kRunSchemaVersion : run.schema_version;
  out["kind"] = "limiter-run";
  out["tool_version"] = run.tool_version;
  out["source"] = run.source;
  out["created_at"] = run.created_at;
  out["command_line"] = run.command_line;
  // Only where known, so records of single processes read as before.
  if (!run.host.empty()) out["host"] = run.host;
  if (run.rank) out["rank"] = rank_json(*run.rank);
  out["counter_model"] = to_string(run.counter_model);
  if (run.sampling) out["sampling"] = sampling_json(*run.sampling);
  out["device"] = device_json(run.device);
  if (!run.ended.empty()) out["ended"] = run.ended;
  if (!run.missed.empty()) out["missed"] = missed_json(run.missed);
  if (run.launches_seen) out["launches_seen"] = *run.launches_seen;
  if (!run.kernels_seen.empty()) out["kernels_seen"] = kernels_seen_json(run.kernels_seen);
  return out;
}

// The layout of every record limiter writes: the run's fields indented, then a launch per line,
// which editors, grep and diff show whole (the reader takes any layout alike: record_stream.hpp).
std::string line_layout_head(const ordered_json& fields) {
  std::string head = json_text(fields, 1);
  head.resize(head.rfind('}'));  // reopened: the launches follow
  while (!head.empty() && std::isspace(static_cast<unsigned char>(head.back()))) head.pop_back();
  return head + ",\n \"launches\": [";
}
const char* line_layout_separator(std::size_t index) { return index ? ",\n  " : "\n  "; }
constexpr const char* kLineLayoutEnd = "\n ]\n}\n";

}  // namespace

ordered_json to_json(const RunRecord& run) {
  ordered_json out = run_fields_json(run);
  ordered_json launches = ordered_json::array();
  for (const auto& launch : run.launches) launches.push_back(launch_json(launch));
  out["launches"] = std::move(launches);
  return out;
}

RunRecord run_from_json(const json& in, const std::string& origin) {
  if (!in.is_object() || !in.contains("kind") || in["kind"] != "limiter-run") {
    throw InputError(origin + ": not a limiter run record (no \"kind\": \"limiter-run\"); "
                     "make one with `limiter run`, `limiter kernels` or `limiter import`");
  }
  RunRecord run;
  try {
    const int version = in.value("schema_version", 0);
    if (version < 1 || version > kRunSchemaVersion) {
      throw InputError("run schema_version " + std::to_string(version) + " is not supported by limiter " +
                       tool_version() + " (reads 1.." + std::to_string(kRunSchemaVersion) +
                       "); use a matching limiter version");
    }
    run.schema_version = version;
    run.tool_version = in.value("tool_version", "");
    run.source = in.value("source", "");
    run.created_at = in.value("created_at", "");
    run.command_line = in.value("command_line", std::vector<std::string>{});
    run.host = in.value("host", "");
    if (auto rank = in.find("rank"); rank != in.end() && !rank->is_null()) run.rank = rank_from(*rank);
    run.counter_model = counter_model_from_string(in.value("counter_model", "perfworks"));
    if (auto sampling = in.find("sampling"); sampling != in.end()) run.sampling = sampling_from(*sampling);
    run.device = device_from(in.at("device"));
    run.ended = in.value("ended", "");
    if (auto missed = in.find("missed"); missed != in.end()) run.missed = missed_from(*missed);
    run.launches_seen = get_optional<std::uint64_t>(in, "launches_seen");
    if (auto seen = in.find("kernels_seen"); seen != in.end()) run.kernels_seen = kernels_seen_from(*seen);
    std::size_t index = 0;
    for (const auto& launch : in.at("launches")) {
      try {
        run.launches.push_back(launch_from(launch));
      } catch (const std::exception& e) {
        throw InputError("launch " + std::to_string(index) + ": " + e.what());
      }
      ++index;
    }
  } catch (const InputError& e) {  // a field of the wrong type is named, where the message did not
    const std::string fault = detail::record_field_fault(in);
    throw InputError(origin + ": " + (fault.empty() ? e.what() : fault));
  } catch (const json::exception& e) {  // named in the user's words, not the library's
    const std::string fault = detail::record_field_fault(in);
    throw InputError(origin + ": " + (fault.empty() ? "malformed run record: " + detail::json_error_words(e) : fault));
  }
  return run;
}

std::string partial_run_header(const RunRecord& run) {
  ordered_json header = to_json(run);
  header["kind"] = "limiter-partial-run";
  header.erase("launches");
  return json_text(header);
}

namespace {

// Opens a partial run and reads its header line, checked as a run record without launches;
// HEADER keeps the line's field order for finish_partial_run.
RunRecord open_partial_run(std::ifstream& in, const std::string& path, ordered_json& header) {
  in.open(path);
  if (!in) throw InputError("cannot open partial run '" + path + "'");
  std::string line;
  if (!std::getline(in, line)) throw InputError("partial run '" + path + "' is empty");
  try {
    header = ordered_json::parse(line);
  } catch (const json::exception& e) {
    throw InputError("partial run '" + path + "' has a corrupt header: " + detail::json_error_words(e));
  }
  header["kind"] = "limiter-run";
  json checked = json::parse(json_text(header));
  checked["launches"] = json::array();
  return run_from_json(checked, "'" + path + "'");
}

// Status lines of a partial run: {"status": {"missed": [...], "launches_seen": N, "ended": "..."}},
// each field optional; for each field the latest line that has it wins.
constexpr std::string_view kStatusPrefix = "{\"status\"";

bool apply_partial_status(const json& entry, RunRecord& run) {
  if (!entry.is_object() || entry.size() != 1 || !entry.contains("status")) return false;
  const json& status = entry.at("status");
  if (auto missed = status.find("missed"); missed != status.end()) run.missed = missed_from(*missed);
  if (auto seen = status.find("launches_seen"); seen != status.end()) run.launches_seen = seen->get<std::uint64_t>();
  if (auto seen = status.find("kernels_seen"); seen != status.end()) run.kernels_seen = kernels_seen_from(*seen);
  if (auto ended = status.find("ended"); ended != status.end()) run.ended = ended->get<std::string>();
  return true;
}

}  // namespace

RunRecord read_partial_run(const std::string& path) {
  std::ifstream in;
  ordered_json header;
  RunRecord run = open_partial_run(in, path, header);
  std::string line;
  while (std::getline(in, line)) {
    json entry;
    try {
      entry = json::parse(line);
      if (apply_partial_status(entry, run)) continue;
      run.launches.push_back(launch_from(entry));
    } catch (const std::exception&) {
      break;  // the torn last line of a process that died mid-write
    }
  }
  return run;
}

std::string partial_status_line(const RunRecord& status) {
  ordered_json fields = ordered_json::object();
  if (!status.missed.empty()) fields["missed"] = missed_json(status.missed);
  if (status.launches_seen) fields["launches_seen"] = *status.launches_seen;
  if (!status.kernels_seen.empty()) fields["kernels_seen"] = kernels_seen_json(status.kernels_seen);
  if (!status.ended.empty()) fields["ended"] = status.ended;
  return json_text(ordered_json{{"status", std::move(fields)}});
}

std::size_t finish_partial_run(const std::string& partial, const std::string& output, const std::string& ended_if_unknown) {
  std::ifstream in;
  ordered_json header;
  RunRecord status = open_partial_run(in, partial, header);
  // First pass: the status lines (missed launches, how the process ended) belong in the
  // header, before the launches, where the streaming reader finds them.
  std::string line;
  while (std::getline(in, line)) {
    if (!line.starts_with(kStatusPrefix)) continue;
    try {
      apply_partial_status(json::parse(line), status);
    } catch (const std::exception&) {
      break;
    }
  }
  if (status.ended.empty()) status.ended = ended_if_unknown;
  if (!status.ended.empty()) header["ended"] = status.ended;
  if (!status.missed.empty()) header["missed"] = missed_json(status.missed);
  if (status.launches_seen) header["launches_seen"] = *status.launches_seen;
  if (!status.kernels_seen.empty()) header["kernels_seen"] = kernels_seen_json(status.kernels_seen);
  in.clear();
  in.seekg(0);
  std::getline(in, line);  // the header line, already read
  std::size_t count = 0;
  write_file_atomically(output, [&](std::ostream& out) {
    out << line_layout_head(header);
    while (std::getline(in, line)) {
      if (line.starts_with(kStatusPrefix)) continue;
      if (!json::accept(line)) break;  // the torn last line of a process that died mid-write
      out << line_layout_separator(count++) << line;
    }
    out << kLineLayoutEnd;
  });
  return count;
}

void write_run_json(const RunRecord& run, std::ostream& out) {
  out << line_layout_head(run_fields_json(run));
  for (std::size_t i = 0; i < run.launches.size(); ++i)
    out << line_layout_separator(i) << json_text(launch_json(run.launches[i]));
  out << kLineLayoutEnd;
}

void write_run_file(const RunRecord& run, const std::string& path) {
  std::ostringstream text;
  write_run_json(run, text);
  write_file_atomically(path, text.str());
}

}  // namespace limiter
