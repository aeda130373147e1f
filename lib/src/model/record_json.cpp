// The parts of a run record as JSON: device, rank, launch, sampling, missed launches.
#include "limiter/record_json.hpp"

#include <string_view>

#include "limiter/error.hpp"
#include "model/json_fields.hpp"
#include "model/launch_fields.hpp"
#include "model/record_faults.hpp"

namespace limiter {

using ordered_json = nlohmann::ordered_json;
using json = nlohmann::json;
using detail::dim3_from;
using detail::dim3_json;
using detail::get_optional;
using detail::put_optional;

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
  if (!k.nvtx.empty()) out["nvtx"] = k.nvtx;        // records without NVTX ranges stay as they were
  detail::put_if_set(out, "start_ns", k.start_ns);  // records without a timeline stay as they were
  detail::put_if_set(out, "end_ns", k.end_ns);
  detail::put_if_set(out, "duration_source", k.duration_source);
  if (k.sampled) {
    const auto& s = *k.sampled;
    out["sampled"] = {{"launches", s.launches},
                      {"kernel_time_ns", s.kernel_time_ns},
                      {"samples", s.samples},
                      {"purity", s.purity},
                      {"overlap_share", s.overlap_share}};
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
  ordered_json out = {{"mode", s.mode},
                      {"interval_ns", s.interval_ns},
                      {"samples", s.samples},
                      {"samples_lost", s.samples_lost},
                      {"attribution", s.attribution},
                      {"metrics", s.metrics}};
  if (!s.sm_side_counted) out["sm_side_counted"] = false;             // written only when it did not
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
  k.start_ns = get_optional<std::uint64_t>(in, "start_ns");
  k.end_ns = get_optional<std::uint64_t>(in, "end_ns");
  k.duration_source = get_optional<std::string>(in, "duration_source");
  if (auto sampled = in.find("sampled"); sampled != in.end()) {
    SampleSupport s;
    s.launches = sampled->at("launches").get<std::uint64_t>();
    s.kernel_time_ns = sampled->at("kernel_time_ns").get<double>();
    s.samples = sampled->at("samples").get<std::uint64_t>();
    s.purity = sampled->value("purity", 0.0);
    s.overlap_share = sampled->value("overlap_share", 0.0);
    if (auto fit = sampled->find("separability"); fit != sampled->end() && fit->is_number())
      s.separability = fit->get<double>();
    for (const auto& [key, value] : sampled->items())  // the errors and exact counters, as the streaming readers
      if (value.is_number() &&
          (key.starts_with(kStandardErrorPrefix) || key.starts_with(kExactCounterPrefix) || key == "exact_launches"))
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
    out.push_back(
        {{"name", k.name}, {"grid", dim3_json(k.grid)}, {"block", dim3_json(k.block)}, {"launches", k.launches}});
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

ordered_json phases_json(const std::vector<PhaseWindow>& phases) {
  ordered_json out = ordered_json::array();
  for (const auto& p : phases)
    out.push_back({{"name", p.name},
                   {"start_ns", p.start_ns},
                   {"end_ns", p.end_ns},
                   {"launches", p.launches},
                   {"ended_by", p.ended_by}});
  return out;
}

std::vector<PhaseWindow> phases_from(const json& in) {
  if (!in.is_array()) throw InputError("\"phases\" must be an array");
  std::vector<PhaseWindow> phases;
  for (const auto& entry : in) {
    PhaseWindow p;
    p.name = entry.at("name").get<std::string>();
    p.start_ns = entry.value("start_ns", std::uint64_t{0});
    p.end_ns = entry.value("end_ns", std::uint64_t{0});
    p.launches = entry.value("launches", std::uint64_t{0});
    p.ended_by = entry.value("ended_by", "");
    phases.push_back(std::move(p));
  }
  return phases;
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

}  // namespace limiter
