#pragma once
// Peaks of known GPUs (docs/design.md §7), used when a record does not carry the peaks itself
// (`*.peak_sustained` counters). Theoretical peaks come from datasheets and ncu's
// peak_sustained values; calibrated peaks are achieved rates measured by microbenchmarks.
#include <optional>
#include <string>
#include <vector>

namespace limiter {

enum class PeakKind { theoretical, calibrated };
std::string to_string(PeakKind kind);
PeakKind peak_kind_from_string(const std::string& text);  // throws InputError

struct PeakSet {
  PeakKind kind = PeakKind::theoretical;
  std::string origin;  // where the numbers come from
  std::optional<double> dram_bytes_per_second;
  std::optional<double> l2_tag_sectors_per_cycle;  // whole GPU, per L2 cycle (theoretical only)
  std::optional<double> l2_clock_hz;
  // Sectors per L2 cycle the L2-to-crossbar return path carries, whole GPU: lets the one-pass
  // plan, which cannot hold lts__lts2xbar_cycles_active on GH100, still see that path busy.
  std::optional<double> l2_return_sectors_per_cycle;
  std::optional<double> l2_delivered_bytes_per_second;  // calibrated L2-resident read rate
  double issue_per_scheduler_per_cycle = 1.0;           // warp instructions
};

struct GpuSpec {
  std::string product;                 // "H200 SXM"
  std::vector<std::string> name_keys;  // substrings of the CUDA device name that select it
  std::string arch;                    // "sm_90"
  std::string chip;                    // "GH100"
  int sm_count = 0;
  double sm_clock_max_hz = 0;
  double l2_bytes = 0;
  PeakSet theoretical;
  std::optional<PeakSet> calibrated;
};

// The spec whose name key occurs in device_name ("NVIDIA H200" -> H200 SXM), or nullptr.
const GpuSpec* find_gpu_spec(const std::string& device_name);
const std::vector<GpuSpec>& known_gpu_specs();

}  // namespace limiter
