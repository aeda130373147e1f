#pragma once
// The program verdict as an HTML fragment (a <section id="program">, no script, styles inline),
// for the HTML reports to place first on the page, before the time by verdict: the verdict and
// its reason, a bar of the window's time by part, the advice, "what to fix first" with the
// program's fixes ranked among the kernels, and the NVTX ranges' verdicts. Empty for a summary
// without a program verdict (a record without a timeline), so the page stays as it was.
#include <string>

#include "limiter/run_summary.hpp"

namespace limiter::render {

std::string program_html_section(const RunSummary& summary);

}  // namespace limiter::render
