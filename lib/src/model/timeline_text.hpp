#pragma once
// A timeline event's JSON text written directly (timeline_json.cpp), for the record's writers.
#include <string>

#include "limiter/timeline.hpp"

namespace limiter::detail {

// json_text(timeline_event_json(EVENT)) appended to OUT, byte for byte, without a JSON object.
void append_timeline_event_text(const TimelineEvent& event, std::string& out);

}  // namespace limiter::detail
