// libFuzzer target: the raw counter folder `limiter analyze DIR` reads (limiter run --save-raw):
// meta.json, launches.jsonl and counter-data images evaluated by NVIDIA's libnvperf_host.
//
// Input: META '\0' LAUNCHES '\0' IMAGE, written as DIR/meta.json, DIR/launches.jsonl and
// DIR/image_0.bin. A real image is ~1 MB, too large for a corpus, so IMAGE is an edit of the
// committed one (tests/data/cupti/h200_probe_raw/image_0.bin), whose digest file goes beside it
// as the collector writes it: a damaged image must be refused before libnvperf_host reads it.
//   (empty)                       the committed image unchanged
//   'p' OFFSET:u32 SIZE:u32 BYTES the committed image cut to SIZE bytes, BYTES written at OFFSET
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "collect/cupti/raw_store.hpp"
#include "fuzz_support.hpp"

namespace {

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

const std::string& committed_image() {
  static const std::string& image = *new std::string(file_text(LIMITER_FUZZ_RAW_IMAGE));
  return image;
}

std::uint32_t little_endian_u32(std::string_view bytes) {
  std::uint32_t value = 0;
  std::memcpy(&value, bytes.data(), std::min(bytes.size(), sizeof value));
  return value;
}

std::string image_from(std::string_view spec) {
  if (spec.size() < 9 || spec[0] != 'p') return committed_image();
  std::string image = committed_image();
  image.resize(std::min<std::size_t>(image.size(), little_endian_u32(spec.substr(5, 4))));
  const std::size_t offset = little_endian_u32(spec.substr(1, 4));
  const std::string_view bytes = spec.substr(9);
  if (offset < image.size()) image.replace(offset, std::min(bytes.size(), image.size() - offset), bytes);
  return image;
}

// The next '\0'-terminated part of REST (all of it when there is no '\0').
std::string_view next_part(std::string_view& rest) {
  const std::size_t end = std::min(rest.find('\0'), rest.size());
  const std::string_view part = rest.substr(0, end);
  rest.remove_prefix(std::min(end + 1, rest.size()));
  return part;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace limiter;
  std::string_view rest = fuzz::as_text(data, size);
  const std::string_view meta = next_part(rest);
  const std::string_view launches = next_part(rest);
  const std::string dir = fuzz::scratch_dir() + "/raw";
  std::filesystem::create_directories(dir);
  fuzz::write_file(dir + "/meta.json", meta);
  fuzz::write_file(dir + "/launches.jsonl", launches);
  fuzz::write_file(dir + "/image_0.bin", image_from(rest));
  static const std::string& digest = *new std::string(file_text(LIMITER_FUZZ_RAW_IMAGE ".crc32"));
  fuzz::write_file(dir + "/image_0.bin.crc32", digest);
  fuzz::expect_only_limiter_errors([&] { fuzz::analyse_and_report(detail::evaluate_raw_dir(dir)); });
  return 0;
}
