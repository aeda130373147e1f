#pragma once
// The fields of a launch in a run record, by key, for the two streaming readers (SAX and lines).
#include <cstdint>
#include <string_view>

namespace limiter::detail {

enum class LaunchField {
  sequence, name, mangled_name, grid, block, registers, static_shared, dynamic_shared, local_bytes,
  stream_id, context_id, device, nvtx, counters, ignored
};

inline LaunchField launch_field(std::string_view key) {
  static constexpr std::pair<std::string_view, LaunchField> fields[] = {
      {"sequence", LaunchField::sequence}, {"name", LaunchField::name},
      {"mangled_name", LaunchField::mangled_name}, {"grid", LaunchField::grid},
      {"block", LaunchField::block}, {"registers_per_thread", LaunchField::registers},
      {"static_shared_bytes", LaunchField::static_shared}, {"dynamic_shared_bytes", LaunchField::dynamic_shared},
      {"local_bytes_per_thread", LaunchField::local_bytes}, {"stream_id", LaunchField::stream_id},
      {"context_id", LaunchField::context_id}, {"device", LaunchField::device},
      {"nvtx", LaunchField::nvtx}, {"counters", LaunchField::counters}};
  for (const auto& [name, field] : fields)
    if (key == name) return field;
  return LaunchField::ignored;
}

// A count written as a non-integer or a negative number: cut to the range of a count (a plain
// cast is undefined there).
inline std::uint64_t u64_from_double(double value) {
  if (!(value > 0)) return 0;
  if (value >= 18446744073709551615.0) return UINT64_MAX;
  return static_cast<std::uint64_t>(value);
}

}  // namespace limiter::detail
