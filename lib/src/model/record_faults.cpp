#include "model/record_faults.hpp"

#include <span>
#include <string_view>

namespace limiter::detail {
namespace {

using json = nlohmann::json;

// What a field must hold, as the readers (record_json.cpp) take it: nlohmann-json converts any
// number to any numeric type, so "number" is all a count or a size needs to be.
enum class Kind { string, number, boolean, object, array, strings, dim3, numbers };

struct Field {
  std::string_view name;
  Kind kind;
  bool required = false;
  bool nullable = false;
  std::span<const Field> members = {};  // of an object, or of each object of an array
};

constexpr Field kRankFields[] = {{"rank", Kind::number, true},
                                 {"world_size", Kind::number, true},
                                 {"local_rank", Kind::number, false, true},
                                 {"launcher", Kind::string}};
constexpr Field kSamplingFields[] = {{"mode", Kind::string},
                                     {"interval_ns", Kind::number, true},
                                     {"samples", Kind::number},
                                     {"samples_lost", Kind::number},
                                     {"attribution", Kind::string},
                                     {"metrics", Kind::strings},
                                     {"sm_side_counted", Kind::boolean},
                                     {"exact_phase", Kind::string}};
constexpr Field kDeviceFields[] = {{"name", Kind::string},
                                   {"arch", Kind::string},
                                   {"chip", Kind::string},
                                   {"sm_count", Kind::number},
                                   {"sm_clock_hz", Kind::number, false, true},
                                   {"memory_clock_hz", Kind::number, false, true},
                                   {"memory_bus_width_bits", Kind::number, false, true},
                                   {"l2_bytes", Kind::number, false, true},
                                   {"global_memory_bytes", Kind::number, false, true},
                                   {"uuid", Kind::string}};
constexpr Field kMissedFields[] = {
    {"reason", Kind::string, true}, {"launches", Kind::number, true}, {"fix", Kind::string}};
constexpr Field kKernelSeenFields[] = {{"name", Kind::string, true},
                                       {"grid", Kind::dim3, true},
                                       {"block", Kind::dim3, true},
                                       {"launches", Kind::number, true}};
constexpr Field kPhaseFields[] = {{"name", Kind::string, true},
                                  {"start_ns", Kind::number},
                                  {"end_ns", Kind::number},
                                  {"launches", Kind::number},
                                  {"ended_by", Kind::string}};
constexpr Field kRunFields[] = {{"schema_version", Kind::number},
                                {"tool_version", Kind::string},
                                {"source", Kind::string},
                                {"created_at", Kind::string},
                                {"command_line", Kind::strings},
                                {"host", Kind::string},
                                {"rank", Kind::object, false, true, kRankFields},
                                {"counter_model", Kind::string},
                                {"sampling", Kind::object, false, false, kSamplingFields},
                                {"device", Kind::object, true, false, kDeviceFields},
                                {"ended", Kind::string},
                                {"cache_control", Kind::string, false, true},
                                {"missed", Kind::array, false, false, kMissedFields},
                                {"launches_seen", Kind::number, false, true},
                                {"kernels_seen", Kind::array, false, false, kKernelSeenFields},
                                {"phases", Kind::array, false, false, kPhaseFields},
                                {"launches", Kind::array, true}};  // each launch: kLaunchFields, by the readers

constexpr Field kSampledFields[] = {{"launches", Kind::number, true},
                                    {"kernel_time_ns", Kind::number, true},
                                    {"samples", Kind::number, true},
                                    {"purity", Kind::number},
                                    {"overlap_share", Kind::number}};
constexpr Field kLaunchFields[] = {{"sequence", Kind::number, true},
                                   {"name", Kind::string, true},
                                   {"mangled_name", Kind::string},
                                   {"grid", Kind::dim3, true},
                                   {"block", Kind::dim3, true},
                                   {"registers_per_thread", Kind::number, false, true},
                                   {"static_shared_bytes", Kind::number, false, true},
                                   {"dynamic_shared_bytes", Kind::number, false, true},
                                   {"local_bytes_per_thread", Kind::number, false, true},
                                   {"stream_id", Kind::number, false, true},
                                   {"context_id", Kind::number, false, true},
                                   {"device", Kind::number, false, true},
                                   {"graph_id", Kind::number, false, true},
                                   {"graph_node", Kind::number, false, true},
                                   {"user_range_ns", Kind::number, false, true},
                                   {"kernel_active_ns", Kind::number, false, true},
                                   {"nvtx", Kind::strings, false, true},
                                   {"sampled", Kind::object, false, false, kSampledFields},
                                   {"counters", Kind::numbers, true}};

const char* kind_words(Kind kind) {
  switch (kind) {
    case Kind::string:
      return "a string";
    case Kind::number:
      return "a number";
    case Kind::boolean:
      return "true or false";
    case Kind::object:
      return "an object";
    case Kind::array:
      return "an array";
    case Kind::strings:
      return "an array of strings";
    case Kind::dim3:
      return "[x, y, z] (three numbers)";
    case Kind::numbers:
      return "an object of numbers (or null)";
  }
  return "";
}

// "a string (\"132\")": what was found, with a short value where it helps to find it.
std::string found_words(const json& value) {
  std::string words;
  switch (value.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::object:
      return "an object";
    case json::value_t::array:
      words = "an array";
      break;
    case json::value_t::string:
      words = "a string";
      break;
    case json::value_t::boolean:
      words = "a boolean";
      break;
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
      words = "a number";
      break;
    default:
      return value.type_name();
  }
  std::string shown = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (shown.size() > 40) shown = shown.substr(0, 37) + "...";
  return words + " (" + shown + ")";
}

bool holds(const json& value, Kind kind) {
  const auto all_of = [&](auto&& test) {
    for (const auto& element : value)
      if (!test(element)) return false;
    return true;
  };
  switch (kind) {
    case Kind::string:
      return value.is_string();
    case Kind::number:
      return value.is_number();
    case Kind::boolean:
      return value.is_boolean();
    case Kind::object:
      return value.is_object();
    case Kind::array:
      return value.is_array();
    case Kind::strings:
      return value.is_array() && all_of([](const json& e) { return e.is_string(); });
    case Kind::dim3:
      return value.is_array() && value.size() == 3 && all_of([](const json& e) { return e.is_number(); });
    case Kind::numbers:
      return value.is_object() && all_of([](const json& e) { return e.is_number() || e.is_null(); });
  }
  return false;
}

std::string fault_in(const json& object, std::span<const Field> fields, const std::string& prefix);

std::string fault_of(const json& value, const Field& field, const std::string& path) {
  if (value.is_null() && field.nullable) return "";
  if (!holds(value, field.kind))
    return "field \"" + path + "\" must be " + kind_words(field.kind) + (field.nullable ? " or null" : "") + ", not " +
           found_words(value);
  if (field.members.empty()) return "";
  if (field.kind == Kind::object) return fault_in(value, field.members, path + ".");
  for (std::size_t i = 0; i < value.size(); ++i) {  // an array of objects
    const std::string element = path + "[" + std::to_string(i) + "]";
    if (!value[i].is_object()) return "field \"" + element + "\" must be an object, not " + found_words(value[i]);
    if (auto fault = fault_in(value[i], field.members, element + "."); !fault.empty()) return fault;
  }
  return "";
}

std::string fault_in(const json& object, std::span<const Field> fields, const std::string& prefix) {
  for (const auto& field : fields) {
    const std::string path = prefix + std::string(field.name);
    const auto found = object.find(field.name);
    if (found == object.end()) {
      if (field.required) return "field \"" + path + "\" is missing";
      continue;
    }
    if (auto fault = fault_of(*found, field, path); !fault.empty()) return fault;
  }
  return "";
}

}  // namespace

std::string record_field_fault(const json& record) {
  if (!record.is_object()) return "a run record is one JSON object, not " + found_words(record);
  return fault_in(record, kRunFields, "");
}

std::string launch_field_fault(const json& launch) {
  if (!launch.is_object()) return "a launch is a JSON object, not " + found_words(launch);
  return fault_in(launch, kLaunchFields, "");
}

std::string json_error_words(const nlohmann::json::exception& error) {
  std::string_view words = error.what();
  if (words.starts_with("[json.exception.")) {
    const auto end = words.find("] ");
    if (end != std::string_view::npos) words.remove_prefix(end + 2);
  }
  std::string text(words);
  // "parse error at line 1, column 44: syntax error while parsing object key - unexpected end
  // of input" says the place and what went wrong: the parser's own state is left out.
  if (text.starts_with("parse error ")) text.erase(0, std::string_view("parse error ").size());
  if (const auto state = text.find("syntax error while parsing "); state != std::string::npos)
    if (const auto dash = text.find(" - ", state); dash != std::string::npos) text.erase(state, dash + 3 - state);
  return text;
}

}  // namespace limiter::detail
