#include "selection_options.hpp"

namespace limiter::cli {

void add_selection_options(po::options_description& description, SelectionArgs& args, const char* top_help) {
  description.add_options()("kernel-regex,k", po::value(&args.kernel_regex),
                            "only launches whose demangled name matches REGEX (ECMAScript, searched: -k 'gemm|conv')")(
      "top", po::value(&args.top)->default_value(kDefaultTop), top_help)(
      "names", po::value(&args.names)->default_value("short"),
      "short (the function's own name and what tells kernels apart), demangled or mangled")(
      "launches", po::bool_switch(&args.launches), "one row per launch instead of one per kernel and configuration");
}

std::size_t top_for(const SelectionArgs& args, const po::variables_map& vm, ReportFormat format) {
  const bool data_format = format == ReportFormat::csv || format == ReportFormat::json;
  return data_format && vm["top"].defaulted() ? 0 : args.top;
}

}  // namespace limiter::cli
