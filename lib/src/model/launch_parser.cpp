#include "model/launch_parser.hpp"

#include <optional>

#include "limiter/error.hpp"
#include "model/launch_fields.hpp"

namespace limiter::detail {

namespace od = simdjson::ondemand;

void LaunchRecycler::renew(KernelLaunch& launch) {
  launch = KernelLaunch{};
  if (spare_ && !spare_->empty()) {
    KernelLaunch& used = spare_->back();
    launch.name = std::move(used.name);
    launch.mangled_name = std::move(used.mangled_name);
    launch.name.clear();
    launch.mangled_name.clear();
    launch.counters = std::move(used.counters);
    spare_->pop_back();
  }
  next_ = launch.counters.begin();
}

void LaunchRecycler::add_counter(KernelLaunch& launch, std::string_view metric, double value) {
  Counters& counters = launch.counters;
  if (next_ != counters.end()) {
    if (next_->first == metric) {  // the spare's metric at this place: only the value changes
      next_->second = value;
      ++next_;
      return;
    }
    drop_rest(counters);  // out of step: the spare's other counters become free nodes
  }
  if (nodes_.empty()) {
    counters.emplace_hint(counters.end(), metric, value)->second = value;  // a repeated metric: the last counts
    return;
  }
  auto node = std::move(nodes_.back());
  nodes_.pop_back();
  node.key().assign(metric);
  node.mapped() = value;
  counters.insert(counters.end(), std::move(node))->second = value;
}

void LaunchRecycler::finish(KernelLaunch& launch) { drop_rest(launch.counters); }

void LaunchRecycler::drop_rest(Counters& counters) {
  while (next_ != counters.end()) nodes_.push_back(counters.extract(next_++));
}

void LaunchParser::parse(std::string_view text, std::size_t index, std::size_t line, KernelLaunch& launch) {
  index_ = index;
  line_ = line;
  recycler_.renew(launch);
  od::document document;
  check(parser_.iterate(text.data(), text.size(), text.size() + simdjson::SIMDJSON_PADDING).get(document));
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
      case LaunchField::sequence:
        launch.sequence = number_of(value, "\"sequence\" must be a number", false)->as_u64;
        has_sequence = true;
        break;
      case LaunchField::name:
        launch.name.assign(string_of(value, "\"name\" must be a string"));
        has_name = true;
        break;
      case LaunchField::mangled_name:
        launch.mangled_name.assign(string_of(value, "\"mangled_name\" must be a string"));
        break;
      case LaunchField::grid:
        launch.grid = dim3_of(value, "grid");
        has_grid = true;
        break;
      case LaunchField::block:
        launch.block = dim3_of(value, "block");
        has_block = true;
        break;
      case LaunchField::registers:
        if (auto n = number_of(value, "\"registers_per_thread\" must be a number or null"))
          launch.registers_per_thread = static_cast<int>(n->as_double);
        break;
      case LaunchField::static_shared:
        set_u64(launch.static_shared_bytes, value, "static_shared_bytes");
        break;
      case LaunchField::dynamic_shared:
        set_u64(launch.dynamic_shared_bytes, value, "dynamic_shared_bytes");
        break;
      case LaunchField::local_bytes:
        set_u64(launch.local_bytes_per_thread, value, "local_bytes_per_thread");
        break;
      case LaunchField::stream_id:
        set_u64(launch.stream_id, value, "stream_id");
        break;
      case LaunchField::context_id:
        set_u64(launch.context_id, value, "context_id");
        break;
      case LaunchField::graph_id:
        set_u64(launch.graph_id, value, "graph_id");
        break;
      case LaunchField::graph_node:
        set_u64(launch.graph_node, value, "graph_node");
        break;
      case LaunchField::user_range_ns:
        if (auto n = number_of(value, "\"user_range_ns\" must be a number or null"))
          launch.user_range_ns = n->as_double;
        break;
      case LaunchField::kernel_active_ns:
        if (auto n = number_of(value, "\"kernel_active_ns\" must be a number or null"))
          launch.kernel_active_ns = n->as_double;
        break;
      case LaunchField::device:
        if (auto n = number_of(value, "\"device\" must be a number or null"))
          launch.device = static_cast<int>(n->as_double);
        break;
      case LaunchField::nvtx:
        read_nvtx(value, launch);
        break;
      case LaunchField::counters:
        read_counters(value, launch);
        has_counters = true;
        break;
      case LaunchField::sampled:
        read_sampled(value, launch);
        break;
      case LaunchField::start_ns:
        set_u64(launch.start_ns, value, "start_ns");
        break;  // the timeline's clock
      case LaunchField::end_ns:
        set_u64(launch.end_ns, value, "end_ns");
        break;
      case LaunchField::duration_source: {
        od::json_type type;
        check(value.type().get(type));
        if (type == od::json_type::null)
          check(value.is_null().error());
        else
          launch.duration_source.emplace(string_of(value, "\"duration_source\" must be a string or null"));
        break;
      }
      case LaunchField::ignored:
        break;  // skipped by the next step of the iteration
    }
  }
  recycler_.finish(launch);
  for (const auto& [present, name] : {std::pair{has_sequence, "sequence"},
                                      {has_name, "name"},
                                      {has_grid, "grid"},
                                      {has_block, "block"},
                                      {has_counters, "counters"}}) {
    if (!present) fail(std::string("no \"") + name + "\"");
  }
}

