#include "collect/cupti/raw_store.hpp"
#include "collect/cupti/pm_raw_store.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

#include <nlohmann/json.hpp>

#include "collect/collector_internal.hpp"
#include "collect/cupti/profiler_host.hpp"
#include "collect/cupti/raw_image_check.hpp"
#include "limiter/error.hpp"
#include "limiter/file_io.hpp"
#include "limiter/json_text.hpp"
#include "limiter/record_json.hpp"
#include "limiter/user_range_time.hpp"
#include "model/record_faults.hpp"

namespace limiter::detail {
namespace fs = std::filesystem;

namespace {

void write_bytes(const fs::path& path, const std::vector<std::uint8_t>& bytes) {
  write_file_atomically(path.string(), std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

std::vector<std::uint8_t> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("raw data set incomplete: cannot read '" + path.string() + "'");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

fs::path image_path(const fs::path& dir, std::size_t index) {
  return dir / ("image_" + std::to_string(index) + ".bin");
}

// meta.json: the device, the command line and the metrics every image holds.
RunRecord read_meta(const fs::path& dir, std::vector<std::string>& metrics) {
  std::ifstream meta_file(dir / "meta.json");
  if (!meta_file)
    throw InputError("'" + dir.string() +
                     "' is not a raw data set (no meta.json); make one with "
                     "`limiter run --save-raw DIR -- app`");
  RunRecord run;
  try {
    const nlohmann::json meta = nlohmann::json::parse(meta_file);
    run.tool_version = tool_version();
    run.source = "cupti-raw";
    run.device = device_from(meta.at("device"));
    run.command_line = meta.value("command_line", std::vector<std::string>{});
    if (const std::string caches = meta.value("cache_control", ""); caches == "none" || caches == "all")
      run.cache_control = caches;  // absent in raw folders before it
    metrics = meta.at("metrics").get<std::vector<std::string>>();
  } catch (const nlohmann::json::exception& e) {  // also a missing or mistyped field
    throw InputError("'" + (dir / "meta.json").string() + "' is corrupt: " + e.what());
  }
  return run;
}

// One line of launches.jsonl: a launch and where its counters are (image, range).
struct RawLaunch {
  KernelLaunch launch;
  std::size_t image = 0, range = 0;
};

RawLaunch raw_launch_from(const nlohmann::json& entry) {
  RawLaunch raw{launch_from(entry.at("launch")), entry.at("image").get<std::size_t>(),
                entry.at("range").get<std::size_t>()};
  // Evaluated again from the image; what the collector added itself (limiter__*) stays.
  std::erase_if(raw.launch.counters, [](const auto& counter) { return !counter.first.starts_with("limiter__"); });
  return raw;
}

RunRecord evaluate_process_dir(const fs::path& dir) {
  std::vector<std::string> metrics;
  RunRecord run = read_meta(dir, metrics);
  ProfilerHost host(run.device.chip);  // offline: no availability image needed (CUPTI's documentation)

  struct Image {
    std::vector<std::uint8_t> bytes;
    std::size_t ranges = 0;
  };
  std::map<std::size_t, Image> images;
  const fs::path launches_path = dir / "launches.jsonl";
  std::ifstream launches(launches_path);
  std::string line;
  std::size_t line_number = 0;
  while (std::getline(launches, line)) {
    ++line_number;
    if (line.empty()) continue;
    const std::string where = "'" + launches_path.string() + "':" + std::to_string(line_number);
    nlohmann::json entry;
    try {
      entry = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception&) {
      // A process killed mid-write leaves a torn last line: everything before it counts.
      std::fprintf(stderr, "limiter: %s: torn line ignored\n", where.c_str());
      continue;
    }
    RawLaunch raw;
    try {
      raw = raw_launch_from(entry);
    } catch (const nlohmann::json::exception& e) {
      throw InputError(where + ": not a launch of a raw data set: " + detail::json_error_words(e));
    } catch (const InputError& e) {  // a launch's field, named by launch_from
      throw InputError(where + ": not a launch of a raw data set: " + e.what());
    }
    if (!images.count(raw.image)) {
      const fs::path path = image_path(dir, raw.image);
      Image& image = images[raw.image];
      image.bytes = read_bytes(path);
      check_counter_image(path, image.bytes);  // before libnvperf_host reads anything in it
      image.ranges = ProfilerHost::range_count(image.bytes);
    }
    const Image& image = images[raw.image];
    if (raw.range >= image.ranges)
      throw InputError(where + ": range " + std::to_string(raw.range) + " of image " + std::to_string(raw.image) +
                       ", which holds " + std::to_string(image.ranges) + " ranges");
    const auto values = host.evaluate(image.bytes, raw.range, metrics);
    for (std::size_t i = 0; i < metrics.size(); ++i)
      if (!std::isnan(values[i])) raw.launch.counters[metrics[i]] = values[i];
    // A user-ranged launch: rescaled to its kernel's time as the collector did.
    if (raw.launch.user_range_ns) time_user_range(raw.launch);
    run.launches.push_back(std::move(raw.launch));
  }
  return run;
}

}  // namespace

void open_raw_dir(const std::string& dir, std::ofstream& launches) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw InputError("cannot create raw folder '" + dir + "': " + ec.message());
  launches.open(fs::path(dir) / "launches.jsonl", std::ios::app);
  if (!launches) throw InputError("cannot write in raw folder '" + dir + "'");
}

void write_raw_context(const std::string& dir, const DeviceDescription& device, const std::string& cache_control,
                       const std::vector<std::string>& metrics, std::size_t passes, const std::string& replay,
                       const std::vector<std::uint8_t>& availability, const std::vector<std::uint8_t>& config) {
  nlohmann::ordered_json meta;
  meta["kind"] = "limiter-raw";
  meta["tool_version"] = tool_version();
  meta["device"] = device_json(device);
  meta["cache_control"] = cache_control;
  meta["metrics"] = metrics;
  meta["passes"] = passes;
  meta["replay"] = replay;
  const std::string text = json_text(meta, 1);
  write_bytes(fs::path(dir) / "meta.json", std::vector<std::uint8_t>(text.begin(), text.end()));
  write_bytes(fs::path(dir) / "availability.bin", availability);
  write_bytes(fs::path(dir) / "config.bin", config);
}

void write_raw_image(const std::string& dir, std::size_t index, const std::vector<std::uint8_t>& image) {
  write_bytes(image_path(dir, index), image);
  write_image_digest(image_path(dir, index), image);
}

void append_raw_launch(std::ofstream& launches, const KernelLaunch& launch, std::size_t image, std::size_t range) {
  nlohmann::ordered_json entry;
  entry["image"] = image;
  entry["range"] = range;
  entry["launch"] = launch_json(launch);
  launches << json_text(entry) << "\n";
  launches.flush();
}

RunRecord evaluate_raw_dir(const std::string& dir) {
  if (!fs::is_directory(dir)) throw InputError("raw folder '" + dir + "' does not exist");
  if (is_pm_raw_dir(dir)) return evaluate_pm_raw_dir(dir);
  if (fs::exists(fs::path(dir) / "meta.json")) return evaluate_process_dir(dir);
  // A --save-raw folder of several processes: one sub-folder each, taken in name order.
  std::vector<fs::path> processes;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_directory() && fs::exists(entry.path() / "meta.json")) processes.push_back(entry.path());
  if (processes.empty())
    throw InputError("'" + dir +
                     "' holds no raw data set (no meta.json); make one with `limiter run --save-raw DIR -- app`");
  std::sort(processes.begin(), processes.end());
  RunRecord run = evaluate_process_dir(processes.front());
  for (std::size_t i = 1; i < processes.size(); ++i) {
    for (auto& launch : evaluate_process_dir(processes[i]).launches) run.launches.push_back(std::move(launch));
  }
  for (std::size_t i = 0; i < run.launches.size(); ++i) run.launches[i].sequence = i;
  return run;
}

}  // namespace limiter::detail
