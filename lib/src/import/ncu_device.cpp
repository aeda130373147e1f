// Launch and device fields from the metrics of an Nsight Compute CSV import.
#include "import/ncu_device.hpp"

#include <algorithm>
#include <optional>

#include "import/csv_table.hpp"

namespace limiter::detail::ncu {
namespace {

// "9.0" → "sm_90", "12.1" → "sm_121".
std::string arch_from_compute_capability(std::uint64_t major, std::uint64_t minor) {
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

std::optional<double> mean_counter(const std::vector<PendingLaunch>& launches, const char* metric) {
  double sum = 0;
  std::size_t count = 0;
  for (const auto& pending : launches) {
    if (const auto value = pending.launch.counter(metric)) {
      sum += *value;
      ++count;
    }
  }
  if (count == 0) return std::nullopt;
  return sum / static_cast<double>(count);
}

}  // namespace

void fill_launch_fields(PendingLaunch& pending, const std::string& origin) {
  KernelLaunch& launch = pending.launch;
  const auto whole = [&](const char* metric) { return whole_counter(pending, metric, origin); };
  const auto dimension = [&](const char* metric) -> std::optional<std::uint32_t> {
    const auto value = whole(metric);
    if (!value) return std::nullopt;
    return to_dimension(*value, origin, pending.lines[metric], metric);
  };
  const auto dim3_from = [&](const char* x, const char* y, const char* z, const char* total) -> std::optional<Dim3> {
    if (const auto dx = dimension(x)) return Dim3{*dx, dimension(y).value_or(1), dimension(z).value_or(1)};
    if (const auto all = dimension(total)) return Dim3{*all, 1, 1};  // only the total is known
    return std::nullopt;
  };
  if (!pending.grid_from_column) {
    if (const auto grid =
            dim3_from("launch__grid_dim_x", "launch__grid_dim_y", "launch__grid_dim_z", "launch__grid_size")) {
      launch.grid = *grid;
    }
  }
  if (!pending.block_from_column) {
    if (const auto block =
            dim3_from("launch__block_dim_x", "launch__block_dim_y", "launch__block_dim_z", "launch__block_size")) {
      launch.block = *block;
    }
  }
  if (const auto registers = whole("launch__registers_per_thread")) {
    launch.registers_per_thread = static_cast<int>(std::min<std::uint64_t>(*registers, 1u << 16));
  }
  launch.static_shared_bytes = whole("launch__shared_mem_per_block_static");
  launch.dynamic_shared_bytes = whole("launch__shared_mem_per_block_dynamic");
  if (!launch.stream_id) launch.stream_id = whole("launch__stream_id");
  if (!launch.context_id) launch.context_id = whole("launch__context_id");
  if (!launch.device) {
    if (const auto device = whole("launch__device_id"); device && *device <= 1024) {
      launch.device = static_cast<int>(*device);
    }
  }
}

DeviceDescription describe_device(const std::vector<PendingLaunch>& launches, const std::string& origin) {
  DeviceDescription device;
  const PendingLaunch& first = launches.front();
  const auto whole = [&](const char* metric) { return whole_counter(first, metric, origin); };

  if (const auto it = first.texts.find("device__attribute_display_name"); it != first.texts.end()) {
    device.name = it->second;
  } else if (!first.device_column.empty() && !parse_number(first.device_column)) {
    device.name = first.device_column;  // some exports put the name in "Device"
  }
  if (!first.cc_column.empty()) {
    const std::string_view cc = first.cc_column;
    const std::size_t dot = cc.find('.');
    const auto major = parse_number(cc.substr(0, dot));
    const auto minor = dot == std::string_view::npos ? std::optional<double>(0) : parse_number(cc.substr(dot + 1));
    const auto major_whole = major ? whole_number(*major) : std::nullopt;
    const auto minor_whole = minor ? whole_number(*minor) : std::nullopt;
    if (!major_whole || !minor_whole || *minor_whole > 9) {
      fail_at(origin, first.line, "'" + first.cc_column + "' in column 'CC' is not a compute capability like 9.0");
    }
    device.arch = arch_from_compute_capability(*major_whole, *minor_whole);
  } else if (const auto major = whole("device__attribute_compute_capability_major")) {
    device.arch = arch_from_compute_capability(*major, whole("device__attribute_compute_capability_minor").value_or(0));
  }
  if (const auto it = first.texts.find("device__attribute_chip"); it != first.texts.end()) {
    device.chip = it->second;  // ncu 2025 writes a number here; older versions a name
  }
  const auto sm_count = whole("device__attribute_multiprocessor_count")
                            ? whole("device__attribute_multiprocessor_count")
                            : whole("launch__sm_count");
  if (sm_count) device.sm_count = static_cast<int>(std::min<std::uint64_t>(*sm_count, 1u << 20));
  device.l2_bytes = whole("device__attribute_l2_cache_size");
  device.global_memory_bytes = whole("device__attribute_total_memory");
  if (const auto width = whole("device__attribute_global_memory_bus_width")) {
    device.memory_bus_width_bits = static_cast<int>(std::min<std::uint64_t>(*width, 1u << 20));
  }
  // The clocks the counters ran at (ncu locks them to base by default), averaged over launches.
  device.sm_clock_hz = mean_counter(launches, "sm__cycles_elapsed.avg.per_second");
  if (!device.sm_clock_hz) device.sm_clock_hz = mean_counter(launches, "gpc__cycles_elapsed.avg.per_second");
  device.memory_clock_hz = mean_counter(launches, "dram__cycles_elapsed.avg.per_second");
  if (!device.memory_clock_hz) {
    if (const auto rate = first.launch.counter("device__attribute_memory_clock_rate")) {
      // A CUDA device attribute, in kHz when ncu gives it without a unit.
      const auto unit = first.units.find("device__attribute_memory_clock_rate");
      const bool in_khz = unit == first.units.end() || unit->second.empty();
      device.memory_clock_hz = in_khz ? *rate * 1000 : *rate;
    }
  }
  return device;
}

}  // namespace limiter::detail::ncu
