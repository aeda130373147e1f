#pragma once
// A PM-sampling recording (limiter run --sampling --save-raw DIR): what `limiter analyze DIR`
// re-evaluates offline through the CUPTI host API (chip name only) and attributes again.
//   meta.json            {"mode": "pm-sampling", device, metrics, interval_ns, command_line}
//   config.bin           the PM-sampling config image
//   samples.tsv          the decoded samples, one per line: "start_ns end_ns value..." in the
//                        order of meta.json's metrics (a first line "# ..." names the columns).
//                        ~200 bytes a sample, where an image keeps ~58 kB (15 metrics).
//   pm_image_<N>.bin     counter-data images in order (or .bin.gz, gzip-compressed), only with
//                        LIMITER_PM_RAW_IMAGES=1 (or from older recordings): re-evaluated through
//                        the host API where samples.tsv is absent
//   pm_image_<N>.times   one line per sample of that image: "start_ns end_ns" (the sample times are
//                        read through the sampling object, which an offline reader does not have)
//   kernels.jsonl        one kernel per line: {"start": ns, "end": ns, "launch": {...}}
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "limiter/record.hpp"
#include "limiter/sampling.hpp"

namespace limiter::detail {

bool is_pm_raw_dir(const std::string& dir);
RunRecord evaluate_pm_raw_dir(const std::string& dir);

void write_pm_meta(const std::string& dir, const DeviceDescription& device, const std::vector<std::string>& metrics,
                   std::uint64_t interval_ns, const std::vector<std::string>& command_line,
                   const std::vector<std::uint8_t>& config);
void write_pm_image(const std::string& dir, std::size_t index, const std::vector<std::uint8_t>& image,
                    const std::vector<std::pair<std::uint64_t, std::uint64_t>>& times);
void append_pm_kernel(std::ofstream& kernels, const KernelSpan& span);
// samples.tsv lines of BATCH, after the header line when HEADER (the file's start).
std::string pm_samples_text(const std::vector<std::string>& metrics, const std::vector<PmSample>& batch, bool header);
std::vector<PmSample> read_pm_samples(const std::string& path, std::size_t metrics);

}  // namespace limiter::detail
