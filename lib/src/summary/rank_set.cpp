// A set of records is one job's ranks only when every record says so through its rank fields
// (RunRecord::rank: launcher, world size, rank). Records of unrelated runs are still reported
// side by side, as records, never as ranks that shared a GPU.
#include "summary/rank_set.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

namespace limiter::detail {
namespace {

std::string count_of(std::size_t count, const std::string& one, const std::string& many) {
  return std::to_string(count) + " " + (count == 1 ? one : many);
}

std::string rank_list(const std::vector<int>& ranks) {
  std::string text;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (i == 6) return text + ", ... (" + std::to_string(ranks.size()) + " in all)";
    text += (i ? ", " : "") + std::to_string(ranks[i]);
  }
  return text;
}

}  // namespace

std::string why_not_one_job(const std::vector<RankRun>& ranks) {
  std::size_t unranked = 0;
  std::set<std::string> launchers;
  std::set<int> world_sizes, seen;
  std::vector<int> twice;
  for (const auto& r : ranks) {
    if (!r.rank) {
      ++unranked;
      continue;
    }
    launchers.insert(r.rank->launcher);
    world_sizes.insert(r.rank->world_size);
    if (!seen.insert(r.rank->rank).second) twice.push_back(r.rank->rank);
  }
  if (unranked > 0)
    return count_of(unranked, "record names", "records name") + " no rank (not run under torchrun, mpirun or srun)";
  if (launchers.size() > 1) return "the records name different launchers";
  if (world_sizes.size() > 1)
    return "the records name different world sizes (" + rank_list({world_sizes.begin(), world_sizes.end()}) + ")";
  if (!twice.empty()) return std::string(twice.size() == 1 ? "rank " : "ranks ") + rank_list(twice) + " more than once";
  return "";
}

void order_and_label(std::vector<RankRun>& ranks, bool one_job) {
  if (one_job) {
    // value_or: every rank is set here (one_job), but GCC's -Wmaybe-uninitialized cannot see it.
    const auto rank_of = [](const RankRun& r) { return r.rank.value_or(RankInfo{}).rank; };
    std::stable_sort(ranks.begin(), ranks.end(),
                     [&](const RankRun& a, const RankRun& b) { return rank_of(a) < rank_of(b); });
    for (auto& r : ranks) r.label = std::to_string(r.rank->rank);
    return;
  }
  std::stable_sort(ranks.begin(), ranks.end(), [](const RankRun& a, const RankRun& b) { return a.path < b.path; });
  for (auto& r : ranks) r.label = std::filesystem::path(r.path).filename().string();
}

std::vector<std::string> set_notes(const std::vector<RankRun>& ranks, bool one_job) {
  std::vector<std::string> notes;
  if (one_job && !ranks.empty()) {
    std::set<int> present;
    for (const auto& r : ranks) present.insert(r.rank->rank);
    const int world_size = ranks.front().rank->world_size;
    std::vector<int> absent;
    for (int rank = 0; rank < world_size; ++rank)
      if (!present.count(rank)) absent.push_back(rank);
    if (!absent.empty()) {
      notes.push_back(std::string(absent.size() == 1 ? "rank " : "ranks ") + rank_list(absent) + " of " +
                      std::to_string(world_size) + " have no record here: figures over ranks leave them out");
    }
  }
  std::map<std::string, std::vector<std::string>> ranks_by_gpu;
  std::set<std::string> models;
  for (const auto& r : ranks) {
    models.insert(r.summary.run.device.name);
    if (!r.summary.run.device.uuid.empty()) ranks_by_gpu[r.summary.run.device.uuid].push_back(r.label);
  }
  if (models.size() > 1) notes.push_back("the records ran on GPUs of different models: their times are not alike");
  for (const auto& [uuid, labels] : ranks_by_gpu) {
    if (!one_job || labels.size() < 2) continue;
    std::string shared;
    for (const auto& label : labels) shared += (shared.empty() ? "" : ", ") + label;
    notes.push_back("ranks " + shared + " shared one GPU (" + uuid +
                    "): their kernels ran side by side and their "
                    "profiled launches one process at a time");
  }
  const std::string member = one_job ? "rank " : "";
  for (const auto& r : ranks) {
    std::uint64_t missed = 0;
    for (const auto& m : r.summary.run.missed) missed += m.launches;
    if (missed > 0) {
      notes.push_back(member + r.label + ": " + std::to_string(missed) + " launches NOT profiled (`limiter report " +
                      r.path + "` says why)");
    }
    if (!r.summary.run.ended.empty() && r.summary.run.ended != "exit")
      notes.push_back(member + r.label + " ended by " + r.summary.run.ended +
                      ": its record may lack its last launches");
  }
  return notes;
}

}  // namespace limiter::detail
