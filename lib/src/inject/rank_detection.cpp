#include "inject/rank_detection.hpp"

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>

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

bool started_by_its_rank(const RankInfo& rank, const EnvironmentLookup& parent) {
  const std::optional<RankInfo> parents =
      detect_rank(parent ? parent : [](const char*) -> const char* { return nullptr; });
  return parents && parents->launcher == rank.launcher && parents->rank == rank.rank &&
         parents->world_size == rank.world_size;
}

EnvironmentLookup environment_of_process(int pid) {
  auto variables = std::make_shared<std::map<std::string, std::string>>();
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\0', start);
    if (end == std::string::npos) end = text.size();
    const std::string entry = text.substr(start, end - start);
    if (const auto equals = entry.find('='); equals != std::string::npos)
      variables->emplace(entry.substr(0, equals), entry.substr(equals + 1));
    start = end + 1;
  }
  return [variables](const char* name) -> const char* {
    const auto found = variables->find(name);
    return found == variables->end() ? nullptr : found->second.c_str();
  };
}

}  // namespace limiter::detail
