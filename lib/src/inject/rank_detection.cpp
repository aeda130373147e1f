#include "inject/rank_detection.hpp"

#include <charconv>
#include <cstdlib>
#include <cstring>

namespace limiter::detail {
namespace {

struct LauncherVariables {
  const char* launcher;
  const char* rank;
  const char* world_size;
  const char* local_rank;
};

constexpr LauncherVariables kLaunchers[] = {
    {"torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK"},
    {"open-mpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"},
    {"pmi", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"},
    {"slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
};

// A whole non-negative decimal number, or nothing.
std::optional<int> whole_number(const char* text) {
  if (!text || !*text) return std::nullopt;
  int value = 0;
  const char* end = text + std::strlen(text);
  const auto [stop, error] = std::from_chars(text, end, value);
  if (error != std::errc() || stop != end || value < 0) return std::nullopt;
  return value;
}

}  // namespace

std::optional<RankInfo> detect_rank(const EnvironmentLookup& lookup) {
  const auto value = [&](const char* name) -> const char* { return lookup ? lookup(name) : std::getenv(name); };
  for (const auto& launcher : kLaunchers) {
    const auto rank = whole_number(value(launcher.rank));
    const auto world_size = whole_number(value(launcher.world_size));
    if (!rank || !world_size || *rank >= *world_size) continue;
    RankInfo info;
    info.rank = *rank;
    info.world_size = *world_size;
    info.local_rank = whole_number(value(launcher.local_rank));
    info.launcher = launcher.launcher;
    return info;
  }
  return std::nullopt;
}

}  // namespace limiter::detail
