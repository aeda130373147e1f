#include "record_sets.hpp"

#include <glob.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "limiter/error.hpp"
#include "limiter/record_stream.hpp"
#include "run_input.hpp"

namespace limiter::cli {
namespace {

namespace fs = std::filesystem;

bool has_glob_characters(const std::string& text) { return text.find_first_of("*?[") != std::string::npos; }

// A run record in a directory: a .json whose opening says so (reports written beside the
// records are left alone), or a compressed .json.gz.
bool is_record_in_directory(const fs::path& path) {
  const std::string name = path.filename().string();
  if (name.ends_with(".json.gz")) return true;
  if (!name.ends_with(".json")) return false;
  std::ifstream in(path, std::ios::binary);
  std::string opening(512, '\0');
  in.read(opening.data(), static_cast<std::streamsize>(opening.size()));
  opening.resize(static_cast<std::size_t>(in.gcount()));
  return opening.find("\"limiter-run\"") != std::string::npos;
}

std::vector<std::string> records_in_directory(const std::string& directory) {
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator(directory))
    if (entry.is_regular_file() && is_record_in_directory(entry.path())) found.push_back(entry.path().string());
  if (found.empty())
    throw InputError("'" + directory + "' holds no run record (.json from `limiter run`, or .json.gz)");
  std::sort(found.begin(), found.end());
  return found;
}

std::vector<std::string> glob_matches(const std::string& pattern) {
  glob_t matches{};
  const int status = glob(pattern.c_str(), 0, nullptr, &matches);
  std::vector<std::string> found;
  if (status == 0)
    for (std::size_t i = 0; i < matches.gl_pathc; ++i) found.emplace_back(matches.gl_pathv[i]);
  globfree(&matches);
  if (found.empty()) throw InputError("no file matches '" + pattern + "'");
  return found;  // glob sorts them
}

}  // namespace

std::vector<std::string> expand_record_arguments(const std::vector<std::string>& arguments) {
  std::vector<std::string> paths;
  std::set<std::string> seen;
  for (const auto& argument : arguments) {
    std::vector<std::string> named;
    if (fs::is_directory(argument))
      named = records_in_directory(argument);
    else if (!fs::exists(argument) && has_glob_characters(argument))
      named = glob_matches(argument);
    else
      named = {argument};
    for (auto& path : named)
      if (seen.insert(fs::weakly_canonical(path).string()).second) paths.push_back(std::move(path));
  }
  return paths;
}

std::string record_of_rank(const std::vector<std::string>& paths, int rank) {
  std::string ranks;
  for (const auto& path : paths) {
    if (!is_run_record(path)) continue;
    const RunRecord header = read_run_header(path, TimelineEvents::skipped);
    if (!header.rank) continue;
    if (header.rank->rank == rank) return path;
    ranks += (ranks.empty() ? "" : ", ") + std::to_string(header.rank->rank);
  }
  throw InputError("--rank " + std::to_string(rank) + ": no record of that rank among the " +
                   std::to_string(paths.size()) + " given" +
                   (ranks.empty() ? " (none names a rank)" : " (ranks: " + ranks + ")"));
}

}  // namespace limiter::cli
