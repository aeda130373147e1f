// A launch per line, parsed with simdjson's On-Demand API (see record_lines.hpp). The header —
// everything before `"launches": [` — is small and is checked by run_from_json as the other
// readers check it; what follows the launches is parsed only to find truncation.
#include "model/record_lines.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

#include <nlohmann/json.hpp>
#include <simdjson.h>

#include "limiter/error.hpp"
#include "limiter/record_json.hpp"
#include "model/launch_fields.hpp"

namespace limiter::detail {

void LaunchRecycler::renew(KernelLaunch& launch) {
  if (!spare_ || spare_->empty()) {
    launch = KernelLaunch{};
    return;
  }
  KernelLaunch used = std::move(spare_->back());
  spare_->pop_back();
  while (!used.counters.empty()) nodes_.push_back(used.counters.extract(used.counters.begin()));
  launch = KernelLaunch{};
  launch.name = std::move(used.name);
  launch.mangled_name = std::move(used.mangled_name);
  launch.name.clear();
  launch.mangled_name.clear();
}

void LaunchRecycler::add_counter(KernelLaunch& launch, std::string_view metric, double value) {
  if (nodes_.empty()) {
    launch.counters.emplace_hint(launch.counters.end(), metric, value);
    return;
  }
  auto node = std::move(nodes_.back());
  nodes_.pop_back();
  node.key().assign(metric);
  node.mapped() = value;
  launch.counters.insert(launch.counters.end(), std::move(node));
}

namespace {

namespace od = simdjson::ondemand;

constexpr std::size_t kChunk = 4 << 20;             // read from the stream at a time
constexpr std::size_t kLongestHeader = 64 << 20;    // past this without `"launches": [`: not our layout

std::string_view trimmed(std::string_view line) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!line.empty() && space(line.front())) line.remove_prefix(1);
  while (!line.empty() && space(line.back())) line.remove_suffix(1);
  return line;
}

// The stream as lines, each with simdjson's padding readable after it.
class LineSource {
 public:
  explicit LineSource(std::streambuf& in) : in_(in) {}

  // The next line (without its newline); empty optional at the end of the stream.
  std::optional<std::string_view> next() {
    for (;;) {
      const char* start = buffer_.data() + begin_;
      if (const void* newline = std::memchr(start, '\n', end_ - begin_)) {
        const std::size_t length = static_cast<const char*>(newline) - start;
        begin_ += length + 1;
        ++line_number_;
        return std::string_view(start, length);
      }
      if (eof_) {
        if (begin_ == end_) return std::nullopt;
        std::string_view last(start, end_ - begin_);
        begin_ = end_;
        ++line_number_;
        return last;
      }
      refill();
    }
  }
  std::size_t line_number() const { return line_number_; }
  // Everything read from the stream so far, from its start (before any line was given out).
  std::string all_read() const { return std::string(buffer_.data(), end_); }
  // What is left of the stream: the unread part of the buffer and the rest.
  std::string rest() {
    std::string text(buffer_.data() + begin_, end_ - begin_);
    char chunk[1 << 16];
    for (std::streamsize got; (got = in_.sgetn(chunk, sizeof chunk)) > 0;) text.append(chunk, static_cast<std::size_t>(got));
    return text;
  }
  // From here on, lines given out may be dropped from the buffer (all_read() no longer holds all).
  void forget_what_was_read() { keep_all_ = false; }

 private:
  void refill() {
    if (!keep_all_ && begin_ >= kChunk) {  // drop the lines given out (they have been parsed)
      std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    }
    if (buffer_.size() < end_ + kChunk + simdjson::SIMDJSON_PADDING) buffer_.resize(end_ + kChunk + simdjson::SIMDJSON_PADDING);
    const std::streamsize got = in_.sgetn(buffer_.data() + end_, static_cast<std::streamsize>(kChunk));
    if (got <= 0) eof_ = true;
    else end_ += static_cast<std::size_t>(got);
  }

  std::streambuf& in_;
  std::vector<char> buffer_ = std::vector<char>(kChunk + simdjson::SIMDJSON_PADDING);
  std::size_t begin_ = 0, end_ = 0, line_number_ = 0;
  bool eof_ = false, keep_all_ = true;
};

