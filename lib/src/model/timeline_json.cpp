// The activity timeline as JSON (timeline.hpp): the record's "timeline" field, written an event
// per line inside the record's line layout, and the partial file's chunks of events.
#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <ostream>
#include <tuple>
#include <utility>

#include "limiter/error.hpp"
#include "limiter/json_text.hpp"
#include "limiter/record_json.hpp"
#include "model/json_fields.hpp"
#include "model/record_faults.hpp"
#include "model/timeline_text.hpp"

namespace limiter {

using ordered_json = nlohmann::ordered_json;
using json = nlohmann::json;

namespace {

constexpr std::array<std::pair<ActivityKind, std::string_view>, 6> kKindNames = {{
    {ActivityKind::kernel, "kernel"},
    {ActivityKind::memcpy, "memcpy"},
    {ActivityKind::memset, "memset"},
    {ActivityKind::synchronization, "synchronization"},
    {ActivityKind::api_call, "api_call"},
    {ActivityKind::nvtx_range, "nvtx_range"},
}};

}  // namespace

std::string_view to_string(ActivityKind kind) {
  for (const auto& [k, name] : kKindNames)
    if (k == kind) return name;
  return "kernel";
}

std::optional<ActivityKind> activity_kind_from_string(std::string_view text) {
  for (const auto& [k, name] : kKindNames)
    if (name == text) return k;
  return std::nullopt;
}

namespace {

bool by_start(const TimelineEvent& a, const TimelineEvent& b) {
  return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns < b.end_ns;
}

// The window widened to cover EVENTS (sorted), as normalize_timeline sets it.
std::pair<std::uint64_t, std::uint64_t> covering_window(const Timeline& timeline) {
  if (timeline.events.empty()) return {timeline.start_ns, timeline.end_ns};
  std::uint64_t first = timeline.events.front().start_ns, last = 0;
  for (const auto& e : timeline.events) last = std::max(last, std::max(e.start_ns, e.end_ns));
  const bool unset = timeline.start_ns == 0 && timeline.end_ns == 0;
  return {unset ? first : std::min(timeline.start_ns, first), std::max(timeline.end_ns, last)};
}

}  // namespace

void normalize_timeline(Timeline& timeline) {
  // Most timelines come sorted (the collector's are): checking is cheaper than sorting 1M events.
  if (!std::is_sorted(timeline.events.begin(), timeline.events.end(), by_start))
    std::stable_sort(timeline.events.begin(), timeline.events.end(), by_start);
  std::tie(timeline.start_ns, timeline.end_ns) = covering_window(timeline);
}

bool is_normalized(const Timeline& timeline) {
  return std::is_sorted(timeline.events.begin(), timeline.events.end(), by_start) &&
         covering_window(timeline) == std::pair{timeline.start_ns, timeline.end_ns};
}

ordered_json timeline_event_json(const TimelineEvent& e) {
  ordered_json out;
  out["kind"] = to_string(e.kind);
  out["start_ns"] = e.start_ns;
  out["end_ns"] = e.end_ns;
  detail::put_if_set(out, "stream_id", e.stream_id);
  detail::put_if_set(out, "context_id", e.context_id);
  detail::put_if_set(out, "device", e.device);
  if (e.correlation_id != 0) out["correlation_id"] = e.correlation_id;  // 0: none, left out
  out["name"] = e.name;
  detail::put_if_set(out, "bytes", e.bytes);
  detail::put_if_set(out, "pageable", e.pageable);
  detail::put_if_set(out, "thread_id", e.thread_id);
  detail::put_if_set(out, "launch_sequence", e.launch_sequence);
  if (e.grid) out["grid"] = detail::dim3_json(*e.grid);  // [x, y, z], as a launch's
  if (e.block) out["block"] = detail::dim3_json(*e.block);
  return out;
}

namespace {

using detail::count_field;

// [x, y, z] of whole numbers at KEY; empty when absent or null.
std::optional<Dim3> dim3_field(const json& in, const char* key) {
  const auto it = in.find(key);
  if (it == in.end() || it->is_null()) return std::nullopt;
  const auto fault = [&] {
    return InputError(std::string("\"") + key + "\" must be [x, y, z] of whole numbers from 0 to " +
                      std::to_string(UINT32_MAX) + ", not " + it->dump());
  };
  if (!it->is_array() || it->size() != 3) throw fault();
  Dim3 d;
  std::uint32_t* parts[] = {&d.x, &d.y, &d.z};
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& part = (*it)[i];
    if (!part.is_number_unsigned() || part.get<std::uint64_t>() > UINT32_MAX) throw fault();
    *parts[i] = static_cast<std::uint32_t>(part.get<std::uint64_t>());
  }
  return d;
}

// The event, or nothing for a kind this version does not know (a newer collector's: skipped,
// so an older limiter still reads the rest).
std::optional<TimelineEvent> event_fields_from(const json& in) {
  if (!in.is_object()) throw InputError("expected an object");
  const auto kind = in.find("kind");
  if (kind == in.end() || !kind->is_string()) throw InputError("no \"kind\" (a string such as \"kernel\")");
  TimelineEvent e;
  const auto known = activity_kind_from_string(kind->get<std::string>());
  if (!known) return std::nullopt;
  e.kind = *known;
  e.start_ns = *count_field(in, "start_ns", true);
  e.end_ns = *count_field(in, "end_ns", true);
  if (e.end_ns < e.start_ns)
    throw InputError("ends (" + std::to_string(e.end_ns) + " ns) before it starts (" + std::to_string(e.start_ns) +
                     " ns)");
  e.stream_id = count_field(in, "stream_id", false);
  e.context_id = count_field(in, "context_id", false);
  if (const auto device = count_field(in, "device", false, INT32_MAX)) e.device = static_cast<int>(*device);
  e.correlation_id = static_cast<std::uint32_t>(count_field(in, "correlation_id", false, UINT32_MAX).value_or(0));
  if (const auto name = in.find("name"); name != in.end() && !name->is_null()) {
    if (!name->is_string()) throw InputError("\"name\" must be a string");
    e.name = name->get<std::string>();
  }
  e.bytes = count_field(in, "bytes", false);
  if (const auto pageable = in.find("pageable"); pageable != in.end() && !pageable->is_null()) {
    if (!pageable->is_boolean()) throw InputError("\"pageable\" must be true or false");
    e.pageable = pageable->get<bool>();
  }
  if (const auto thread = count_field(in, "thread_id", false, UINT32_MAX))
    e.thread_id = static_cast<std::uint32_t>(*thread);
  e.launch_sequence = count_field(in, "launch_sequence", false);
  e.grid = dim3_field(in, "grid");
  e.block = dim3_field(in, "block");
  return e;
}

// EVENTS (a JSON array) appended to OUT, each error named by its index.
void append_events(const json& events, std::vector<TimelineEvent>& out, const char* what) {
  if (!events.is_array()) throw InputError(std::string("\"") + what + "\" must be an array of events");
  out.reserve(out.size() + events.size());
  std::size_t index = 0;
  for (const auto& event : events) {
    try {
      if (auto e = event_fields_from(event)) out.push_back(std::move(*e));
    } catch (const json::exception& error) {
      throw InputError("timeline event " + std::to_string(index) + ": " + detail::json_error_words(error));
    } catch (const InputError& error) {
      throw InputError("timeline event " + std::to_string(index) + ": " + error.what());
    }
    ++index;
  }
}

}  // namespace

