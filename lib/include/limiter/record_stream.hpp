#pragma once
// Reading a run record one launch at a time, in any layout (a launch per line as `limiter run`
// writes it, indented, all on one line: each launch is cut out of the text and parsed with
// simdjson, record_stream.cpp), so records of millions of launches are read in flat memory: no
// DOM of the whole file is ever built. Gives the RunRecord the DOM reader gives (run_from_json,
// record_json.hpp), with the same checks and messages.
//
//   read_run_stream("run.json",
//                   [](const RunRecord& header) { ... },        // everything but the launches
//                   [](KernelLaunch&& launch) { ... });         // then each launch, in file order
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "limiter/record.hpp"

namespace limiter {

using RunHeaderSink = std::function<void(const RunRecord& header)>;
using LaunchSink = std::function<void(KernelLaunch&& launch)>;

// Calls on_header once, before the first launch, with the run's fields (launches empty), then
// on_launch for each launch. Where fields follow the launches (limiter writes the launches last;
// a record with its keys sorted, or a "rank" added by hand, does not), ON_COMPLETED, when given,
// is called at the end with all the run's fields; without it they are ignored. Throws InputError
// naming the file, and the launch and its line, on any error.
// SPARE, if given: used launches whose storage (strings, counter nodes) new ones are built in.
void read_run_stream(const std::string& path, const RunHeaderSink& on_header, const LaunchSink& on_launch,
                     std::vector<KernelLaunch>* spare = nullptr, const RunHeaderSink& on_completed = {});
void read_run_stream(std::istream& in, const std::string& origin, const RunHeaderSink& on_header,
                     const LaunchSink& on_launch, std::vector<KernelLaunch>* spare = nullptr,
                     const RunHeaderSink& on_completed = {});

// Whether a header's reader builds the timeline's events (600,000 of them in a long run) or
// leaves them unread: skipped, the timeline holds its window (start, end, dropped counts) as
// written and no events, for callers that need the run's other fields (its rank, its phases).
enum class TimelineEvents { read, skipped };

// The record's fields but its launches, those after the launches too: the launches are cut out
// of the text, never parsed.
RunRecord read_run_header(const std::string& path, TimelineEvents events);
RunRecord read_run_header(const std::string& path);  // the timeline's events read

// The whole record through the stream reader, its fields in any order (for small records and tests).
RunRecord read_run_streamed(const std::string& path);

}  // namespace limiter
