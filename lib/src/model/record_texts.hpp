#pragma once
// The run record cut into its fields and its launches' text (record_stream.cpp), for readers that
// parse the launches (launch_parser.hpp) where they need them: read_run_stream parses each as it
// comes; the report's pipeline parses and analyses batches of them on every core, so that a
// launch is built in the memory of the core that analyses it (summary/launch_pipeline.cpp).
#include <cstddef>
#include <functional>
#include <streambuf>
#include <string>
#include <string_view>

#include "limiter/record_stream.hpp"

namespace limiter::detail {

// TEXT: one launch object, with simdjson's padding readable after it, valid during the call;
// INDEX: its place among the launches; LINE: the line it starts on.
using LaunchTextSink = std::function<void(std::string_view text, std::size_t index, std::size_t line)>;

// Calls ON_HEADER once with the run's fields (checked by run_from_json), then ON_TEXT for each
// launch in file order, then ON_COMPLETED (when given) with all the run's fields where some came
// after the launches. Throws InputError naming ORIGIN where the text is not a run record.
void read_run_texts(std::streambuf& in, const std::string& origin, const RunHeaderSink& on_header,
                    const LaunchTextSink& on_text, const RunHeaderSink& on_completed = {},
                    TimelineEvents events = TimelineEvents::read);
// The record at PATH (.json, or .json.gz decompressed as it is read).
void read_run_texts(const std::string& path, const RunHeaderSink& on_header, const LaunchTextSink& on_text,
                    const RunHeaderSink& on_completed = {}, TimelineEvents events = TimelineEvents::read);

}  // namespace limiter::detail
