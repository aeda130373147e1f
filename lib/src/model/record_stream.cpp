// The run record read a launch at a time, whatever its layout — a launch per line as `limiter
// run` writes it, indented, or all on one line: the text is cut into the record's fields and its
// launches (json_stream.hpp), each launch parsed with simdjson (launch_parser.hpp), the timeline
// too where it is plain (timeline_reader.hpp), each other field with nlohmann-json, the fields
// checked by run_from_json, so that every reader accepts and rejects the same files with the same
// words.
#include "limiter/record_stream.hpp"

#include <fstream>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "limiter/error.hpp"
#include "limiter/record_json.hpp"
#include "model/gzip_input.hpp"
#include "model/json_stream.hpp"
#include "model/launch_parser.hpp"
#include "model/record_texts.hpp"
#include "model/timeline_reader.hpp"

namespace limiter {
namespace {

using json = nlohmann::json;
using detail::JsonStream;

// Whether C can start a JSON value.
bool starts_value(int c) {
  return c == '{' || c == '[' || c == '"' || c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n';
}

class RunReader {
 public:
  RunReader(std::streambuf& in, std::string origin, const RunHeaderSink& on_header,
            const detail::LaunchTextSink& on_text, const RunHeaderSink& on_completed, TimelineEvents events)
      : origin_(std::move(origin)),
        on_header_(on_header),
        on_text_(on_text),
        on_completed_(on_completed),
        events_(events),
        text_(in) {}

  void read() {
    const int first = text_.peek();
    if (first == JsonStream::kEnd) corrupt("the file is empty");
    if (first != '{') {
      if (starts_value(first)) throw InputError(not_a_run());
      corrupt("it does not start with '{'");
    }
    text_.take();
    if (text_.peek() == '}')
      text_.take();
    else
      other_fields(field());
    if (!header_sent_) send_header();
    for (const auto& launch : held_)
      on_text_(std::string_view(launch.text).substr(0, launch.size), launch.index, launch.line);
    if (!header_.empty() && !read_trailing_first_ && on_completed_) send_completed_header();
  }

 private:
  // The fields after LAST, to the record's end.
  void other_fields(std::string last) {
    for (;;) {
      const int next = text_.peek();
      if (next == JsonStream::kEnd) corrupt("the record is cut short after \"" + last + "\"");
      if (next != ',' && next != '}') corrupt("expected ',' or '}' after \"" + last + "\"");
      text_.take();
      if (next == '}') break;
      last = field();
    }
    if (text_.peek() != JsonStream::kEnd) corrupt("there is more after the record's closing '}'");
  }

  // One of the record's fields; returns its name.
  std::string field() {
    if (text_.peek() != '"') corrupt("expected a field name in quotes");
    const std::string key = parsed(text_.value(), "a field name").get<std::string>();
    if (text_.peek() != ':') corrupt("expected ':' after \"" + key + "\"");
    text_.take();
    if (key == "launches" && text_.peek() == '[') {
      launches();
    } else {
      const std::string_view value = text_.value();
      if (value.empty()) corrupt("\"" + key + "\" is cut short");
      if (key == "timeline")
        timeline(value);
      else
        header_[key] = parsed(value, "\"" + key + "\"");
    }
    return key;
  }

  // The timeline straight into a Timeline where it is plain (timeline_reader.hpp), its window alone
  // where the events are not wanted; else (a fault, an odd value) into header_ for run_from_json,
  // which names what is wrong as every reader does.
  void timeline(std::string_view text) {
    header_.erase("timeline");  // given twice: the last, as a JSON object keeps it
    fast_timeline_.reset();
    if (header_sent_ && read_trailing_first_) return;  // read already, before the launches were
    if (text.front() == '{') {
      if (events_ == TimelineEvents::read && (fast_timeline_ = detail::read_timeline_fast(text))) return;
      if (events_ == TimelineEvents::skipped) {
        if (const auto window = detail::timeline_window_text(text)) {
          json parsed_window = json::parse(*window, nullptr, /*allow_exceptions=*/false);
          if (!parsed_window.is_discarded()) {
            header_["timeline"] = std::move(parsed_window);
            return;
          }
        }
      }
    }
    json parsed_timeline = parsed(text, "\"timeline\"");
    if (events_ == TimelineEvents::skipped && parsed_timeline.is_object()) parsed_timeline.erase("events");
    header_["timeline"] = std::move(parsed_timeline);
  }

