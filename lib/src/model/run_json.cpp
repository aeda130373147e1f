// A run record as JSON: its fields, its timeline, its stalls and its launches, read from a DOM and
// written in the line layout (the run's fields indented, the timeline's events and the launches
// one per line).
#include <cctype>
#include <ostream>
#include <sstream>

#include "limiter/error.hpp"
#include "limiter/file_io.hpp"
#include "limiter/json_text.hpp"
#include "limiter/record_json.hpp"
#include "model/json_fields.hpp"
#include "model/record_faults.hpp"
#include "model/record_layout.hpp"

namespace limiter {

using ordered_json = nlohmann::ordered_json;
using json = nlohmann::json;
using detail::get_optional;

namespace {

// "cache_control": "none" or "all", or unset (older records, imports, records without exact counters).
std::optional<std::string> cache_control_from(const json& in) {
  std::optional<std::string> value = get_optional<std::string>(in, "cache_control");
  if (!value || *value == "none" || *value == "all") return value;
  std::string shown = json(*value).dump(-1, ' ', false, json::error_handler_t::replace);
  if (shown.size() > 40) shown = shown.substr(0, 37) + "...";  // a hostile value stays a short message
  throw InputError("field \"cache_control\" must be \"none\" or \"all\", not " + shown);
}

}  // namespace

namespace detail {

// The run's fields but its launches and timeline, in the order every writer puts them.
ordered_json run_fields_json(const RunRecord& run) {
  ordered_json out;
  out["schema_version"] = run.sampling ? kRunSchemaVersion : run.schema_version;
  out["kind"] = "limiter-run";
  out["tool_version"] = run.tool_version;
  out["source"] = run.source;
  out["created_at"] = run.created_at;
  out["command_line"] = run.command_line;
  // Only where known, so records of single processes read as before.
  if (!run.host.empty()) out["host"] = run.host;
  if (run.rank) out["rank"] = rank_json(*run.rank);
  out["counter_model"] = to_string(run.counter_model);
  if (run.sampling) out["sampling"] = sampling_json(*run.sampling);
  out["device"] = device_json(run.device);
  if (!run.ended.empty()) out["ended"] = run.ended;
  detail::put_if_set(out, "cache_control", run.cache_control);
  if (!run.missed.empty()) out["missed"] = missed_json(run.missed);
  if (run.launches_seen) out["launches_seen"] = *run.launches_seen;
  if (!run.kernels_seen.empty()) out["kernels_seen"] = kernels_seen_json(run.kernels_seen);
  if (!run.phases.empty()) out["phases"] = phases_json(run.phases);
  return out;
}

// The layout of every record limiter writes: the run's fields indented, the timeline an event
// per line, then a launch per line, which editors, grep and diff show whole (the reader takes any
// layout alike: record_stream.hpp). The timeline comes before the launches so that a streaming
// reader has it with the run's other fields.
void write_line_layout_head(std::ostream& out, const ordered_json& fields, const Timeline* timeline,
                            const StallInfo* stalls) {
  std::string head = json_text(fields, 1);
  head.resize(head.rfind('}'));  // reopened: the timeline and the launches follow
  while (!head.empty() && std::isspace(static_cast<unsigned char>(head.back()))) head.pop_back();
  out << head;
  if (timeline) {
    out << ",\n \"timeline\": ";
    write_timeline_json(*timeline, out);
  }
  if (stalls) out << ",\n \"stalls\": " << json_text(stalls_json(*stalls));
  out << ",\n \"launches\": [";
}

}  // namespace detail

ordered_json to_json(const RunRecord& run) {
  ordered_json out = detail::run_fields_json(run);
  ordered_json launches = ordered_json::array();
  for (const auto& launch : run.launches) launches.push_back(launch_json(launch));
  if (run.timeline) out["timeline"] = timeline_json(*run.timeline);  // before the launches, as written
  if (run.stalls) out["stalls"] = stalls_json(*run.stalls);
  out["launches"] = std::move(launches);
  return out;
}

RunRecord run_from_json(const json& in, const std::string& origin) {
  if (!in.is_object() || !in.contains("kind") || in["kind"] != "limiter-run") {
    throw InputError(origin +
                     ": not a limiter run record (no \"kind\": \"limiter-run\"); "
                     "make one with `limiter run`, `limiter kernels` or `limiter import`");
  }
  RunRecord run;
  try {
    const int version = in.value("schema_version", 0);
    if (version < 1 || version > kRunSchemaVersion) {
      throw InputError("run schema_version " + std::to_string(version) + " is not supported by limiter " +
                       tool_version() + " (reads 1.." + std::to_string(kRunSchemaVersion) +
                       "); use a matching limiter version");
    }
    run.schema_version = version;
    run.tool_version = in.value("tool_version", "");
    run.source = in.value("source", "");
    run.created_at = in.value("created_at", "");
    run.command_line = in.value("command_line", std::vector<std::string>{});
    run.host = in.value("host", "");
    if (auto rank = in.find("rank"); rank != in.end() && !rank->is_null()) run.rank = rank_from(*rank);
    run.counter_model = counter_model_from_string(in.value("counter_model", "perfworks"));
    if (auto sampling = in.find("sampling"); sampling != in.end()) run.sampling = sampling_from(*sampling);
    run.device = device_from(in.at("device"));
    run.ended = in.value("ended", "");
    run.cache_control = cache_control_from(in);
    if (auto missed = in.find("missed"); missed != in.end()) run.missed = missed_from(*missed);
    run.launches_seen = get_optional<std::uint64_t>(in, "launches_seen");
    if (auto seen = in.find("kernels_seen"); seen != in.end()) run.kernels_seen = kernels_seen_from(*seen);
    if (auto phases = in.find("phases"); phases != in.end()) run.phases = phases_from(*phases);
    if (auto timeline = in.find("timeline"); timeline != in.end() && !timeline->is_null())
      run.timeline = timeline_from(*timeline);
    if (auto stalls = in.find("stalls"); stalls != in.end() && !stalls->is_null()) run.stalls = stalls_from(*stalls);
    std::size_t index = 0;
    for (const auto& launch : in.at("launches")) {
      try {
        run.launches.push_back(launch_from(launch));
      } catch (const std::exception& e) {
        throw InputError("launch " + std::to_string(index) + ": " + e.what());
      }
      ++index;
    }
  } catch (const InputError& e) {  // a field of the wrong type is named, where the message did not
    const std::string fault = detail::record_field_fault(in);
    throw InputError(origin + ": " + (fault.empty() ? e.what() : fault));
  } catch (const json::exception& e) {  // named in the user's words, not the library's
    const std::string fault = detail::record_field_fault(in);
    throw InputError(origin + ": " + (fault.empty() ? "malformed run record: " + detail::json_error_words(e) : fault));
  }
  return run;
}

void write_run_json(const RunRecord& run, std::ostream& out) {
  detail::write_line_layout_head(out, detail::run_fields_json(run), run.timeline ? &*run.timeline : nullptr,
                                 run.stalls ? &*run.stalls : nullptr);
  for (std::size_t i = 0; i < run.launches.size(); ++i)
    out << detail::line_layout_separator(i) << json_text(launch_json(run.launches[i]));
  out << detail::kLineLayoutEnd;
}

void write_run_file(const RunRecord& run, const std::string& path) {
  std::ostringstream text;
  write_run_json(run, text);
  write_file_atomically(path, text.str());
}

}  // namespace limiter
