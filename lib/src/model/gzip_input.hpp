#pragma once
// Reading gzip-compressed files as a std::istream (zlib's gzread), so compressed records
// (run.json.gz) are read as they are, streamed. Plain files read through it unchanged.
#include <istream>
#include <memory>
#include <streambuf>
#include <string>
#include <vector>

namespace limiter::detail {

class GzipInputBuffer : public std::streambuf {
 public:
  explicit GzipInputBuffer(const std::string& path);  // throws InputError when it cannot be opened
  ~GzipInputBuffer() override;
  GzipInputBuffer(const GzipInputBuffer&) = delete;
  GzipInputBuffer& operator=(const GzipInputBuffer&) = delete;

 protected:
  int_type underflow() override;

 private:
  void* file_ = nullptr;  // gzFile, kept out of this header
  std::string path_;
  std::vector<char> buffer_;
};

// Whether PATH starts with the gzip magic bytes.
bool is_gzip_file(const std::string& path);

}  // namespace limiter::detail