// A number; null (empty) where NULLABLE, else MESSAGE.
std::optional<LaunchParser::Number> LaunchParser::number_of(od::value& value, const char* message, bool nullable) {
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
    case od::number_type::signed_integer: {
      const std::int64_t i = number.get_int64();
      return Number{static_cast<double>(i),
                    i >= 0 ? static_cast<std::uint64_t>(i) : u64_from_double(static_cast<double>(i))};
    }
    case od::number_type::unsigned_integer: {
      const std::uint64_t u = number.get_uint64();
      return Number{static_cast<double>(u), u};
    }
    default:
      return Number{number.get_double(), u64_from_double(number.get_double())};
  }
}

void LaunchParser::set_u64(std::optional<std::uint64_t>& out, od::value& value, const char* name) {
  if (auto n = number_of(value, (std::string("\"") + name + "\" must be a number or null").c_str())) out = n->as_u64;
}

std::string_view LaunchParser::string_of(od::value& value, const char* message) {
  od::json_type type;
  check(value.type().get(type));
  if (type != od::json_type::string) fail(message);
  std::string_view text;
  check(value.get_string().get(text));
  return text;
}

Dim3 LaunchParser::dim3_of(od::value& value, const char* name) {
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
void LaunchParser::read_nvtx(od::value& value, KernelLaunch& launch) {
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

void LaunchParser::read_counters(od::value& value, KernelLaunch& launch) {
  // null: a counter the hardware could not provide.
  read_numbers(
      value, "\"counters\" must be an object", true,
      [](std::string_view metric) { return "counter \"" + std::string(metric) + "\" is not a number"; },
      [&](std::string_view metric, double d) { recycler_.add_counter(launch, metric, d); });
}

void LaunchParser::read_sampled(od::value& value, KernelLaunch& launch) {
  SampleSupport support;
  read_numbers(
      value, "\"sampled\" must be an object", false,
      [](std::string_view key) { return "\"sampled\": \"" + std::string(key) + "\" is not a number"; },
      [&](std::string_view key, double d) { set_sample_support(support, key, d); });
  launch.sampled = support;
}

// An object whose values are numbers (or null, skipped, where NULL_OK), each key and value
// handed to ON_NUMBER; NOT_A_NUMBER words the error for a key.
template <class NotANumber, class OnNumber>
void LaunchParser::read_numbers(od::value& value, const char* not_an_object, bool null_ok, NotANumber not_a_number,
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
    double d = 0;
    if (!number.get_double().get(d)) {  // the common case first: a value simdjson reads as a double
      on_number(key, d);
      continue;
    }
    od::json_type number_type;  // else the getter left the value to be read otherwise
    check(number.type().get(number_type));
    if (null_ok && number_type == od::json_type::null) {
      check(number.is_null().error());
      continue;
    }
    if (number_type != od::json_type::number) fail(not_a_number(key));
    corrupt();
  }
}

void LaunchParser::corrupt() const {
  throw InputError(origin_ + " is not valid JSON (truncated or corrupt?): launch " + std::to_string(index_) +
                   " is cut short or malformed (line " + std::to_string(line_) + ")");
}

void LaunchParser::fail(const std::string& what) const {
  throw InputError(origin_ + ": launch " + std::to_string(index_) + ": " + what + " (line " + std::to_string(line_) +
                   ")");
}

}  // namespace limiter::detail
