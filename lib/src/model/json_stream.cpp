#include "model/json_stream.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include <simdjson.h>

namespace limiter::detail {
namespace {

constexpr std::size_t kChunk = 4 << 20;  // read from the stream at a time

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

// What a byte outside strings means to a value's extent.
enum class Outside : unsigned char { other, quote, open, close, newline };
constexpr auto kOutside = [] {
  std::array<Outside, 256> table{};
  table['"'] = Outside::quote;
  table['{'] = table['['] = Outside::open;
  table['}'] = table[']'] = Outside::close;
  table['\n'] = Outside::newline;
  return table;
}();

// Whether the quote at DATA[AT] is escaped: an odd number of backslashes before it. The value's
// opening quote or bracket stops the count.
bool escaped(const char* data, std::size_t at) {
  std::size_t backslashes = 0;
  while (data[at - 1 - backslashes] == '\\') ++backslashes;
  return backslashes % 2 == 1;
}

}  // namespace

JsonStream::JsonStream(std::streambuf& in) : in_(in), start_(in.pubseekoff(0, std::ios::cur, std::ios::in)) {}

void JsonStream::seek(Position position) {
  in_.pubseekpos(position.offset, std::ios::in);
  dropped_ = static_cast<std::size_t>(position.offset - start_);
  begin_ = end_ = 0;
  line_ = position.line;
  eof_ = false;
}

int JsonStream::peek() {
  for (;;) {
    for (; begin_ < end_; ++begin_) {
      const char c = buffer_[begin_];
      if (c == '\n')
        ++line_;
      else if (!is_space(c))
        return static_cast<unsigned char>(c);
    }
    if (!refill()) return kEnd;
  }
}

std::string_view JsonStream::value() {
  const int first = peek();
  if (first == kEnd) return {};
  const bool token = first != '{' && first != '[' && first != '"';
  Scan scan;
  while (!(token ? scan_token(scan) : scan_value(scan))) {
    if (!refill()) {
      if (token) break;  // a token may end the stream (and the record is then cut short)
      return {};
    }
  }
  const std::string_view text(buffer_.data() + begin_, scan.end);
  begin_ += scan.end;
  line_ += scan.lines;
  return text;
}

bool JsonStream::scan_value(Scan& scan) const {
  const char* data = buffer_.data() + begin_;
  const std::size_t size = end_ - begin_;
  while (scan.end < size) {
    if (scan.in_string) {
      const void* quote = std::memchr(data + scan.end, '"', size - scan.end);
      if (!quote) {
        scan.end = size;
        return false;
      }
      const std::size_t at = static_cast<const char*>(quote) - data;
      scan.end = at + 1;
      if (escaped(data, at)) continue;
      scan.in_string = false;
      if (scan.depth == 0) return true;  // the value was this string
      continue;
    }
    // Between strings: the bytes that matter, found by a table (twice as fast as a switch on each).
    while (scan.end < size && kOutside[static_cast<unsigned char>(data[scan.end])] == Outside::other) ++scan.end;
    if (scan.end == size) return false;
    switch (kOutside[static_cast<unsigned char>(data[scan.end++])]) {
      case Outside::quote:
        scan.in_string = true;
        break;
      case Outside::open:
        ++scan.depth;
        break;
      case Outside::close:
        if (--scan.depth <= 0) return true;
        break;
      case Outside::newline:
        ++scan.lines;
        break;
      case Outside::other:
        break;
    }
  }
  return false;
}

bool JsonStream::scan_token(Scan& scan) const {
  const char* data = buffer_.data() + begin_;
  const std::size_t size = end_ - begin_;
  for (; scan.end < size; ++scan.end) {
    const char c = data[scan.end];
    if (is_space(c) || c == ',' || c == '}' || c == ']' || c == ':') return true;
  }
  return false;
}

bool JsonStream::refill() {
  if (eof_) return false;
  // Drop what was taken before the buffer would grow (the caller keeps offsets from begin_), so
  // that it grows only for a value longer than a chunk: a buffer grown again and again is new
  // memory to fault in and copy (a tenth of the CPU time of reading a record of 100,000 launches).
  if (begin_ > 0 && end_ + kChunk + simdjson::SIMDJSON_PADDING > buffer_.size()) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    dropped_ += begin_;
    end_ -= begin_;
    begin_ = 0;
  }
  const std::size_t needed = end_ + kChunk + simdjson::SIMDJSON_PADDING;
  if (buffer_.size() < needed) buffer_.resize(std::max(needed, 2 * buffer_.size()));
  const std::streamsize got = in_.sgetn(buffer_.data() + end_, static_cast<std::streamsize>(kChunk));
  if (got <= 0) {
    eof_ = true;
    return false;
  }
  end_ += static_cast<std::size_t>(got);
  return true;
}

}  // namespace limiter::detail
