// The run record read a launch at a time: a line at a time with simdjson where it is in the
// layout limiter writes (record_lines.cpp), else through nlohmann-json's SAX interface, where
// launches are built field by field; the run's other fields are collected into a small JSON
// object and checked by run_from_json, so every reader accepts and rejects the same files.
#include "limiter/record_stream.hpp"

#include <fstream>
#include <map>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "limiter/error.hpp"
#include "limiter/record_json.hpp"
#include "model/gzip_input.hpp"
#include "model/launch_fields.hpp"
#include "model/record_lines.hpp"

namespace limiter {
namespace {

using json = nlohmann::json;

using detail::LaunchField;
using detail::launch_field;

class RunSaxHandler final : public nlohmann::json_sax<json> {
 public:
  RunSaxHandler(std::string origin, const RunHeaderSink& on_header, const LaunchSink& on_launch,
                std::vector<KernelLaunch>* spare)
      : origin_(std::move(origin)), on_header_(on_header), on_launch_(on_launch), recycler_(spare) {}

  // After the parse: a record without "launches", or whose launches came before its device.
  void finish() {
    if (!header_sent_) send_header();
    for (auto& launch : held_) on_launch_(std::move(launch));
    held_.clear();
  }

  bool null() override { return scalar(json(nullptr), std::nullopt); }
  bool boolean(bool value) override { return scalar(json(value), std::nullopt); }
  bool number_integer(number_integer_t value) override { return scalar(json(value), static_cast<double>(value)); }
  bool number_unsigned(number_unsigned_t value) override { return scalar(json(value), static_cast<double>(value)); }
  bool number_float(number_float_t value, const string_t&) override { return scalar(json(value), value); }
  bool binary(binary_t&) override { return true; }
  bool string(string_t& value) override {
    if (in_launch_ && depth_ == kLaunchDepth) {
      if (field_ == LaunchField::name) {
        launch_.name.assign(value);  // a copy into a reused string: the parser keeps its buffer
        has_name_ = true;
        return true;
      }
      if (field_ == LaunchField::mangled_name) {
        launch_.mangled_name.assign(value);
        return true;
      }
    }
    if (in_launch_ && depth_ == kLaunchDepth + 1 && field_ == LaunchField::nvtx) {
      launch_.nvtx.push_back(std::move(value));
      return true;
    }
    return scalar(json(std::move(value)), std::nullopt);
  }

  bool start_object(std::size_t) override {
    ++depth_;
    if (depth_ == 1) return true;  // the record itself
    if (in_launches_ && depth_ == kLaunchDepth && !in_launch_) {
      start_launch();
      in_launch_ = true;
      has_sequence_ = has_name_ = has_grid_ = has_block_ = has_counters_ = false;
      return true;
    }
    if (in_launch_ && depth_ == kLaunchDepth + 1 && field_ == LaunchField::counters) {
      has_counters_ = true;
      return true;
    }
    if (in_launch_ && depth_ > kLaunchDepth && field_ == LaunchField::nvtx) fail_launch(kNvtxType);
    if (in_launch_ && depth_ == kLaunchDepth + 1 && field_ == LaunchField::sampled) {
      launch_.sampled = SampleSupport{};
      return true;
    }
    return open_captured(json::object());
  }

  bool end_object() override {
    if (in_launch_ && depth_ == kLaunchDepth) finish_launch();
    else if (!(in_launch_ && depth_ == kLaunchDepth + 1 && in_own_object())) close_captured();
    --depth_;
    return true;
  }

  bool start_array(std::size_t) override {
    ++depth_;
    if (depth_ == 1) throw InputError(not_a_run());
    if (depth_ == 2 && top_key_ == "launches") {
      in_launches_ = true;
      if (header_.contains("device")) send_header();  // else the device comes later: hold the launches
      return true;
    }
    if (in_launch_ && depth_ == kLaunchDepth + 1 && (field_ == LaunchField::grid || field_ == LaunchField::block)) {
      dims_.clear();
      return true;
    }
    if (in_launch_ && depth_ == kLaunchDepth + 1 && field_ == LaunchField::nvtx) {
      launch_.nvtx.clear();  // a repeated key: the last one counts, as in the DOM reader
      return true;
    }
    if (in_launch_ && depth_ > kLaunchDepth + 1 && field_ == LaunchField::nvtx) fail_launch(kNvtxType);
    return open_captured(json::array());
  }

