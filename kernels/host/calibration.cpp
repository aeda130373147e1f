#include "limiter/kernels/calibration.hpp"

#include <algorithm>
#include <ostream>

#include "limiter/device_spec.hpp"
#include "limiter/format.hpp"

namespace limiter::kernels {

bool CalibrationResult::all_correct() const {
  return std::all_of(measurements.begin(), measurements.end(),
                     [](const Measurement& m) { return m.correct.value_or(false); });
}

namespace {

nlohmann::ordered_json optional_number(const std::optional<double>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

}  // namespace

nlohmann::ordered_json calibration_json(const CalibrationResult& result) {
  nlohmann::ordered_json gpu;
  gpu["name"] = result.device.name;
  gpu["arch"] = result.device.arch;
  gpu["chip"] = result.device.chip;
  gpu["sm_count"] = result.device.sm_count;
  gpu["sm_clock_max_hz"] = optional_number(result.device.sm_clock_hz);
  gpu["sm_clock_measured_hz"] = optional_number(result.sm_clock_measured_hz);
  gpu["memory_clock_hz"] = optional_number(result.device.memory_clock_hz);
  gpu["memory_bus_width_bits"] =
      result.device.memory_bus_width_bits ? nlohmann::ordered_json(*result.device.memory_bus_width_bits) : nullptr;
  gpu["l2_bytes"] = result.device.l2_bytes ? nlohmann::ordered_json(*result.device.l2_bytes) : nullptr;

  nlohmann::ordered_json peaks;
  peaks["kind"] = "calibrated";
  peaks["dram_bytes_per_second"] = optional_number(result.dram_read_bytes_per_second);
  peaks["l2_delivered_bytes_per_second"] = optional_number(result.l2_read_bytes_per_second);
  peaks["fp32_flops_per_second"] = optional_number(result.fp32_flops_per_second);
  peaks["dependent_load_latency_ns"] = optional_number(result.dependent_load_latency_ns);

  nlohmann::ordered_json kernels = nlohmann::ordered_json::array();
  for (const auto& m : result.measurements) {
    nlohmann::ordered_json kernel;
    kernel["name"] = m.name;
    kernel["time_ns"] = optional_number(m.time_ns);
    kernel["timed_runs"] = m.timed_runs;
    kernel["useful_bytes"] = m.useful_bytes;
    kernel["useful_flops"] = m.useful_flops;
    kernel["dependent_steps"] = m.dependent_steps;
    kernel["correct"] = m.correct ? nlohmann::ordered_json(*m.correct) : nullptr;
    kernel["check"] = m.check_detail;
    kernels.push_back(std::move(kernel));
  }

  nlohmann::ordered_json out;
  out["schema_version"] = kCalibrationSchemaVersion;
  out["tool_version"] = tool_version();
  out["created_at"] = result.created_at;
  out["sizes"] = result.sizes;
  out["gpu"] = std::move(gpu);
  out["peaks"] = std::move(peaks);
  out["method"] = {{"dram", "median time of a streaming read of 1 GiB (uint4 loads), far more than L2 holds"},
                   {"l2", "ld.global.cg over 8 MiB, 64 passes, L2 not flushed: bytes delivered to the SMs per second"},
                   {"fp32", "8 independent FFMA chains per thread at full occupancy; 2 FLOPs per FFMA"},
                   {"latency", "one dependent load at a time per thread over a 2^25-entry random cycle (128 MiB)"},
                   {"sm_clock", "clock64() cycles of a busy-waiting kernel over its CUDA-event time"}};
  out["kernels"] = std::move(kernels);
  return out;
}

void write_calibration_summary(const CalibrationResult& result, std::ostream& out) {
  const GpuSpec* spec = find_gpu_spec(result.device.name);
  out << "calibrated peaks — " << result.device.name << " (" << result.device.arch << ", " << result.device.sm_count
      << " SMs), " << result.sizes << " sizes\n";
  auto line = [&](const std::string& what, const std::string& value, const std::string& beside) {
    out << "  " << what << std::string(what.size() < 28 ? 28 - what.size() : 1, ' ') << value
        << (beside.empty() ? "" : "   (" + beside + ")") << "\n";
  };
  const auto& dram = result.dram_read_bytes_per_second;
  std::string dram_beside;
  if (dram && spec && spec->theoretical.dram_bytes_per_second)
    dram_beside = format_percent(*dram / *spec->theoretical.dram_bytes_per_second) + " of the datasheet's " +
                  format_rate(*spec->theoretical.dram_bytes_per_second);
  line("DRAM streaming read", dram ? format_rate(*dram) : "-", dram_beside);
  line("L2-resident read (ld.cg)",
       result.l2_read_bytes_per_second ? format_rate(*result.l2_read_bytes_per_second) : "-", "");
  std::string fp32_beside;
  if (result.fp32_flops_per_second && result.sm_clock_measured_hz && result.device.sm_count > 0) {
    // 128 FP32 lanes per SM from Ampere on; 2 FLOPs per FMA.
    const double peak = result.device.sm_count * 128.0 * 2.0 * *result.sm_clock_measured_hz;
    fp32_beside = format_percent(*result.fp32_flops_per_second / peak) + " of 128 FMA lanes/SM at the measured clock";
  }
  line("FP32 FMA",
       result.fp32_flops_per_second ? format_fixed(*result.fp32_flops_per_second * 1e-12, 2) + " TFLOP/s" : "-",
       fp32_beside);
  std::string latency_beside;
  if (result.dependent_load_latency_ns && result.sm_clock_measured_hz)
    latency_beside =
        format_fixed(*result.dependent_load_latency_ns * 1e-9 * *result.sm_clock_measured_hz, 0) + " SM cycles";
  line("dependent load (DRAM)",
       result.dependent_load_latency_ns ? format_fixed(*result.dependent_load_latency_ns, 1) + " ns" : "-",
       latency_beside);
  line("SM clock while busy",
       result.sm_clock_measured_hz ? format_fixed(*result.sm_clock_measured_hz * 1e-6, 0) + " MHz" : "-",
       result.device.sm_clock_hz ? "runtime's maximum " + format_fixed(*result.device.sm_clock_hz * 1e-6, 0) + " MHz"
                                 : "");
  for (const auto& m : result.measurements)
    if (!m.correct.value_or(false)) out << "  WRONG RESULT: " << m.name << ": " << m.check_detail << "\n";
}

}  // namespace limiter::kernels
