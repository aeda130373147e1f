#pragma once
// limiter run's table of flags (limiter/run_flags.hpp) on the command line: the Boost options
// generated from its rows, the options the flags and limiter run's own environment give, and
// --help's lines on the variables.
#include <string>

#include <boost/program_options.hpp>

#include "limiter/run_flags.hpp"

namespace limiter::cli {

namespace po = boost::program_options;

// Every flag of the table, its value kept as text; a default is shown as Boost shows one.
void add_table_flags(po::options_description& description);

// The collector's options: each flag given in VM, else its variable (or older name) in LOOKUP,
// limiter run's own environment, else its default; the knobs from LOOKUP alone. The internal
// rows (the command line, ...) are left for limiter run to fill. Throws InputError, one line,
// on a malformed value; not validated (validate_collector_options).
CollectorOptions table_options(const po::variables_map& vm, const EnvironmentLookup& lookup = {});

// --help's closing lines: how a variable sets a flag, the older names, and the knobs.
std::string table_variables_help();

}  // namespace limiter::cli
