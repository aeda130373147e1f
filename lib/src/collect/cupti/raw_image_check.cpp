#include "collect/cupti/raw_image_check.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string_view>

#include "limiter/error.hpp"
#include "limiter/file_io.hpp"

namespace limiter::detail {
namespace fs = std::filesystem;
namespace {

// CUPTI's counter-data images begin with this magic; the header after it is at least 24 bytes.
constexpr std::string_view kImageMagic{"LOPDATA\0", 8};
constexpr std::size_t kMinimumImageBytes = 64;

fs::path digest_path(const fs::path& image) { return image.string() + ".crc32"; }

std::uint32_t crc32_of(const std::vector<std::uint8_t>& bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes at most 4 GiB per call.
  for (std::size_t done = 0; done < bytes.size();) {
    const auto chunk = static_cast<uInt>(std::min<std::size_t>(bytes.size() - done, 1u << 30));
    crc = crc32(crc, bytes.data() + done, chunk);
    done += chunk;
  }
  return static_cast<std::uint32_t>(crc);
}

std::string digest_text(std::size_t size, std::uint32_t crc) {
  char text[64];
  std::snprintf(text, sizeof text, "%zu %08x\n", size, crc);
  return text;
}

}  // namespace

void write_image_digest(const fs::path& image, const std::vector<std::uint8_t>& bytes) {
  write_file_atomically(digest_path(image).string(), digest_text(bytes.size(), crc32_of(bytes)));
}

void check_counter_image(const fs::path& image, const std::vector<std::uint8_t>& bytes) {
  const auto corrupt = [&](const std::string& why) {
    return InputError("counter-data image '" + image.string() + "' is corrupt (" + why +
                      "); it cannot be evaluated. Record the raw data set again.");
  };
  if (std::ifstream digest{digest_path(image)}) {
    std::string recorded;
    std::getline(digest, recorded);
    const std::string actual = digest_text(bytes.size(), crc32_of(bytes));
    if (recorded + "\n" != actual)
      throw corrupt("size and CRC-32 " + actual.substr(0, actual.size() - 1) + ", recorded " + recorded);
  }
  if (bytes.size() < kMinimumImageBytes) throw corrupt(std::to_string(bytes.size()) + " bytes");
  if (std::string_view(reinterpret_cast<const char*>(bytes.data()), kImageMagic.size()) != kImageMagic)
    throw corrupt("no LOPDATA header");
}

}  // namespace limiter::detail
