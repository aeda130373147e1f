#pragma once
// Several run records on the command line: the records of a job's ranks, given as files,
// globs ('runs/limiter_rank*.json', quoted or expanded by the shell) or a directory (every
// run record in it, .json or .json.gz).
#include <optional>
#include <string>
#include <vector>

namespace limiter::cli {

// The files ARGUMENTS name, in order, each once. Throws InputError for a glob that matches
// nothing, a directory without run records, or a path that does not exist.
std::vector<std::string> expand_record_arguments(const std::vector<std::string>& arguments);

// Of PATHS (run records), the one of rank RANK. Throws InputError listing the ranks there are.
std::string record_of_rank(const std::vector<std::string>& paths, int rank);

}  // namespace limiter::cli
