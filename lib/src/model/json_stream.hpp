#pragma once
// A JSON text read from a stream a value at a time, for the record reader (record_stream.cpp):
// the punctuation between values one character at a time, and each value whole, as a view of a
// buffer with simdjson's padding after it. A value's end is found by its brackets and quotes
// alone (strings skipped with memchr, ~3 GB/s); whether it is valid JSON is for the parser it is
// handed to. So a record of a million launches is parsed a launch at a time in flat memory,
// whatever its layout: one line, indented, or a launch per line.
#include <cstddef>
#include <ios>
#include <streambuf>
#include <string_view>
#include <vector>

namespace limiter::detail {

class JsonStream {
 public:
  static constexpr int kEnd = -1;

  explicit JsonStream(std::streambuf& in);

  // The next character after whitespace, not taken; kEnd at the end of the stream.
  int peek();
  // Takes the character peek() gave.
  void take() { ++begin_; }
  // The value that starts at the next character, taken whole: an object or array to its closing
  // bracket, a string to its closing quote, any other token to the next delimiter. Empty when the
  // stream ends inside it. The view (and padding after it) stays readable until the next call.
  std::string_view value();
  // The line of the next character (1-based): where a value that failed to parse begins.
  std::size_t line() const { return line_; }

  // Where the next character is, to come back to it: only where the stream can seek (a file).
  struct Position {
    std::streamoff offset;
    std::size_t line;
  };
  bool can_seek() const { return start_ != -1; }
  Position position() const { return {start_ + static_cast<std::streamoff>(dropped_ + begin_), line_}; }
  void seek(Position position);

 private:
  // Where a value's scan stands, so that it goes on where it stopped after more is read.
  struct Scan {
    std::size_t end = 0;  // from begin_: how far the value has been scanned
    int depth = 0;
    bool in_string = false;
    std::size_t lines = 0;  // newlines scanned (outside strings, where JSON allows them)
  };
  // Goes on scanning what is buffered: true once the value ends there.
  bool scan_value(Scan& scan) const;  // an object, array or string
  bool scan_token(Scan& scan) const;  // a number, true, false, null (or anything else)
  // Reads more of the stream after what is buffered; false at its end.
  bool refill();

  std::streambuf& in_;
  std::streamoff start_;     // the stream's position when it came; -1 where it cannot seek
  std::size_t dropped_ = 0;  // bytes read from there and dropped from the buffer
  std::vector<char> buffer_;
  std::size_t begin_ = 0, end_ = 0;  // the unread part of buffer_
  std::size_t line_ = 1;
  bool eof_ = false;
};

}  // namespace limiter::detail