class LaunchParser {
 public:
  LaunchParser(const std::string& origin, std::vector<KernelLaunch>* spare) : origin_(origin), recycler_(spare) {}

  // LINE: one launch object; its buffer has simdjson's padding after it.
  void parse(std::string_view line, std::size_t index, KernelLaunch& launch) {
    index_ = index;
    recycler_.renew(launch);
    od::document document;
    check(parser_.iterate(line.data(), line.size(), line.size() + simdjson::SIMDJSON_PADDING).get(document));
    od::object object;
    if (document.get_object().get(object)) fail("expected an object");
    bool has_sequence = false, has_name = false, has_grid = false, has_block = false, has_counters = false;
    for (auto field_result : object) {
      od::field field;
      check(std::move(field_result).get(field));
      std::string_view key;
      check(field.unescaped_key().get(key));
      od::value value = field.value();
      switch (launch_field(key)) {
        case LaunchField::sequence: {
          const auto number = number_of(value, "\"sequence\" must be a number", false);
          launch.sequence = number->as_u64;
          has_sequence = true;
          break;
        }
        case LaunchField::name:
          launch.name.assign(string_of(value, "\"name\" must be a string"));
          has_name = true;
          break;
        case LaunchField::mangled_name:
          launch.mangled_name.assign(string_of(value, "\"mangled_name\" must be a string"));
          break;
        case LaunchField::grid: launch.grid = dim3_of(value, "grid"); has_grid = true; break;
        case LaunchField::block: launch.block = dim3_of(value, "block"); has_block = true; break;
        case LaunchField::registers:
          if (auto n = number_of(value, "\"registers_per_thread\" must be a number or null"))
            launch.registers_per_thread = static_cast<int>(n->as_double);
          break;
        case LaunchField::static_shared: set_u64(launch.static_shared_bytes, value, "static_shared_bytes"); break;
        case LaunchField::dynamic_shared: set_u64(launch.dynamic_shared_bytes, value, "dynamic_shared_bytes"); break;
        case LaunchField::local_bytes: set_u64(launch.local_bytes_per_thread, value, "local_bytes_per_thread"); break;
        case LaunchField::stream_id: set_u64(launch.stream_id, value, "stream_id"); break;
        case LaunchField::context_id: set_u64(launch.context_id, value, "context_id"); break;
        case LaunchField::graph_id: set_u64(launch.graph_id, value, "graph_id"); break;
        case LaunchField::graph_node: set_u64(launch.graph_node, value, "graph_node"); break;
        case LaunchField::user_range_ns:
          if (auto n = number_of(value, "\"user_range_ns\" must be a number or null")) launch.user_range_ns = n->as_double;
          break;
        case LaunchField::kernel_active_ns:
          if (auto n = number_of(value, "\"kernel_active_ns\" must be a number or null")) launch.kernel_active_ns = n->as_double;
          break;
        case LaunchField::device:
          if (auto n = number_of(value, "\"device\" must be a number or null")) launch.device = static_cast<int>(n->as_double);
          break;
        case LaunchField::nvtx: read_nvtx(value, launch); break;
        case LaunchField::counters: read_counters(value, launch); has_counters = true; break;
        case LaunchField::sampled: read_sampled(value, launch); break;
        case LaunchField::ignored: break;  // skipped by the next step of the iteration
      }
    }
    for (const auto& [present, name] : {std::pair{has_sequence, "sequence"}, {has_name, "name"}, {has_grid, "grid"},
                                        {has_block, "block"}, {has_counters, "counters"}}) {
      if (!present) fail(std::string("no \"") + name + "\"");
    }
  }

 private:
  struct Number {
    double as_double;
    std::uint64_t as_u64;  // as the SAX reader converts it (launch_fields.hpp)
  };