  // The launches array: each launch parsed and handed on once the run's fields are complete.
  // Where the fields before them make a run (limiter's writers put the launches last) the header
  // goes first, and fields after the launches complete it at the end (send_completed_header);
  // else (keys sorted, launches first) they are read first, the launches skipped, where the
  // stream can seek back (a file), or the launches held till then.
  void launches() {
    const bool complete = header_.contains("kind") && header_.contains("schema_version") && header_.contains("device");
    if (!header_sent_ && !complete && !skipping_ && text_.can_seek()) {
      const JsonStream::Position array = text_.position();
      skipping_ = true;
      launch_array();
      other_fields("launches");
      skipping_ = false;
      read_trailing_first_ = true;  // the header sent before the launches has them
      text_.seek(array);
    }
    if (!header_sent_ && (complete || text_.can_seek()) && !skipping_) {
      saw_launches_ = true;
      send_header();
    }
    launch_array();
  }

  void launch_array() {
    text_.take();
    saw_launches_ = true;
    std::size_t index = 0;  // of the next launch
    if (text_.peek() == ']') {
      text_.take();
      return;
    }
    for (;;) {
      const int first = text_.peek();
      if (first == JsonStream::kEnd)
        corrupt("the record does not end after its " + std::to_string(index) + " launches");
      if (first != '{') {
        if (starts_value(first)) fail_launch(index, "expected an object");
        corrupt("expected launch " + std::to_string(index) + " after ','");
      }
      const std::size_t line = text_.line();
      const std::string_view text = text_.value();
      if (text.empty()) corrupt("launch " + std::to_string(index) + " is cut short", line);
      if (!skipping_) hand_on(text, index, line);
      ++index;
      const int next = text_.peek();
      if (next == JsonStream::kEnd) corrupt("the record does not end after its " + std::to_string(index) + " launches");
      if (next != ',' && next != ']') corrupt("expected ',' or ']' after launch " + std::to_string(index - 1));
      text_.take();
      if (next == ']') return;
    }
  }

  void hand_on(std::string_view text, std::size_t index, std::size_t line) {
    if (header_sent_) {
      on_text_(text, index, line);
      return;
    }
    std::string copy(text);
    copy.append(simdjson::SIMDJSON_PADDING, ' ');  // the parser reads ahead
    held_.push_back({std::move(copy), text.size(), index, line});
  }

  json parsed(std::string_view text, const std::string& what) const {
    json value = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    if (value.is_discarded()) corrupt(what + " is malformed");
    return value;
  }

  void send_header() {
    // Moved, not copied: a timeline of 100,000 events is most of it.
    json checked = std::move(header_);
    header_ = json::object();
    // Without a launches array run_from_json names what is missing, as the DOM reader does.
    if (saw_launches_) checked["launches"] = json::array();
    sent_ = run_from_json(checked, origin_);
    if (fast_timeline_) sent_.timeline = std::move(*fast_timeline_);
    fast_timeline_.reset();
    // Kept for fields that may follow the launches, but the large ones already read into sent_.
    checked.erase("timeline");
    checked.erase("stalls");
    sent_fields_ = std::move(checked);
    on_header_(sent_);
    header_sent_ = true;
    if (!on_completed_) sent_ = RunRecord{};  // no use for it
  }

  // Fields after the launches ("rank" written last by hand, keys sorted with "launches" before
  // "rank"): the run's fields again, complete, so none is lost whatever the order.
  void send_completed_header() {
    for (auto field = header_.begin(); field != header_.end(); ++field) sent_fields_[field.key()] = std::move(*field);
    RunRecord completed = run_from_json(sent_fields_, origin_);
    if (fast_timeline_)
      completed.timeline = std::move(*fast_timeline_);
    else if (!header_.contains("timeline"))
      completed.timeline = std::move(sent_.timeline);
    if (!header_.contains("stalls")) completed.stalls = std::move(sent_.stalls);
    header_ = json::object();
    on_completed_(completed);
  }

  [[noreturn]] void corrupt(const std::string& what) const { corrupt(what, text_.line()); }
  [[noreturn]] void corrupt(const std::string& what, std::size_t line) const {
    throw InputError(origin_ + " is not valid JSON (truncated or corrupt?): " + what + " (line " +
                     std::to_string(line) + ")");
  }
  [[noreturn]] void fail_launch(std::size_t index, const std::string& what) const {
    throw InputError(origin_ + ": launch " + std::to_string(index) + ": " + what + " (line " +
                     std::to_string(text_.line()) + ")");
  }
  std::string not_a_run() const {
    return origin_ +
           ": not a limiter run record (no \"kind\": \"limiter-run\"); make one with `limiter run`, "
           "`limiter kernels` or `limiter import`";
  }

