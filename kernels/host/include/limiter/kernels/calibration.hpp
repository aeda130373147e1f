#pragma once
// Achieved peaks measured by `limiter calibrate` (docs/design.md §7: calibrate rather than trust
// datasheets), and the JSON file it writes. Host-only; the measuring is in the kernel suite.
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "limiter/kernels/results.hpp"
#include "limiter/record.hpp"

namespace limiter::kernels {

inline constexpr int kCalibrationSchemaVersion = 1;

struct CalibrationResult {
  DeviceDescription device;                          // name, arch, SMs, the clocks the runtime reports
  std::string created_at;                            // ISO 8601 UTC
  std::string sizes;                                 // "full" or "small"
  std::optional<double> sm_clock_measured_hz;        // clock64() cycles over event time, while busy
  std::optional<double> dram_read_bytes_per_second;  // calib_hbm_stream_read
  std::optional<double> l2_read_bytes_per_second;    // calib_l2_resident_read_cg
  std::optional<double> fp32_flops_per_second;       // calib_fma_ilp
  std::optional<double> dependent_load_latency_ns;   // calib_pointer_chase, DRAM-sized table
  std::vector<Measurement> measurements;             // the four kernels, with their checks
  bool all_correct() const;
};

// {"schema_version", "tool_version", "created_at", "gpu": {...}, "peaks": {...}, "kernels": [...]}.
// Peak names follow limiter::PeakSet (dram_bytes_per_second, l2_delivered_bytes_per_second).
nlohmann::ordered_json calibration_json(const CalibrationResult& result);

// A short table for the terminal, with the datasheet figures of known GPUs beside ours.
void write_calibration_summary(const CalibrationResult& result, std::ostream& out);

}  // namespace limiter::kernels