  // A number; null (empty) where NULLABLE, else MESSAGE.
  std::optional<Number> number_of(od::value& value, const char* message, bool nullable = true) {
    od::json_type type;
    check(value.type().get(type));
    if (type == od::json_type::null && nullable) {
      check(value.is_null().error());
      return std::nullopt;
    }
    if (type != od::json_type::number) fail(message);
    od::number number;
    if (value.get_number().get(number)) {  // beyond 64 bits: as a double, as nlohmann-json reads it
      double d = 0;
      check(value.get_double().get(d));
      return Number{d, u64_from_double(d)};
    }
    switch (number.get_number_type()) {
      case simdjson::ondemand::number_type::signed_integer: {
        const std::int64_t i = number.get_int64();
        return Number{static_cast<double>(i), i >= 0 ? static_cast<std::uint64_t>(i) : u64_from_double(static_cast<double>(i))};
      }
      case simdjson::ondemand::number_type::unsigned_integer: {
        const std::uint64_t u = number.get_uint64();
        return Number{static_cast<double>(u), u};
      }
      default: return Number{number.get_double(), u64_from_double(number.get_double())};
    }
  }

  void set_u64(std::optional<std::uint64_t>& out, od::value& value, const char* name) {
    if (auto n = number_of(value, (std::string("\"") + name + "\" must be a number or null").c_str())) out = n->as_u64;
  }

  std::string_view string_of(od::value& value, const char* message) {
    od::json_type type;
    check(value.type().get(type));
    if (type != od::json_type::string) fail(message);
    std::string_view text;
    check(value.get_string().get(text));
    return text;
  }

  Dim3 dim3_of(od::value& value, const char* name) {
    od::json_type type;
    check(value.type().get(type));
    if (type != od::json_type::array) fail("expected [x, y, z]");
    od::array array;
    check(value.get_array().get(array));
    double dims[3] = {0, 0, 0};
    std::size_t count = 0;
    for (auto element_result : array) {
      od::value element;
      check(std::move(element_result).get(element));
      od::json_type element_type;
      check(element.type().get(element_type));
      if (element_type != od::json_type::number) fail("expected [x, y, z] of numbers");
      double d = 0;
      check(element.get_double().get(d));
      if (count < 3) dims[count] = d;
      ++count;
    }
    if (count != 3) fail("expected [x, y, z] for \"" + std::string(name) + "\"");
    return Dim3{static_cast<std::uint32_t>(dims[0]), static_cast<std::uint32_t>(dims[1]),
                static_cast<std::uint32_t>(dims[2])};
  }

  // The launch's NVTX range paths: an array of strings; null as none (as the DOM reader).
  void read_nvtx(od::value& value, KernelLaunch& launch) {
    launch.nvtx.clear();
    od::json_type type;
    check(value.type().get(type));
    if (type == od::json_type::null) {
      check(value.is_null().error());
      return;
    }
    if (type != od::json_type::array) fail("\"nvtx\" must be an array of strings");
    od::array array;
    check(value.get_array().get(array));
    for (auto element_result : array) {
      od::value element;
      check(std::move(element_result).get(element));
      launch.nvtx.emplace_back(string_of(element, "\"nvtx\" must be an array of strings"));
    }
  }

  void read_counters(od::value& value, KernelLaunch& launch) {
    // null: a counter the hardware could not provide.
    read_numbers(value, "\"counters\" must be an object", true,
                 [](std::string_view metric) { return "counter \"" + std::string(metric) + "\" is not a number"; },
                 [&](std::string_view metric, double d) { recycler_.add_counter(launch, metric, d); });
  }

  void read_sampled(od::value& value, KernelLaunch& launch) {
    SampleSupport support;
    read_numbers(value, "\"sampled\" must be an object", false,
                 [](std::string_view key) { return "\"sampled\": \"" + std::string(key) + "\" is not a number"; },
                 [&](std::string_view key, double d) { set_sample_support(support, key, d); });
    launch.sampled = support;
  }

  // An object whose values are numbers (or null, skipped, where NULL_OK), each key and value
  // handed to ON_NUMBER; NOT_A_NUMBER words the error for a key.
  template <class NotANumber, class OnNumber>
  void read_numbers(od::value& value, const char* not_an_object, bool null_ok, NotANumber not_a_number,
                    OnNumber on_number) {
    od::json_type type;
    check(value.type().get(type));
    if (type != od::json_type::object) fail(not_an_object);
    od::object object;
    check(value.get_object().get(object));
    for (auto field_result : object) {
      od::field field;
      check(std::move(field_result).get(field));
      std::string_view key;
      check(field.unescaped_key().get(key));
      od::value number = field.value();
      od::json_type number_type;
      check(number.type().get(number_type));
      if (null_ok && number_type == od::json_type::null) {
        check(number.is_null().error());
        continue;
      }
      if (number_type != od::json_type::number) fail(not_a_number(key));
      double d = 0;
      check(number.get_double().get(d));
      on_number(key, d);
    }
  }

