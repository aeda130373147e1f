#pragma once
// limiter run's flags: what the collector is to do becomes one CollectorOptions value, from the
// table of flags (limiter/run_flags.hpp), checked once by validate_collector_options; the rest is
// limiter run's own (its output, summary, exit).
#include <string>

#include "commands.hpp"
#include "limiter/collector_options.hpp"

namespace limiter::cli {

struct RunFlags {
  CollectorOptions collector;
  std::string output;             // the -o pattern (%p, %h, %r, %q{ENV})
  bool output_is_default = true;  // a rank of a job then names its record by its rank
  bool quiet = false, timing = false, fail_on_missed = false;
};

// Parses limiter run's own arguments (those before "--"). False after --help. Throws InputError
// on a bad flag or value, or a combination validate_collector_options refuses. A flag not given
// takes its variable's value from limiter run's own environment (LIMITER_PER_KERNEL_COUNT for
// --per-kernel-count), then its default; the knobs without a flag (LIMITER_DEBUG, ...) come from
// the environment alone (run_flag_options.hpp).
bool parse_run_flags(const Args& ours, RunFlags& flags);

}  // namespace limiter::cli
