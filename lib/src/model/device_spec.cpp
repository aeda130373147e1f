#include "limiter/device_spec.hpp"

#include "limiter/error.hpp"

namespace limiter {

std::string to_string(PeakKind kind) { return kind == PeakKind::calibrated ? "calibrated" : "theoretical"; }

PeakKind peak_kind_from_string(const std::string& text) {
  if (text == "theoretical") return PeakKind::theoretical;
  if (text == "calibrated") return PeakKind::calibrated;
  throw InputError("unknown peak kind '" + text + "' (expected 'theoretical' or 'calibrated')");
}

const std::vector<GpuSpec>& known_gpu_specs() {
  // GH100 L2 tag stage: lts__t_sectors.sum.peak_sustained = 282 sectors per L2 cycle, read
  // by ncu on an H200 (docs/design.md §7). L2 clock ~1.71 GHz under production clocks on the H200. The return path
  // (L2 to crossbar) carries 188 sectors per L2 cycle = 2/3 of the tag peak: fitted on the
  // H200 probe recording, where L1-sourced read sectors / (188 x L2 cycles) reproduces ncu's
  // lts__lts2xbar_cycles_active for all five kernels that read (tests/unit/recorded_runs_test.cpp).
  static const std::vector<GpuSpec> specs = {
      {"H200 SXM",
       {"H200"},
       "sm_90",
       "GH100",
       132,
       1.98e9,
       62914560.0,
       {PeakKind::theoretical, "H200 datasheet 4.8 TB/s; ncu dram__bytes.sum.peak_sustained 1504 B/cycle x 3.199 GHz",
        4.81e12, 282.0, 1.71e9, 188.0, std::nullopt, 1.0},
       PeakSet{PeakKind::calibrated,
               "measured on an H200 2026-11-22 (docs/design.md §7): HBM streaming read, L2-resident ld.cg read",
               4.47e12, std::nullopt, std::nullopt, std::nullopt, 8.17e12, 1.0}},
      // Measured on an H100 SXM 2026-11-23 (tests/data/sol/): its L2 has 5/6 of the H200's
      // slices, so lts__t_sectors.sum.peak_sustained reads 240 (not 282) and the return path
      // carries 159 sectors per L2 cycle (154-162 over the 25 kernels of ml_ops.py whose
      // lts__lts2xbar_cycles_active was above 20 % under the `sol` plan); DRAM 1280 B/cycle x 2.616 GHz.
      {"H100 SXM",
       {"H100 80GB HBM3", "H100 SXM"},
       "sm_90",
       "GH100",
       132,
       1.98e9,
       52428800.0,
       {PeakKind::theoretical,
        "H100 SXM5: ncu dram__bytes.sum.peak_sustained 1280 B/cycle x 2.616 GHz; L2 peaks read on an H100", 3.35e12,
        240.0, 1.70e9, 159.0, std::nullopt, 1.0},
       PeakSet{PeakKind::calibrated,
               "measured on an H100 2026-11-22/23 by limiter calibrate: HBM streaming read, L2-resident ld.cg read",
               3.09e12, std::nullopt, std::nullopt, std::nullopt, 6.5e12, 1.0}},
      {"H100 PCIe",
       {"H100 PCIe"},
       "sm_90",
       "GH100",
       114,
       1.755e9,
       52428800.0,
       {PeakKind::theoretical, "H100 PCIe datasheet: 2.0 TB/s HBM2e", 2.0e12, std::nullopt, std::nullopt, std::nullopt,
        std::nullopt, 1.0},
       std::nullopt},
  };
  return specs;
}

const GpuSpec* find_gpu_spec(const std::string& device_name) {
  for (const auto& spec : known_gpu_specs())
    for (const auto& key : spec.name_keys)
      if (device_name.find(key) != std::string::npos) return &spec;
  return nullptr;
}

}  // namespace limiter
