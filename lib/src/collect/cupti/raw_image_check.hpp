#pragma once
// Counter-data images are checked before libnvperf_host sees them: it trusts the offsets inside
// an image and reads out of bounds (SIGSEGV) on a truncated or altered one (tests/fuzz/fuzz_raw_dir).
// Each image gets a digest file beside it when written (image_N.bin.crc32: size and CRC-32); on
// reading, an image that does not match its digest is refused. Images of sets written before
// digests existed get only the header check.
#include <cstdint>
#include <filesystem>
#include <vector>

namespace limiter::detail {

void write_image_digest(const std::filesystem::path& image, const std::vector<std::uint8_t>& bytes);

// Throws InputError naming IMAGE when it fails its digest or does not look like a counter-data image.
void check_counter_image(const std::filesystem::path& image, const std::vector<std::uint8_t>& bytes);

}  // namespace limiter::detail