  void check(simdjson::error_code error) const {
    if (error) corrupt();
  }
  [[noreturn]] void corrupt() const {
    throw InputError(origin_ + " is not valid JSON (truncated or corrupt?): launch " + std::to_string(index_) +
                     " is cut short or malformed");
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(origin_ + ": launch " + std::to_string(index_) + ": " + what);
  }

  const std::string& origin_;
  LaunchRecycler recycler_;
  od::parser parser_;
  std::size_t index_ = 0;
};

// The header's text with an empty launch array closed after it, checked as a run's fields.
std::optional<RunRecord> header_of(const std::string& text, const std::string& origin) {
  const nlohmann::json json = nlohmann::json::parse(text + "]}", nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object() || !json.contains("device")) return std::nullopt;
  return run_from_json(json, origin);
}

}  // namespace

bool read_run_lines(std::streambuf& in, const std::string& origin, const RunHeaderSink& on_header,
                    const LaunchSink& on_launch, std::vector<KernelLaunch>* spare, std::string& prefix) {
  LineSource lines(in);
  std::string header_text;
  for (;;) {  // the run's fields, up to `"launches": [` alone on its line
    const auto line = lines.next();
    if (!line || header_text.size() > kLongestHeader) {
      prefix = lines.all_read();
      return false;
    }
    if (trimmed(*line) == "\"launches\": [") {
      header_text.append(*line);
      break;
    }
    header_text.append(*line).push_back('\n');
  }
  std::optional<RunRecord> header = header_of(header_text, origin);
  auto first = lines.next();
  const auto one_per_line = [](std::string_view line) {
    line = trimmed(line);
    if (!line.empty() && line.back() == ',') line.remove_suffix(1);
    return line.size() >= 2 && line.front() == '{' && line.back() == '}';
  };
  if (!header || !first || !one_per_line(*first)) {
    prefix = lines.all_read();
    return false;
  }
  lines.forget_what_was_read();
  on_header(*header);

  LaunchParser parser(origin, spare);
  std::size_t index = 0;
  bool more = true;  // the last launch ended with a comma
  std::optional<std::string_view> line = first;
  for (; line; line = lines.next()) {
    std::string_view launch = trimmed(*line);
    if (launch.empty()) continue;
    if (launch.front() != '{') break;
    if (!more) throw InputError(origin + " is not valid JSON (truncated or corrupt?): line " +
                                std::to_string(lines.line_number()) + ": a launch after the last one");
    more = launch.back() == ',';
    if (more) launch.remove_suffix(1);
    if (launch.back() != '}')
      throw InputError(origin + " is not valid JSON (truncated or corrupt?): line " + std::to_string(lines.line_number()) +
                       ": a launch cut short, or not one launch per line as limiter writes records");
    KernelLaunch parsed;
    try {
      parser.parse(launch, index++, parsed);
    } catch (const InputError& e) {  // the line, where the launch can be found in an editor
      throw InputError(std::string(e.what()) + " (line " + std::to_string(lines.line_number()) + ")");
    }
    on_launch(std::move(parsed));
  }
  // After the launches: the array's end and the rest of the record, whose fields were read
  // from the header already (as the SAX reader ignores them there); checked as JSON only.
  std::string tail = line ? std::string(*line) + "\n" + lines.rest() : lines.rest();
  const auto rest = nlohmann::json::parse((more && index > 0 ? "{\"launches\":[1," : "{\"launches\":[") + tail,
                                          nullptr, /*allow_exceptions=*/false);
  if (rest.is_discarded())
    throw InputError(origin + " is not valid JSON (truncated or corrupt?): the record does not end after its " +
                     std::to_string(index) + " launches");
  return true;
}

}  // namespace limiter::detail