TimelineEvent timeline_event_from(const json& in) {
  std::vector<TimelineEvent> one;
  append_events(json::array({in}), one, "events");
  if (one.empty()) throw InputError("timeline event 0: unknown \"kind\"");
  return one.front();
}

ordered_json timeline_window_json(const Timeline& timeline) {
  ordered_json out = {
      {"start_ns", timeline.start_ns}, {"end_ns", timeline.end_ns}, {"dropped_records", timeline.dropped_records}};
  if (timeline.nvtx_ranges_dropped) out["nvtx_ranges_dropped"] = timeline.nvtx_ranges_dropped;
  if (timeline.nvtx_ranges_unclosed) out["nvtx_ranges_unclosed"] = timeline.nvtx_ranges_unclosed;
  return out;
}

ordered_json timeline_json(const Timeline& timeline) {
  ordered_json out = timeline_window_json(timeline);
  ordered_json events = ordered_json::array();
  for (const auto& e : timeline.events) events.push_back(timeline_event_json(e));
  out["events"] = std::move(events);
  return out;
}

void apply_timeline_window(const json& in, Timeline& timeline) {
  if (!in.is_object()) throw InputError("\"timeline\" must be an object");
  try {
    timeline.start_ns = count_field(in, "start_ns", false).value_or(0);
    timeline.end_ns = count_field(in, "end_ns", false).value_or(0);
    timeline.dropped_records = count_field(in, "dropped_records", false).value_or(0);
    timeline.nvtx_ranges_dropped = count_field(in, "nvtx_ranges_dropped", false).value_or(0);
    timeline.nvtx_ranges_unclosed = count_field(in, "nvtx_ranges_unclosed", false).value_or(0);
  } catch (const InputError& error) {
    throw InputError(std::string("\"timeline\": ") + error.what());
  }
}

