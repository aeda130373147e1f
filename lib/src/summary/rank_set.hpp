#pragma once
// What a set of records is (rank_set.cpp): the ranks of one job only when their rank fields say
// so, and what a reader must know about it.
#include <string>
#include <vector>

#include "limiter/rank_summary.hpp"

namespace limiter::detail {

// Why RANKS are not the ranks of one job ("2 records name no rank", "rank 0 twice", ...); empty
// when they are: every record names a rank, all the same launcher and world size, no rank twice.
std::string why_not_one_job(const std::vector<RankRun>& ranks);

// Ranks in rank order for one job; else records by path. Labels: the rank, or the file name.
void order_and_label(std::vector<RankRun>& ranks, bool one_job);

// The set's notes: ranks without a record, GPUs of different models, ranks sharing one GPU (of
// one job only: two unrelated runs may well have used the same GPU), launches not profiled.
std::vector<std::string> set_notes(const std::vector<RankRun>& ranks, bool one_job);

}  // namespace limiter::detail
