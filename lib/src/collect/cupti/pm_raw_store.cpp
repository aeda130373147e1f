// PM-sampling recordings: written by the collector's sampling mode, re-evaluated offline.
#include "collect/cupti/pm_raw_store.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <sstream>

#include <nlohmann/json.hpp>

#include "collect/cupti/profiler_host.hpp"
#include "limiter/error.hpp"
#include "limiter/json_text.hpp"
#include "limiter/record_json.hpp"
#include "model/gzip_input.hpp"

namespace limiter::detail {
namespace {

namespace fs = std::filesystem;

std::vector<std::uint8_t> read_maybe_gzip(const fs::path& path) {
  GzipInputBuffer buffer(path.string());  // plain files pass through unchanged
  std::istream in(&buffer);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// PATH, or PATH.gz where only that exists (a recording compressed to be kept).
fs::path plain_or_gzip(const fs::path& path) {
  if (fs::exists(path)) return path;
  fs::path compressed = path;
  compressed += ".gz";
  return fs::exists(compressed) ? compressed : path;
}

fs::path image_path(const fs::path& dir, std::size_t index) {
  const fs::path plain = dir / ("pm_image_" + std::to_string(index) + ".bin");
  if (fs::exists(plain)) return plain;
  return dir / ("pm_image_" + std::to_string(index) + ".bin.gz");
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> read_times(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw InputError("PM-sampling recording incomplete: cannot read '" + path.string() + "'");
  std::vector<std::pair<std::uint64_t, std::uint64_t>> times;
  std::uint64_t start = 0, end = 0;
  while (in >> start >> end) times.emplace_back(start, end);
  if (!in.eof()) throw InputError("'" + path.string() + "': expected lines of \"start_ns end_ns\"");
  return times;
}

}  // namespace

bool is_pm_raw_dir(const std::string& dir) {
  std::ifstream meta(fs::path(dir) / "meta.json");
  if (!meta) return false;
  try {
    return nlohmann::json::parse(meta).value("mode", "") == "pm-sampling";
  } catch (const nlohmann::json::exception&) {
    return false;
  }
}

RunRecord evaluate_pm_raw_dir(const std::string& dir_text) {
  const fs::path dir(dir_text);
  RunRecord run;
  std::vector<std::string> metrics;
  std::uint64_t interval_ns = 0;
  try {
    const nlohmann::json meta = nlohmann::json::parse(std::ifstream(dir / "meta.json"));
    run.device = device_from(meta.at("device"));
    run.command_line = meta.value("command_line", std::vector<std::string>{});
    metrics = meta.at("metrics").get<std::vector<std::string>>();
    interval_ns = meta.at("interval_ns").get<std::uint64_t>();
  } catch (const nlohmann::json::exception& e) {
    throw InputError("'" + (dir / "meta.json").string() + "' is corrupt: " + e.what());
  }
  run.tool_version = tool_version();
  run.source = "cupti-pm-sampling-raw";
  SampleAttributor attributor(metrics, interval_ns);

  const fs::path kernels_path = plain_or_gzip(dir / "kernels.jsonl");
  if (!fs::exists(kernels_path))
    throw InputError("PM-sampling recording incomplete: cannot read '" + (dir / "kernels.jsonl").string() + "'");
  GzipInputBuffer kernels_buffer(kernels_path.string());  // plain files pass through unchanged
  std::istream kernels(&kernels_buffer);
  std::string line;
  std::size_t line_number = 0;
  while (std::getline(kernels, line)) {
    ++line_number;
    if (line.empty()) continue;
    try {
      const nlohmann::json entry = nlohmann::json::parse(line);
      KernelSpan span;
      span.start_ns = entry.at("start").get<std::uint64_t>();
      span.end_ns = entry.at("end").get<std::uint64_t>();
      span.launch = launch_from(entry.at("launch"));
      attributor.add_kernel(std::move(span));
    } catch (const std::exception& e) {
      // A process killed mid-write leaves a torn last line: everything before it counts.
      std::fprintf(stderr, "limiter: '%s':%zu: line ignored (%s)\n", kernels_path.string().c_str(), line_number,
                   e.what());
    }
  }

  if (const fs::path samples = plain_or_gzip(dir / "samples.tsv"); fs::exists(samples)) {
    for (auto& sample : read_pm_samples(samples.string(), metrics.size())) attributor.add_sample(std::move(sample));
    run.launches = attributor.aggregates();
    run.sampling = attributor.info();
    run.schema_version = kRunSchemaVersion;
    return run;
  }
  ProfilerHost host(run.device.chip, {}, /*pm_sampling=*/true);
  for (std::size_t index = 0; fs::exists(image_path(dir, index)); ++index) {
    const fs::path path = image_path(dir, index);
    const auto image = read_maybe_gzip(path);
    fs::path times_path = dir / ("pm_image_" + std::to_string(index) + ".times");
    const auto times = read_times(times_path);
    if (!times.empty() && image.size() < 1024)
      throw InputError("'" + path.string() + "' is too small to hold " + std::to_string(times.size()) + " samples");
    for (std::size_t sample = 0; sample < times.size(); ++sample) {
      PmSample s;
      s.start_ns = times[sample].first;
      s.end_ns = times[sample].second;
      s.values = host.evaluate(image, sample, metrics);
      attributor.add_sample(std::move(s));
    }
  }
  run.launches = attributor.aggregates();
  run.sampling = attributor.info();
  run.schema_version = kRunSchemaVersion;
  return run;
}

void write_pm_meta(const std::string& dir, const DeviceDescription& device, const std::vector<std::string>& metrics,
                   std::uint64_t interval_ns, const std::vector<std::string>& command_line,
                   const std::vector<std::uint8_t>& config) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw InputError("cannot create raw folder '" + dir + "': " + ec.message());
  nlohmann::ordered_json meta;
  meta["mode"] = "pm-sampling";
  meta["tool_version"] = tool_version();
  meta["device"] = device_json(device);
  meta["metrics"] = metrics;
  meta["interval_ns"] = interval_ns;
  meta["command_line"] = command_line;
  std::ofstream(fs::path(dir) / "meta.json") << json_text(meta) << "\n";
  std::ofstream(fs::path(dir) / "config.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(config.data()), static_cast<std::streamsize>(config.size()));
}

void write_pm_image(const std::string& dir, std::size_t index, const std::vector<std::uint8_t>& image,
                    const std::vector<std::pair<std::uint64_t, std::uint64_t>>& times) {
  std::ofstream(fs::path(dir) / ("pm_image_" + std::to_string(index) + ".bin"), std::ios::binary)
      .write(reinterpret_cast<const char*>(image.data()), static_cast<std::streamsize>(image.size()));
  std::ofstream out(fs::path(dir) / ("pm_image_" + std::to_string(index) + ".times"));
  for (const auto& [start, end] : times) out << start << " " << end << "\n";
}

void append_pm_kernel(std::ofstream& kernels, const KernelSpan& span) {
  nlohmann::ordered_json entry;
  entry["start"] = span.start_ns;
  entry["end"] = span.end_ns;
  entry["launch"] = launch_json(span.launch);
  kernels << json_text(entry) << "\n";
}

std::string pm_samples_text(const std::vector<std::string>& metrics, const std::vector<PmSample>& batch, bool header) {
  std::string text;
  if (header) {
    text += "# start_ns end_ns";
    for (const auto& metric : metrics) text += ' ' + metric;
    text += '\n';
  }
  char number[64];
  for (const auto& sample : batch) {
    text += std::to_string(sample.start_ns) + ' ' + std::to_string(sample.end_ns);
    for (const double value : sample.values) {
      // Shortest text that reads back to the same double: re-analysis attributes the same numbers.
      const auto [end, error] = std::to_chars(number, number + sizeof number, value);
      text += ' ';
      text += error == std::errc() ? std::string_view(number, static_cast<std::size_t>(end - number)) : "nan";
    }
    text += '\n';
  }
  return text;
}

std::vector<PmSample> read_pm_samples(const std::string& path, std::size_t metrics) {
  if (!fs::exists(path)) throw InputError("PM-sampling recording incomplete: cannot read '" + path + "'");
  GzipInputBuffer buffer(path);  // plain or gzip-compressed
  std::istream in(&buffer);
  std::vector<PmSample> samples;
  std::string line;
  std::size_t line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.empty() || line.front() == '#') continue;
    PmSample sample;
    const char* at = line.data();
    const char* const end = line.data() + line.size();
    auto skip_spaces = [&] {
      while (at < end && *at == ' ') ++at;
    };
    bool ok = true;
    for (std::uint64_t* field : {&sample.start_ns, &sample.end_ns}) {
      skip_spaces();
      const auto result = std::from_chars(at, end, *field);
      ok = ok && result.ec == std::errc();
      at = result.ptr;
    }
    while (ok && at < end) {
      skip_spaces();
      if (at == end) break;
      double value = NAN;
      const auto result = std::from_chars(at, end, value);  // reads "nan" as well
      ok = result.ec == std::errc();
      at = result.ptr;
      sample.values.push_back(value);
    }
    if (!ok || sample.values.size() != metrics) {
      // A process killed mid-write leaves a torn last line: everything before it counts.
      std::fprintf(stderr, "limiter: '%s':%zu: line ignored (expected start, end and %zu values)\n", path.c_str(),
                   line_number, metrics);
      continue;
    }
    samples.push_back(std::move(sample));
  }
  return samples;
}

}  // namespace limiter::detail
