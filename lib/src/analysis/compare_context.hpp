#pragma once
// What a comparison says beside its kernel rows (compare_context.cpp): kernel names matched
// across tools' spellings, whether the two records ran one program, how many launches found a
// partner, and the PC samples of each kernel on both sides.
#include <cstddef>
#include <cstdint>
#include <string>

#include "limiter/compare.hpp"

namespace limiter::detail {

// 10071 -> "10,071", as the reports write counts (compare_selection.cpp).
std::string count_text(std::uint64_t count);

// AFTER's kernel names that BEFORE spells another way (kernel_name_key.hpp) renamed to BEFORE's
// spelling, in its launches, its kernels seen and its PC samples. Returns how many names.
std::size_t align_kernel_names(const ComparedRun& before, ComparedRun& after);

// Where one side's launches have no configuration (the timeline of an older record), the other
// side's are dropped too, so that kernels are matched by name alone.
void align_configurations(ComparedRun& before, ComparedRun& after);

// RESULT's program verdicts are set; this adds the program and match warnings and the PC
// samples' comparison.
void add_comparison_context(const ComparedRun& before, const ComparedRun& after, RunComparison& result);

}  // namespace limiter::detail