Timeline timeline_from(const json& in) {
  Timeline timeline;
  apply_timeline_window(in, timeline);
  if (auto events = in.find("events"); events != in.end()) append_events(*events, timeline.events, "timeline.events");
  normalize_timeline(timeline);
  return timeline;
}

void append_timeline_events(const json& events, Timeline& timeline) {
  append_events(events, timeline.events, "timeline_events");
}

namespace {

// S as json_text writes it: plain ASCII as it is, anything to escape or check through it.
void append_string(std::string& out, const std::string& s) {
  const bool plain = std::all_of(s.begin(), s.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte >= 0x20 && byte < 0x80 && c != '"' && c != '\\';
  });
  if (!plain) {
    out += json_text(json(s));
    return;
  }
  out += '"';
  out += s;
  out += '"';
}

template <class Number>
void append_number(std::string& out, Number number) {
  char digits[24];
  out.append(digits, std::to_chars(digits, digits + sizeof digits, number).ptr);
}

// ,"KEY":VALUE where VALUE is set.
template <class Number>
void append_field(std::string& out, const char* key, const std::optional<Number>& value) {
  if (!value) return;
  out.append(",\"").append(key).append("\":");
  append_number(out, *value);
}

void append_dim3(std::string& out, const char* key, const std::optional<Dim3>& value) {
  if (!value) return;
  out.append(",\"").append(key).append("\":[");
  append_number(out, value->x);
  out += ',';
  append_number(out, value->y);
  out += ',';
  append_number(out, value->z);
  out += ']';
}

}  // namespace

// json_text(timeline_event_json(E)), byte for byte (timeline_reader_test), written directly: a
// timeline of 600,000 events is most of a record, and a JSON object an event most of its cost.
void detail::append_timeline_event_text(const TimelineEvent& e, std::string& out) {
  out.append("{\"kind\":\"").append(to_string(e.kind)).append("\"");
  append_field(out, "start_ns", std::optional(e.start_ns));
  append_field(out, "end_ns", std::optional(e.end_ns));
  append_field(out, "stream_id", e.stream_id);
  append_field(out, "context_id", e.context_id);
  append_field(out, "device", e.device);
  if (e.correlation_id != 0) append_field(out, "correlation_id", std::optional(e.correlation_id));
  out.append(",\"name\":");
  append_string(out, e.name);
  append_field(out, "bytes", e.bytes);
  if (e.pageable) out.append(*e.pageable ? ",\"pageable\":true" : ",\"pageable\":false");
  append_field(out, "thread_id", e.thread_id);
  append_field(out, "launch_sequence", e.launch_sequence);
  append_dim3(out, "grid", e.grid);
  append_dim3(out, "block", e.block);
  out += '}';
}

// An event per line, as the record's launches, so grep and diff show each whole; the same
// text read back by any JSON reader.
void write_timeline_json(const Timeline& timeline, std::ostream& out) {
  std::string window = json_text(timeline_window_json(timeline));
  window.pop_back();  // reopened: the events follow
  out << window << ", \"events\": [";
  std::string text;
  for (std::size_t i = 0; i < timeline.events.size(); ++i) {
    text.assign(i ? ",\n  " : "\n  ");
    detail::append_timeline_event_text(timeline.events[i], text);
    out << text;
  }
  out << (timeline.events.empty() ? "]}" : "\n ]}");
}

std::string partial_timeline_line(const std::vector<TimelineEvent>& events) {
  std::string line = "{\"timeline_events\": [";
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (i) line += ", ";
    detail::append_timeline_event_text(events[i], line);
  }
  return line + "]}";
}

}  // namespace limiter
