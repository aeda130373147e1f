#pragma once
// The program verdict as an HTML fragment (a <section>, no script, styles inline), for the HTML
// reports to place first on the page; empty for a summary without a program verdict.
#include <string>

#include "limiter/run_summary.hpp"

namespace limiter::render {

std::string program_html_section(const RunSummary& summary);

}  // namespace limiter::render
