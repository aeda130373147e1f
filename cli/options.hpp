#pragma once
// Shared helpers for subcommand option parsing.
#include <functional>
#include <iosfwd>
#include <string>

#include <boost/program_options.hpp>

#include "commands.hpp"

namespace limiter::cli {

namespace po = boost::program_options;

// Parses args into vm. Returns false (after printing usage, the description and HELP_EPILOGUE)
// when --help was given. Unknown options and bad values become InputError naming the option.
bool parse_options(const Args& args, const std::string& usage, const po::options_description& visible,
                   const po::positional_options_description& positional, po::variables_map& vm,
                   const po::options_description* hidden = nullptr, const std::string& help_epilogue = "");

// Writes `text_writer` output to FILE, or to stdout when path is empty or "-".
// The file is written to a temporary name and renamed, so a failure leaves no half file.
void write_output(const std::string& path, const std::string& content);
// The same for content written by WRITE as it goes (a report of millions of launches).
void write_output(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace limiter::cli
