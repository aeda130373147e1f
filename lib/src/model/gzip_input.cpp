#include "model/gzip_input.hpp"

#include <fstream>

#include <zlib.h>

#include "limiter/error.hpp"

namespace limiter::detail {

GzipInputBuffer::GzipInputBuffer(const std::string& path) : path_(path), buffer_(1 << 20) {
  file_ = gzopen(path.c_str(), "rb");
  if (!file_) throw InputError("cannot open run file '" + path + "': check the path");
  gzbuffer(static_cast<gzFile>(file_), 1 << 18);
}

GzipInputBuffer::~GzipInputBuffer() {
  if (file_) gzclose(static_cast<gzFile>(file_));
}

GzipInputBuffer::int_type GzipInputBuffer::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  const int read = gzread(static_cast<gzFile>(file_), buffer_.data(), static_cast<unsigned>(buffer_.size()));
  if (read < 0) throw InputError("'" + path_ + "' is not a valid gzip file (truncated or corrupt?)");
  if (read == 0) return traits_type::eof();
  setg(buffer_.data(), buffer_.data(), buffer_.data() + read);
  return traits_type::to_int_type(*gptr());
}

bool is_gzip_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char magic[2] = {0, 0};
  in.read(reinterpret_cast<char*>(magic), 2);
  return in && magic[0] == 0x1f && magic[1] == 0x8b;
}

}  // namespace limiter::detail
