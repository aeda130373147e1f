#pragma once
// What every fuzz target does with a record it managed to read: everything a user could ask
// for next (analysis with both peak kinds, the grouped summary, every report format, a
// comparison with itself). Odd values (NaN, negative, huge, zero-sized grids) must come out
// as text, never as a crash or undefined behaviour.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "limiter/record.hpp"

namespace limiter::fuzz {

void analyse_and_report(const RunRecord& run);

// Runs READ; limiter's own errors (InputError, SystemError) are the expected answer to bad
// input. Anything else escapes and libFuzzer reports it as a crash.
void expect_only_limiter_errors(const std::function<void()>& read);

std::string_view as_text(const std::uint8_t* data, std::size_t size);

// A folder of its own for this fuzzing process (removed at exit), for readers that take paths.
const std::string& scratch_dir();
void write_file(const std::string& path, std::string_view content);

}  // namespace limiter::fuzz