  bool end_array() override {
    if (in_launches_ && depth_ == 2) {
      in_launches_ = false;
    } else if (in_launch_ && depth_ == kLaunchDepth + 1 && field_ == LaunchField::nvtx) {
      // the paths are in launch_.nvtx already
    } else if (in_launch_ && depth_ == kLaunchDepth + 1 && (field_ == LaunchField::grid || field_ == LaunchField::block)) {
      if (dims_.size() != 3) fail_launch("expected [x, y, z] for \"" + std::string(field_ == LaunchField::grid ? "grid" : "block") + "\"");
      const Dim3 dim{static_cast<std::uint32_t>(dims_[0]), static_cast<std::uint32_t>(dims_[1]),
                     static_cast<std::uint32_t>(dims_[2])};
      (field_ == LaunchField::grid ? launch_.grid : launch_.block) = dim;
      (field_ == LaunchField::grid ? has_grid_ : has_block_) = true;
    } else {
      close_captured();
    }
    --depth_;
    return true;
  }

  bool key(string_t& key) override {
    if (depth_ == 1) {
      top_key_ = key;
    } else if (in_launch_ && depth_ == kLaunchDepth) {
      field_ = launch_field(key);
    } else if (in_launch_ && depth_ == kLaunchDepth + 1 && in_own_object()) {
      metric_.assign(key);
    } else {
      captured_key_ = std::move(key);
    }
    return true;
  }

  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    throw InputError(origin_ + " is not valid JSON (truncated or corrupt?): " + e.what());
  }

 private:
  static constexpr int kLaunchDepth = 3;  // record { launches [ launch { ... } ] }
  static constexpr const char* kNvtxType = "\"nvtx\" must be an array of strings";

  // The launch's objects this handler reads key by key: its counters and its sample support.
  bool in_own_object() const { return field_ == LaunchField::counters || field_ == LaunchField::sampled; }

  // A scalar: a launch field, a counter, or part of the run's other fields.
  bool scalar(json value, std::optional<double> number) {
    if (depth_ == 0) throw InputError(not_a_run());
    if (in_launch_) {
      if (depth_ == kLaunchDepth + 1 && field_ == LaunchField::counters) {
        // null: a counter the hardware could not provide (NaN is written as null).
        if (number) add_counter(*number);
        else if (!value.is_null()) fail_launch("counter \"" + metric_ + "\" is not a number");
        return true;
      }
      if (depth_ == kLaunchDepth + 1 && field_ == LaunchField::nvtx) fail_launch(kNvtxType);
      if (depth_ == kLaunchDepth + 1 && field_ == LaunchField::sampled) {
        if (!number) fail_launch("\"sampled\": \"" + metric_ + "\" is not a number");
        detail::set_sample_support(*launch_.sampled, metric_, *number);
        return true;
      }
      if (depth_ == kLaunchDepth + 1 && (field_ == LaunchField::grid || field_ == LaunchField::block)) {
        if (!number) fail_launch("expected [x, y, z] of numbers");
        dims_.push_back(*number);
        return true;
      }
      if (depth_ == kLaunchDepth) launch_scalar(value, number);
      return true;  // deeper: inside a field limiter does not read
    }
    if (depth_ == 1) {
      header_[top_key_] = std::move(value);
      return true;
    }
    if (in_launches_) throw InputError(origin_ + ": launch " + std::to_string(launch_index_) + ": expected an object");
    add_captured(std::move(value));
    return true;
  }

  void start_launch() { recycler_.renew(launch_); }
  void add_counter(double value) { recycler_.add_counter(launch_, metric_, value); }

