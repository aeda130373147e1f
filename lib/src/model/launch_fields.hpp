#pragma once
// The fields of a launch in a run record, by key, for the two streaming readers (SAX and lines).
#include <cstdint>
#include <string_view>

#include "limiter/record.hpp"

namespace limiter::detail {

enum class LaunchField {
  sequence,
  name,
  mangled_name,
  grid,
  block,
  registers,
  static_shared,
  dynamic_shared,
  local_bytes,
  stream_id,
  context_id,
  device,
  graph_id,
  graph_node,
  user_range_ns,
  kernel_active_ns,
  nvtx,
  counters,
  sampled,
  start_ns,
  end_ns,
  duration_source,
  ignored
};

inline LaunchField launch_field(std::string_view key) {
  static constexpr std::pair<std::string_view, LaunchField> fields[] = {
      {"sequence", LaunchField::sequence},
      {"name", LaunchField::name},
      {"mangled_name", LaunchField::mangled_name},
      {"grid", LaunchField::grid},
      {"block", LaunchField::block},
      {"registers_per_thread", LaunchField::registers},
      {"static_shared_bytes", LaunchField::static_shared},
      {"dynamic_shared_bytes", LaunchField::dynamic_shared},
      {"local_bytes_per_thread", LaunchField::local_bytes},
      {"stream_id", LaunchField::stream_id},
      {"context_id", LaunchField::context_id},
      {"device", LaunchField::device},
      {"graph_id", LaunchField::graph_id},
      {"graph_node", LaunchField::graph_node},
      {"user_range_ns", LaunchField::user_range_ns},
      {"kernel_active_ns", LaunchField::kernel_active_ns},
      {"nvtx", LaunchField::nvtx},
      {"counters", LaunchField::counters},
      {"sampled", LaunchField::sampled},
      {"start_ns", LaunchField::start_ns},
      {"end_ns", LaunchField::end_ns},
      {"duration_source", LaunchField::duration_source}};
  for (const auto& [name, field] : fields)
    if (key == name) return field;
  return LaunchField::ignored;
}

// One number of a sampled entry's support ("sampled": {...}, PM-sampling mode); other keys are
// ignored, as the DOM reader ignores them. Both streaming readers use it, so a sampled record keeps
// its support (the analysis's sample gate) whichever reader reads it.
inline void set_sample_support(SampleSupport& support, std::string_view key, double value);

// A count written as a non-integer or a negative number: cut to the range of a count (a plain
// cast is undefined there).
inline std::uint64_t u64_from_double(double value) {
  if (!(value > 0)) return 0;
  if (value >= 18446744073709551615.0) return UINT64_MAX;
  return static_cast<std::uint64_t>(value);
}

inline void set_sample_support(SampleSupport& support, std::string_view key, double value) {
  if (key == "launches")
    support.launches = u64_from_double(value);
  else if (key == "kernel_time_ns")
    support.kernel_time_ns = value;
  else if (key == "samples")
    support.samples = u64_from_double(value);
  else if (key == "purity")
    support.purity = value;
  else if (key == "overlap_share")
    support.overlap_share = value;
  else if (key == "separability")
    support.separability = value;
  else if (key == "exact_launches")
    support.exact_launches = u64_from_double(value);
  else if (key.starts_with(kStandardErrorPrefix))
    support.standard_errors[std::string(key.substr(std::string_view(kStandardErrorPrefix).size()))] = value;
  else if (key.starts_with(kExactCounterPrefix))
    support.exact_counters[std::string(key.substr(std::string_view(kExactCounterPrefix).size()))] = value;
}

}  // namespace limiter::detail
