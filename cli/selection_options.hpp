#pragma once
// The options `report` and `compare` share: which kernels (-k), how many rows (--top), which
// names (--names) and whether one row per launch (--launches).
#include <cstddef>
#include <string>

#include "limiter/reports.hpp"
#include "limiter/run_summary.hpp"
#include "options.hpp"

namespace limiter::cli {

struct SelectionArgs {
  std::string kernel_regex;
  std::size_t top = kDefaultTop;
  std::string names = "short";
  bool launches = false;
};

// Adds -k, --top, --names and --launches to DESCRIPTION; TOP_HELP says what --top counts.
void add_selection_options(po::options_description& description, SelectionArgs& args, const char* top_help);

// --top given on the command line, or the default for FORMAT: every launch for csv and json.
std::size_t top_for(const SelectionArgs& args, const po::variables_map& vm, ReportFormat format);

}  // namespace limiter::cli
