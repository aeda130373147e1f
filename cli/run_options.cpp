#include "run_options.hpp"

#include <filesystem>

#include "options.hpp"
#include "run_flag_options.hpp"

namespace limiter::cli {

bool parse_run_flags(const Args& ours, RunFlags& flags) {
  po::options_description visible("options");
  std::string output;
  visible.add_options()("output,o", po::value(&output)->default_value("limiter_%p.json"),
                        "run record per process; %p = pid of the process that writes (a forked child writes none; a "
                        "process that starts CUDA itself, spawned or exec'd, writes its own, named by its pid when the "
                        "name is taken), %h = host, %r = rank in a job, %q{ENV} = an environment value. "
                        "By default a rank of a job (torchrun, mpirun, srun) writes limiter_rank<N>.json");
  add_table_flags(visible);  // what the collector does: one row each (limiter/run_flags.hpp)
  visible.add_options()("timing", po::bool_switch(&flags.timing), "print where the collector's time went, per launch")(
      "fail-on-missed", po::bool_switch(&flags.fail_on_missed),
      "exit with code 5 when launches could not be profiled (busy GPU, no turn, a crash), after the app's own code")(
      "quiet,q", po::bool_switch(&flags.quiet), "no live progress and no summary table at the end");
  po::positional_options_description positional;
  po::variables_map vm;
  if (!parse_options(ours, "limiter run [options] -- app [args...]", visible, positional, vm, nullptr,
                     table_variables_help()))
    return false;

  CollectorOptions& o = flags.collector;
  o = table_options(vm);
  o.nvtx = o.nvtx && !o.sampling;  // sampled aggregates carry no NVTX ranges
  o.always_active = !o.profiler_api_regions;
  if (!o.raw_dir.empty()) o.raw_dir = std::filesystem::absolute(o.raw_dir).string();  // the app may change directory
  validate_collector_options(o);
  flags.output = output;
  flags.output_is_default = vm["output"].defaulted();
  return true;
}

}  // namespace limiter::cli
