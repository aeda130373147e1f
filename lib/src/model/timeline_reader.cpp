#include "model/timeline_reader.hpp"

#include <cstdint>
#include <cstring>

#include <simdjson.h>

namespace limiter::detail {
namespace {

namespace dom = simdjson::dom;

// Thrown where the text holds what the DOM reader must judge (timeline_json.cpp): caught below.
struct NotPlain {};

// Whether TEXT may hold the number -0: simdjson reads it as the integer 0, which the DOM reader
// refuses as signed. A '-' after ':', ',' or '[' and before '0' is taken as one (in a string
// too: such a timeline is only read the slow way).
bool may_hold_minus_zero(std::string_view text) {
  const char* const begin = text.data();
  const char* const end = begin + text.size();
  for (const char* at = begin; (at = static_cast<const char*>(std::memchr(at, '-', end - at))) != nullptr; ++at) {
    if (at + 1 == end || at[1] != '0') continue;
    const char* before = at;
    while (before != begin && (before[-1] == ' ' || before[-1] == '\n' || before[-1] == '\r' || before[-1] == '\t'))
      --before;
    if (before != begin && (before[-1] == ':' || before[-1] == ',' || before[-1] == '[')) return true;
  }
  return false;
}

// A whole number from 0 to MAX, as count_field takes it (json_fields.hpp); null: none.
std::optional<std::uint64_t> count(dom::element value, std::uint64_t max = UINT64_MAX) {
  std::uint64_t number = 0;
  switch (value.type()) {
    case dom::element_type::NULL_VALUE:
      return std::nullopt;
    case dom::element_type::UINT64:
      number = value.get_uint64().value_unsafe();
      break;
    case dom::element_type::INT64: {
      const std::int64_t signed_number = value.get_int64().value_unsafe();
      if (signed_number < 0) throw NotPlain{};
      number = static_cast<std::uint64_t>(signed_number);
      break;
    }
    default:
      throw NotPlain{};
  }
  if (number > max) throw NotPlain{};
  return number;
}

std::uint64_t required_count(dom::element value) {
  const auto number = count(value);
  if (!number) throw NotPlain{};  // null: "no ..."
  return *number;
}

std::optional<Dim3> dim3(dom::element value) {
  if (value.is_null()) return std::nullopt;
  dom::array parts;
  if (value.get_array().get(parts) || parts.size() != 3) throw NotPlain{};
  std::uint32_t xyz[3];
  std::size_t i = 0;
  for (dom::element part : parts) {
    const auto number = count(part, UINT32_MAX);
    if (!number) throw NotPlain{};
    xyz[i++] = static_cast<std::uint32_t>(*number);
  }
  return Dim3{xyz[0], xyz[1], xyz[2]};
}

// The event at IN, or nothing for a kind this version does not know; fields in file order, so
// that a field given twice takes its last value, as the DOM reader's map does.
std::optional<TimelineEvent> event_from(dom::element in) {
  dom::object fields;
  if (in.get_object().get(fields)) throw NotPlain{};
  TimelineEvent e;
  std::optional<ActivityKind> kind;
  bool has_kind = false, has_start = false, has_end = false;
  for (const dom::key_value_pair field : fields) {
    const std::string_view key = field.key;
    const dom::element value = field.value;
    if (key == "kind") {
      std::string_view name;
      if (value.get_string().get(name)) throw NotPlain{};
      kind = activity_kind_from_string(name);
      has_kind = true;
    } else if (key == "start_ns") {
      e.start_ns = required_count(value);
      has_start = true;
    } else if (key == "end_ns") {
      e.end_ns = required_count(value);
      has_end = true;
    } else if (key == "stream_id") {
      e.stream_id = count(value);
    } else if (key == "context_id") {
      e.context_id = count(value);
    } else if (key == "device") {
      const auto device = count(value, INT32_MAX);
      e.device = device ? std::optional<int>(static_cast<int>(*device)) : std::nullopt;
    } else if (key == "correlation_id") {
      e.correlation_id = static_cast<std::uint32_t>(count(value, UINT32_MAX).value_or(0));
    } else if (key == "name") {
      std::string_view name;
      if (value.is_null())
        e.name.clear();
      else if (value.get_string().get(name))
        throw NotPlain{};
      else
        e.name.assign(name);
    } else if (key == "bytes") {
      e.bytes = count(value);
    } else if (key == "pageable") {
      bool pageable = false;
      if (value.is_null())
        e.pageable.reset();
      else if (value.get_bool().get(pageable))
        throw NotPlain{};
      else
        e.pageable = pageable;
    } else if (key == "thread_id") {
      const auto thread = count(value, UINT32_MAX);
      e.thread_id = thread ? std::optional<std::uint32_t>(static_cast<std::uint32_t>(*thread)) : std::nullopt;
    } else if (key == "launch_sequence") {
      e.launch_sequence = count(value);
    } else if (key == "grid") {
      e.grid = dim3(value);
    } else if (key == "block") {
      e.block = dim3(value);
    }  // any other field: ignored, as the DOM reader ignores it
  }
  if (!has_kind) throw NotPlain{};
  if (!kind) return std::nullopt;  // the DOM reader checks no other field of such an event
  if (!has_start || !has_end || e.end_ns < e.start_ns) throw NotPlain{};
  e.kind = *kind;
  return e;
}

void read_events(dom::element in, std::vector<TimelineEvent>& out) {
  dom::array events;
  if (in.get_array().get(events)) throw NotPlain{};
  out.clear();  // "events" given twice: the last
  out.reserve(events.size());
  for (const dom::element event : events)
    if (auto e = event_from(event)) out.push_back(std::move(*e));
}

}  // namespace

std::optional<Timeline> read_timeline_fast(std::string_view text) {
  if (may_hold_minus_zero(text)) return std::nullopt;
  dom::parser parser;
  dom::element root;
  if (parser.parse(text.data(), text.size(), /*realloc_if_needed=*/false).get(root)) return std::nullopt;
  dom::object fields;
  if (root.get_object().get(fields)) return std::nullopt;
  Timeline timeline;
  try {
    for (const dom::key_value_pair field : fields) {
      const std::string_view key = field.key;
      if (key == "start_ns")
        timeline.start_ns = count(field.value).value_or(0);
      else if (key == "end_ns")
        timeline.end_ns = count(field.value).value_or(0);
      else if (key == "dropped_records")
        timeline.dropped_records = count(field.value).value_or(0);
      else if (key == "nvtx_ranges_dropped")
        timeline.nvtx_ranges_dropped = count(field.value).value_or(0);
      else if (key == "nvtx_ranges_unclosed")
        timeline.nvtx_ranges_unclosed = count(field.value).value_or(0);
      else if (key == "events")
        read_events(field.value, timeline.events);
    }
  } catch (const NotPlain&) {
    return std::nullopt;
  }
  normalize_timeline(timeline);
  return timeline;
}

namespace od = simdjson::ondemand;

// VALUE's text, whole, unchecked: the DOM reader parses it again.
simdjson::simdjson_result<std::string_view> raw_text(od::value value) {
  od::json_type type;
  if (const auto error = value.type().get(type)) return error;
  if (type == od::json_type::object) {
    od::object object;
    if (const auto error = value.get_object().get(object)) return error;
    return object.raw_json();
  }
  if (type == od::json_type::array) {
    od::array array;
    if (const auto error = value.get_array().get(array)) return error;
    return array.raw_json();
  }
  return value.raw_json_token();
}

std::optional<std::string> timeline_window_text(std::string_view text) {
  od::parser parser;
  od::document document;
  if (parser.iterate(text.data(), text.size(), text.size() + simdjson::SIMDJSON_PADDING).get(document))
    return std::nullopt;
  od::object fields;
  if (document.get_object().get(fields)) return std::nullopt;
  std::string window = "{";
  for (auto field_result : fields) {
    od::field field;
    std::string_view key, value;
    if (std::move(field_result).get(field) || field.unescaped_key().get(key)) return std::nullopt;
    if (key.find_first_of("\"\\") != std::string_view::npos) return std::nullopt;  // written back as it is below
    if (key == "events") continue;  // skipped by its brackets, never parsed
    if (raw_text(field.value()).get(value)) return std::nullopt;
    window += (window.size() > 1 ? ",\"" : "\"");
    window.append(key).append("\":").append(value);
  }
  return window + "}";
}

}  // namespace limiter::detail
