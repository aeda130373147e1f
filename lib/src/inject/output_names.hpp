#pragma once
// Output names as ncu spells them, so every process of a job gets its own file:
// %p = process id, %h = host name, %q{NAME} = the value of environment variable NAME
// (e.g. %q{OMPI_COMM_WORLD_RANK}), %r = this process's rank in its job (rank_detection.hpp),
// %% = a percent sign.
#include <optional>
#include <string>

#include "limiter/record.hpp"

namespace limiter::detail {

// `limiter run`'s default output, and the one it becomes in a rank of a job.
inline constexpr const char* kDefaultOutput = "limiter_%p.json";
inline constexpr const char* kDefaultRankOutput = "limiter_rank%r.json";

// Throws InputError on a bad pattern, and on %r in a process that is no rank of a job.
std::string expand_output_name(const std::string& pattern, const std::optional<RankInfo>& rank = std::nullopt);

// The pattern a process writes to. A rank of a job given the default name (in PATTERN's
// folder) is named by its rank instead, so that the records of a job read as one set.
std::string output_pattern_for(const std::string& pattern, bool is_default, const std::optional<RankInfo>& rank);

// True when PATTERN gives each process of a job its own name (%p, %r or %q{...}); a rank
// writing to a fixed name would overwrite the others' records.
bool names_each_process(const std::string& pattern);

// Several processes of one `limiter run` (a spawned worker, a program a child execs) may be
// given the same name: the first to claim it in SESSION_DIR writes it; claim_output_name
// returns the name this process writes: OUTPUT when the claim succeeds (or there is no
// session), else per_process_name(OUTPUT, pid).
std::string claim_output_name(const std::string& session_dir, const std::string& output);

// OUTPUT with "_PID" before its extension: run.json -> run_123.json, run.json.gz -> run_123.json.gz.
std::string per_process_name(const std::string& output, long pid);

}  // namespace limiter::detail