  void launch_scalar(const json& value, std::optional<double> number) {
    const auto optional_number = [&](const char* name) -> std::optional<double> {
      if (value.is_null()) return std::nullopt;
      if (!number) fail_launch(std::string("\"") + name + "\" must be a number or null");
      return number;
    };
    switch (field_) {
      case LaunchField::sequence:
        if (!number) fail_launch("\"sequence\" must be a number");
        launch_.sequence = value.is_number_unsigned() ? value.get<std::uint64_t>() : detail::u64_from_double(*number);
        has_sequence_ = true;
        break;
      case LaunchField::name: fail_launch("\"name\" must be a string");
      case LaunchField::mangled_name: fail_launch("\"mangled_name\" must be a string");
      case LaunchField::registers:
        if (auto v = optional_number("registers_per_thread")) launch_.registers_per_thread = static_cast<int>(*v);
        break;
      case LaunchField::static_shared: set_u64(launch_.static_shared_bytes, optional_number("static_shared_bytes"), value); break;
      case LaunchField::dynamic_shared: set_u64(launch_.dynamic_shared_bytes, optional_number("dynamic_shared_bytes"), value); break;
      case LaunchField::local_bytes: set_u64(launch_.local_bytes_per_thread, optional_number("local_bytes_per_thread"), value); break;
      case LaunchField::stream_id: set_u64(launch_.stream_id, optional_number("stream_id"), value); break;
      case LaunchField::context_id: set_u64(launch_.context_id, optional_number("context_id"), value); break;
      case LaunchField::graph_id: set_u64(launch_.graph_id, optional_number("graph_id"), value); break;
      case LaunchField::graph_node: set_u64(launch_.graph_node, optional_number("graph_node"), value); break;
      case LaunchField::user_range_ns: launch_.user_range_ns = optional_number("user_range_ns"); break;
      case LaunchField::kernel_active_ns: launch_.kernel_active_ns = optional_number("kernel_active_ns"); break;
      case LaunchField::device:
        if (auto v = optional_number("device")) launch_.device = static_cast<int>(*v);
        break;
      case LaunchField::nvtx:
        if (!value.is_null()) fail_launch(kNvtxType);
        launch_.nvtx.clear();
        break;
      case LaunchField::grid: case LaunchField::block: fail_launch("expected [x, y, z]");
      case LaunchField::counters: fail_launch("\"counters\" must be an object");
      case LaunchField::sampled: fail_launch("\"sampled\" must be an object");
      case LaunchField::ignored: break;
    }
  }

  static void set_u64(std::optional<std::uint64_t>& out, std::optional<double> number, const json& value) {
    if (!number) return;
    out = value.is_number_unsigned() ? value.get<std::uint64_t>() : detail::u64_from_double(*number);
  }

  void finish_launch() {
    for (const auto& [present, name] : {std::pair{has_sequence_, "sequence"}, {has_name_, "name"}, {has_grid_, "grid"},
                                        {has_block_, "block"}, {has_counters_, "counters"}}) {
      if (!present) fail_launch(std::string("no \"") + name + "\"");
    }
    in_launch_ = false;
    ++launch_index_;
    if (header_sent_) on_launch_(std::move(launch_));
    else held_.push_back(std::move(launch_));
  }

  [[noreturn]] void fail_launch(const std::string& what) const {
    throw InputError(origin_ + ": launch " + std::to_string(launch_index_) + ": " + what);
  }

  std::string not_a_run() const {
    return origin_ + ": not a limiter run record (no \"kind\": \"limiter-run\"); make one with `limiter run`, "
                     "`limiter kernels` or `limiter import`";
  }

  void send_header() {
    json checked = header_;
    // Without a "launches" key run_from_json names what is missing, as the DOM reader does.
    if (saw_launches_key()) checked["launches"] = json::array();
    on_header_(run_from_json(checked, origin_));
    header_sent_ = true;
  }

  bool saw_launches_key() const { return in_launches_ || launch_index_ > 0 || top_key_ == "launches"; }

  // The run's other fields (device, command_line, ...) kept as JSON, however deep.
  bool open_captured(json container) {
    if (in_launch_) {  // an object or array under a launch field limiter does not read
      captured_stack_.push_back(nullptr);
      return true;
    }
    if (in_launches_) throw InputError(origin_ + ": launch " + std::to_string(launch_index_) + ": expected an object");
    json* slot = nullptr;
    if (captured_stack_.empty()) {
      slot = &(header_[top_key_] = std::move(container));
    } else if (json* parent = captured_stack_.back()) {
      if (parent->is_array()) {
        parent->push_back(std::move(container));
        slot = &parent->back();
      } else {
        slot = &((*parent)[captured_key_] = std::move(container));
      }
    }
    captured_stack_.push_back(slot);
    return true;
  }

