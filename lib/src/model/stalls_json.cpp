// The record's "stalls" (stalls.hpp) as JSON. Reading checks every count and string and names
// the first wrong one by its path ("stalls.kernels[1].hot_pcs[0].line"), so a hostile or
// truncated record is an InputError, never a wrapped negative count or a library exception.
#include <optional>
#include <string>

#include "limiter/error.hpp"
#include "limiter/record_json.hpp"
#include "model/json_fields.hpp"

namespace limiter {

using ordered_json = nlohmann::ordered_json;
using json = nlohmann::json;
using detail::count_field;

namespace {

ordered_json counts_json(const StallCounts& counts) {
  ordered_json out = ordered_json::object();
  for (const auto& [reason, samples] : counts) out[reason] = samples;
  return out;
}

ordered_json hot_pc_json(const HotPc& pc) {
  ordered_json out;
  out["pc_offset"] = pc.pc_offset;
  out["samples"] = pc.samples;
  out["reasons"] = counts_json(pc.reasons);
  out["sass"] = pc.sass;
  detail::put_if_set(out, "file", pc.file);
  detail::put_if_set(out, "line", pc.line);
  return out;
}

ordered_json kernel_stalls_json(const KernelStalls& k) {
  ordered_json out;
  out["name"] = k.name;
  out["mangled_name"] = k.mangled_name;
  out["cubin_crc"] = k.cubin_crc;
  out["samples"] = k.samples;
  out["reasons"] = counts_json(k.reasons);
  ordered_json pcs = ordered_json::array();
  for (const auto& pc : k.hot_pcs) pcs.push_back(hot_pc_json(pc));
  out["hot_pcs"] = std::move(pcs);
  if (!k.no_cubin.empty()) out["no_cubin"] = k.no_cubin;
  return out;
}

// Every reader below throws InputError(PATH + ": " + what), PATH the field's place in the
// record ("stalls.kernels[1].hot_pcs[0]"), so the user can find it.
[[noreturn]] void fail(const std::string& path, const std::string& what) { throw InputError(path + ": " + what); }

std::optional<std::uint64_t> count(const json& in, const char* key, bool required, const std::string& path,
                                   std::uint64_t max = UINT64_MAX) {
  try {
    return count_field(in, key, required, max);
  } catch (const InputError& e) {
    fail(path, e.what());
  }
}

void require_object(const json& in, const std::string& path) {
  if (!in.is_object()) fail(path, "must be an object, not " + std::string(in.type_name()));
}

std::optional<std::string> string_field(const json& in, const char* key, bool required, const std::string& path) {
  const auto it = in.find(key);
  if (it == in.end() || it->is_null()) {
    if (required) fail(path, std::string("no \"") + key + "\" (a string)");
    return std::nullopt;
  }
  if (!it->is_string()) fail(path, std::string("\"") + key + "\" must be a string, not " + it->type_name());
  return it->get<std::string>();
}

// {"reason": samples, ...}; absent or null: none.
StallCounts counts_from(const json& in, const char* key, const std::string& path) {
  StallCounts counts;
  const auto it = in.find(key);
  if (it == in.end() || it->is_null()) return counts;
  const std::string here = path + "." + key;
  if (!it->is_object()) fail(here, "must be an object of reason: samples, not " + std::string(it->type_name()));
  for (const auto& [reason, samples] : it->items()) {
    if (reason.empty()) fail(here, "a reason has an empty name");
    counts[reason] = *count(*it, reason.c_str(), true, here);
  }
  return counts;
}

HotPc hot_pc_from(const json& in, const std::string& path) {
  require_object(in, path);
  HotPc pc;
  pc.pc_offset = *count(in, "pc_offset", true, path);
  pc.samples = count(in, "samples", false, path).value_or(0);
  pc.reasons = counts_from(in, "reasons", path);
  pc.sass = string_field(in, "sass", false, path).value_or("");
  pc.file = string_field(in, "file", false, path);
  if (const auto line = count(in, "line", false, path, UINT32_MAX)) pc.line = static_cast<std::uint32_t>(*line);
  return pc;
}

KernelStalls kernel_stalls_from(const json& in, const std::string& path) {
  require_object(in, path);
  KernelStalls k;
  k.name = *string_field(in, "name", true, path);
  k.mangled_name = string_field(in, "mangled_name", false, path).value_or("");
  k.cubin_crc = count(in, "cubin_crc", false, path).value_or(0);
  k.samples = count(in, "samples", false, path).value_or(0);
  k.reasons = counts_from(in, "reasons", path);
  if (const auto pcs = in.find("hot_pcs"); pcs != in.end() && !pcs->is_null()) {
    if (!pcs->is_array()) fail(path + ".hot_pcs", "must be an array, not " + std::string(pcs->type_name()));
    for (std::size_t i = 0; i < pcs->size(); ++i)
      k.hot_pcs.push_back(hot_pc_from((*pcs)[i], path + ".hot_pcs[" + std::to_string(i) + "]"));
  }
  k.no_cubin = string_field(in, "no_cubin", false, path).value_or("");
  return k;
}

}  // namespace

ordered_json stalls_json(const StallInfo& info) {
  ordered_json out;
  out["sample_period_cycles"] = info.sample_period_cycles;
  out["collection"] = info.collection;
  out["samples"] = info.samples;
  out["dropped_samples"] = info.dropped_samples;
  out["hardware_buffer_full"] = info.hardware_buffer_full;
  ordered_json kernels = ordered_json::array();
  for (const auto& k : info.kernels) kernels.push_back(kernel_stalls_json(k));
  out["kernels"] = std::move(kernels);
  return out;
}

StallInfo stalls_from(const json& in) {
  const std::string path = "stalls";
  require_object(in, path);
  StallInfo info;
  info.sample_period_cycles = count(in, "sample_period_cycles", false, path).value_or(0);
  if (auto collection = string_field(in, "collection", false, path)) info.collection = std::move(*collection);
  info.samples = count(in, "samples", false, path).value_or(0);
  info.dropped_samples = count(in, "dropped_samples", false, path).value_or(0);
  info.hardware_buffer_full = count(in, "hardware_buffer_full", false, path).value_or(0);
  const auto kernels = in.find("kernels");
  if (kernels == in.end() || kernels->is_null()) return info;
  if (!kernels->is_array()) fail(path + ".kernels", "must be an array, not " + std::string(kernels->type_name()));
  for (std::size_t i = 0; i < kernels->size(); ++i)
    info.kernels.push_back(kernel_stalls_from((*kernels)[i], path + ".kernels[" + std::to_string(i) + "]"));
  return info;
}

}  // namespace limiter