  // A launch read before the run's fields were complete, handed on after them.
  struct HeldLaunch {
    std::string text;  // with padding after its SIZE bytes
    std::size_t size, index, line;
  };

  const std::string origin_;
  const RunHeaderSink& on_header_;
  const detail::LaunchTextSink& on_text_;
  const RunHeaderSink& on_completed_;
  const TimelineEvents events_;
  JsonStream text_;
  json header_ = json::object();           // the run's fields but its launches, not yet sent
  std::optional<Timeline> fast_timeline_;  // the timeline, not yet sent, where it was read straight
  RunRecord sent_;                         // the header sent before the launches
  json sent_fields_;                       // its fields but the timeline and the stalls
  bool saw_launches_ = false, header_sent_ = false;
  bool skipping_ = false;             // reading the fields after the launches first
  bool read_trailing_first_ = false;  // they were, before the header was sent
  std::vector<HeldLaunch> held_;
};

}  // namespace

namespace detail {

void read_run_texts(std::streambuf& in, const std::string& origin, const RunHeaderSink& on_header,
                    const LaunchTextSink& on_text, const RunHeaderSink& on_completed, TimelineEvents events) {
  RunReader(in, origin, on_header, on_text, on_completed, events).read();
}

void read_run_texts(const std::string& path, const RunHeaderSink& on_header, const LaunchTextSink& on_text,
                    const RunHeaderSink& on_completed, TimelineEvents events) {
  if (is_gzip_file(path)) {  // run.json.gz: decompressed as it is read
    GzipInputBuffer buffer(path);
    read_run_texts(buffer, "'" + path + "'", on_header, on_text, on_completed, events);
    return;
  }
  std::filebuf in;
  if (!in.open(path, std::ios::in | std::ios::binary))
    throw InputError("cannot open run file '" + path + "': check the path");
  read_run_texts(in, "'" + path + "'", on_header, on_text, on_completed, events);
}

}  // namespace detail

void read_run_stream(std::istream& in, const std::string& origin, const RunHeaderSink& on_header,
                     const LaunchSink& on_launch, std::vector<KernelLaunch>* spare, const RunHeaderSink& on_completed) {
  detail::LaunchParser parser(origin, spare);
  detail::read_run_texts(
      *in.rdbuf(), origin, on_header,
      [&](std::string_view text, std::size_t index, std::size_t line) {
        KernelLaunch launch;
        parser.parse(text, index, line, launch);
        on_launch(std::move(launch));
      },
      on_completed);
}

void read_run_stream(const std::string& path, const RunHeaderSink& on_header, const LaunchSink& on_launch,
                     std::vector<KernelLaunch>* spare, const RunHeaderSink& on_completed) {
  const std::string origin = "'" + path + "'";
  detail::LaunchParser parser(origin, spare);
  detail::read_run_texts(
      path, on_header,
      [&](std::string_view text, std::size_t index, std::size_t line) {
        KernelLaunch launch;
        parser.parse(text, index, line, launch);
        on_launch(std::move(launch));
      },
      on_completed);
}

RunRecord read_run_header(const std::string& path, TimelineEvents events) {
  // To the end, the launches cut out but never parsed: a field after them completes the header.
  RunRecord header;
  const RunHeaderSink take = [&](const RunRecord& run) { header = run; };
  detail::read_run_texts(
      path, take, [](std::string_view, std::size_t, std::size_t) {}, take, events);
  return header;
}

RunRecord read_run_header(const std::string& path) { return read_run_header(path, TimelineEvents::read); }

RunRecord read_run_streamed(const std::string& path) {
  RunRecord run;
  std::vector<KernelLaunch> launches;
  const RunHeaderSink take = [&](const RunRecord& header) { run = header; };
  read_run_stream(
      path, take, [&](KernelLaunch&& launch) { launches.push_back(std::move(launch)); }, nullptr, take);
  run.launches = std::move(launches);
  return run;
}

// Here, not in record_json.cpp: the writers (linked into liblimiter_inject.so) need no reader.
RunRecord read_run_file(const std::string& path) {
  // Streamed: a DOM of a large record costs several times the file's size.
  return read_run_streamed(path);
}

}  // namespace limiter
