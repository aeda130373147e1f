#pragma once
// The record's "timeline" read with simdjson straight into a Timeline, for the record reader
// (record_stream.cpp): ~10x faster than a DOM of nlohmann-json objects (timeline_json.cpp), which
// a record of 600,000 events made most of a report's time. It takes only what timeline_from
// takes unchanged; anything else — a wrong type, a number out of range, a missing field — gives
// nothing, and the caller reads that timeline through timeline_from, so that every fault is
// named in the same words by one piece of code.
#include <optional>
#include <string_view>

#include "limiter/timeline.hpp"

namespace limiter::detail {

// TEXT: the timeline's JSON object, with simdjson's padding readable after it. Empty where the
// text is not valid JSON or holds anything the DOM reader would refuse or read otherwise.
std::optional<Timeline> read_timeline_fast(std::string_view text);

// TEXT's fields but "events", as JSON text ({"start_ns": ..., ...}), the events skipped unread:
// the timeline's window for a reader that needs no events. Empty where TEXT is not a valid
// object as far as it was read.
std::optional<std::string> timeline_window_text(std::string_view text);

}  // namespace limiter::detail
