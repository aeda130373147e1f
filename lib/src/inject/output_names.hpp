#pragma once
// Output names as ncu spells them, so every process of a job gets its own file:
// %p = process id, %h = host name, %q{NAME} = the value of environment variable NAME
// (e.g. %q{OMPI_COMM_WORLD_RANK}), %% = a percent sign.
#include <string>

namespace limiter::detail {

std::string expand_output_name(const std::string& pattern);  // throws InputError on a bad pattern

}  // namespace limiter::detail
