#pragma once
// The CUPTI Profiler Host API: config images, pass counts and evaluation of counter-data
// images. Works without a GPU (chip name only), so `limiter metrics` and `limiter analyze`
// run anywhere the toolkit's libcupti and libnvperf_host are.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

struct CUpti_Profiler_Host_Object;

namespace limiter::detail {

class ProfilerHost {
 public:
  // chip: "GH100" (case-sensitive); availability: the device's counter-availability image,
  // or empty offline.
  // pm_sampling: for the PM Sampling API (its own counter limits; evaluates its samples).
  explicit ProfilerHost(const std::string& chip, const std::vector<std::uint8_t>& availability = {},
                        bool pm_sampling = false);
  ~ProfilerHost();
  ProfilerHost(const ProfilerHost&) = delete;
  ProfilerHost& operator=(const ProfilerHost&) = delete;

  // Adds the metrics and returns the config image. An unknown metric becomes an InputError
  // that names it and lists close matches from this chip's metrics.
  std::vector<std::uint8_t> config_image(const std::vector<std::string>& metrics);

  // Metric values of one range of a counter-data image; NaN where the image lacks the counters.
  std::vector<double> evaluate(const std::vector<std::uint8_t>& counter_data, std::size_t range,
                               const std::vector<std::string>& metrics) const;

  std::vector<std::string> base_metrics() const;  // counters, ratios and throughputs of the chip

  static std::size_t pass_count(std::vector<std::uint8_t>& config_image);
  static std::size_t range_count(const std::vector<std::uint8_t>& counter_data);
  static std::vector<std::string> supported_chips();

 private:
  std::string chip_;
  bool pm_sampling_ = false;
  CUpti_Profiler_Host_Object* host_ = nullptr;
};

// Up to `count` names from `candidates` closest to `name` (edit distance on the base name).
std::vector<std::string> close_matches(const std::string& name, const std::vector<std::string>& candidates,
                                       std::size_t count = 3);

}  // namespace limiter::detail