  void add_captured(json value) {
    if (captured_stack_.empty() || !captured_stack_.back()) return;
    json& parent = *captured_stack_.back();
    if (parent.is_array()) parent.push_back(std::move(value));
    else parent[captured_key_] = std::move(value);
  }

  void close_captured() {
    if (!captured_stack_.empty()) captured_stack_.pop_back();
  }

  std::string origin_;
  const RunHeaderSink& on_header_;
  const LaunchSink& on_launch_;
  int depth_ = 0;
  std::string top_key_;
  json header_ = json::object();
  std::vector<json*> captured_stack_;
  std::string captured_key_;
  bool header_sent_ = false;
  bool in_launches_ = false;
  bool in_launch_ = false;
  std::size_t launch_index_ = 0;
  KernelLaunch launch_;
  LaunchField field_ = LaunchField::ignored;
  std::string metric_;
  std::vector<double> dims_;
  bool has_sequence_ = false, has_name_ = false, has_grid_ = false, has_block_ = false, has_counters_ = false;
  std::vector<KernelLaunch> held_;
  detail::LaunchRecycler recycler_;
};

// PREFIX (what the line reader read before it gave up), then the rest of IN.
class PrefixedStreambuf final : public std::streambuf {
 public:
  PrefixedStreambuf(std::string prefix, std::streambuf& in) : prefix_(std::move(prefix)), in_(in) {
    setg(prefix_.data(), prefix_.data(), prefix_.data() + prefix_.size());
  }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    const std::streamsize got = in_.sgetn(chunk_, sizeof chunk_);
    if (got <= 0) return traits_type::eof();
    setg(chunk_, chunk_, chunk_ + got);
    return traits_type::to_int_type(*gptr());
  }

 private:
  std::string prefix_;
  std::streambuf& in_;
  char chunk_[1 << 16];
};

}  // namespace

void read_run_stream(std::istream& in, const std::string& origin, const RunHeaderSink& on_header,
                     const LaunchSink& on_launch, std::vector<KernelLaunch>* spare) {
  std::string prefix;
  if (detail::read_run_lines(*in.rdbuf(), origin, on_header, on_launch, spare, prefix)) return;
  // Not in the layout limiter writes: the SAX parser, on what was read and the rest.
  PrefixedStreambuf joined(std::move(prefix), *in.rdbuf());
  std::istream rest(&joined);
  RunSaxHandler handler(origin, on_header, on_launch, spare);
  nlohmann::json::sax_parse(rest, &handler);
  handler.finish();
}

void read_run_stream(const std::string& path, const RunHeaderSink& on_header, const LaunchSink& on_launch,
                     std::vector<KernelLaunch>* spare) {
  if (detail::is_gzip_file(path)) {  // run.json.gz: decompressed as it is read
    detail::GzipInputBuffer buffer(path);
    std::istream in(&buffer);
    read_run_stream(in, "'" + path + "'", on_header, on_launch, spare);
    return;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot open run file '" + path + "': check the path");
  read_run_stream(in, "'" + path + "'", on_header, on_launch, spare);
}

RunRecord read_run_header(const std::string& path) {
  struct HeaderRead {};  // stops the parse at the header: the launches are never read
  RunRecord header;
  try {
    read_run_stream(
        path,
        [&](const RunRecord& run) {
          header = run;
          throw HeaderRead{};
        },
        [](KernelLaunch&&) {});
  } catch (const HeaderRead&) {
  }
  return header;
}

RunRecord read_run_streamed(const std::string& path) {
  RunRecord run;
  std::vector<KernelLaunch> launches;
  read_run_stream(
      path, [&](const RunRecord& header) { run = header; },
      [&](KernelLaunch&& launch) { launches.push_back(std::move(launch)); });
  run.launches = std::move(launches);
  return run;
}

// Here, not in record_json.cpp: the writers (linked into liblimiter_inject.so) need no reader.
RunRecord read_run_file(const std::string& path) {
  // Streamed: a DOM of a large record costs several times the file's size.
  return read_run_streamed(path);
}

}  // namespace limiter
