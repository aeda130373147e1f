// What a comparison says beside its kernel rows: names that two tools spell differently matched
// (an ncu export against limiter's record), a warning when the records ran different programs or
// few launches found a partner, and each kernel's PC samples on both sides.
#include "analysis/compare_context.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "analysis/kernel_name_key.hpp"

namespace limiter::detail {
namespace {

// The kernel names a run holds: of its launches and of its PC samples. Launches' names are
// interned, so each is told by its address first: hashing a template name of hundreds of
// characters for each of a million launches is not free.
std::vector<std::string_view> kernel_names(const ComparedRun& run) {
  std::unordered_set<std::string_view> names;
  std::unordered_set<const char*> seen;
  for (const auto& launch : run.launches)
    if (seen.insert(launch.name.data()).second) names.insert(launch.name);
  if (run.stalls)
    for (const auto& kernel : run.stalls->kernels) names.insert(kernel.name);
  return {names.begin(), names.end()};
}

// What the command ran: its first script argument (python3 train.py), else the executable, by
// file name (the same program lies in other folders on other machines).
std::string program_of(const std::vector<std::string>& command) {
  const auto file_name = [](const std::string& path) { return std::filesystem::path(path).filename().string(); };
  for (const auto& argument : command)
    for (const char* script : {".py", ".sh", ".pl", ".rb", ".jl", ".js"})
      if (argument.ends_with(script)) return file_name(argument);
  return command.empty() ? "" : file_name(command.front());
}

std::string command_text(const std::vector<std::string>& command) {
  std::string text;
  for (const auto& argument : command) text += (text.empty() ? "" : " ") + argument;
  return text.size() > 60 ? text.substr(0, 57) + "..." : text;
}

std::string program_warning(const ComparedRun& before, const ComparedRun& after) {
  const auto before_names = kernel_names(before), after_names = kernel_names(after);
  if (before_names.empty() || after_names.empty()) return "";
  const std::unordered_set<std::string_view> after_set(after_names.begin(), after_names.end());
  const std::size_t shared = static_cast<std::size_t>(std::count_if(
      before_names.begin(), before_names.end(), [&](std::string_view name) { return after_set.contains(name); }));
  const std::size_t fewer = std::min(before_names.size(), after_names.size());
  const std::string before_program = program_of(before.command_line), after_program = program_of(after.command_line);
  const bool other_command = !before_program.empty() && !after_program.empty() && before_program != after_program;
  // A changed script that runs the same kernels is what a comparison is for; few shared kernels
  // are not, and fewer than 4 in 5 with another program named is suspect.
  if (!(2 * shared < fewer || (other_command && 5 * shared < 4 * fewer))) return "";
  std::string text = other_command ? "before ran `" + command_text(before.command_line) + "`, after `" +
                                         command_text(after.command_line) + "`; they share "
                                   : "the records share ";
  return text + count_text(shared) + " of " + count_text(fewer) +
         " kernel names: they look like different programs, so their times say little about one change";
}

std::string match_warning(const RunComparison& result) {
  std::uint64_t before_all = 0, after_all = 0, before_matched = 0, after_matched = 0;
  for (std::uint64_t count : result.before_counts) before_all += count;
  for (std::uint64_t count : result.after_counts) after_all += count;
  for (const auto& row : result.kernels) {
    before_matched += result.before_counts[row.group];
    after_matched += result.after_counts[row.group];
  }
  if (before_all == 0 || after_all == 0 || (2 * before_matched >= before_all && 2 * after_matched >= after_all))
    return "";
  return "only " + count_text(before_matched) + " of " + count_text(before_all) + " launches before and " +
         count_text(after_matched) + " of " + count_text(after_all) +
         " after found their kernel and configuration on the other side: check that both ran the same program and "
         "inputs, or compare one kernel with -k";
}

// The stall reason with most of KERNEL's samples ("selected" issued: not a stall), and its share.
std::pair<std::string, std::optional<double>> main_reason(const KernelStalls& kernel) {
  std::string reason;
  std::uint64_t most = 0;
  for (const auto& [name, samples] : kernel.reasons)
    if (name != "selected" && samples > most) {
      reason = name;
      most = samples;
    }
  if (reason.empty() || kernel.samples == 0) return {"", std::nullopt};
  return {reason, static_cast<double>(most) / static_cast<double>(kernel.samples)};
}

std::vector<SampledKernelComparison> compare_samples(const StallInfo& before, const StallInfo& after) {
  std::map<std::string, SampledKernelComparison> rows;
  const auto share = [](std::uint64_t part, std::uint64_t whole) {
    return whole > 0 ? std::optional<double>(static_cast<double>(part) / static_cast<double>(whole)) : std::nullopt;
  };
  const auto add = [&](const StallInfo& side, bool is_before) {
    for (const auto& kernel : side.kernels) {
      auto& row = rows[kernel.name];
      row.name = kernel.name;
      auto& samples = is_before ? row.before_samples : row.after_samples;
      samples += kernel.samples;
      (is_before ? row.before_share : row.after_share) = share(samples, side.samples);
      std::tie(is_before ? row.before_reason : row.after_reason,
               is_before ? row.before_reason_share : row.after_reason_share) = main_reason(kernel);
    }
  };
  add(before, true);
  add(after, false);
  std::vector<SampledKernelComparison> sorted;
  for (auto& [name, row] : rows) sorted.push_back(std::move(row));
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return std::max(a.before_share.value_or(0), a.after_share.value_or(0)) >
           std::max(b.before_share.value_or(0), b.after_share.value_or(0));
  });
  return sorted;
}

std::string configuration_key(std::string_view base, const Dim3& grid, const Dim3& block) {
  std::string key(base);
  for (std::uint32_t v : {grid.x, grid.y, grid.z, block.x, block.y, block.z}) key += "," + std::to_string(v);
  return key;
}

// The kernels whose names still differ, matched by base name and configuration where that names
// one kernel on each side: ncu prints template arguments in ways no key undoes (`const T1 &` for
// the type it stands for), but a launch configuration tells instantiations apart. Returns how
// many of AFTER's names were renamed.
std::size_t match_by_configuration(const ComparedRun& before, ComparedRun& after) {
  const auto before_names = kernel_names(before), after_names = kernel_names(after);
  const std::unordered_set<std::string_view> in_before(before_names.begin(), before_names.end());
  const std::unordered_set<std::string_view> in_after(after_names.begin(), after_names.end());
  if (std::all_of(after_names.begin(), after_names.end(), [&](std::string_view n) { return in_before.contains(n); }))
    return 0;
  std::unordered_map<std::string_view, std::string> base;  // each unmatched name's base key, once
  const auto key_of = [&](const ComparedLaunch& k, const std::unordered_set<std::string_view>& other) -> std::string {
    if (other.contains(k.name)) return "";
    auto [entry, added] = base.try_emplace(k.name);
    if (added) entry->second = kernel_base_key(k.name);
    return configuration_key(entry->second, k.grid, k.block);
  };
  std::unordered_map<std::string, std::unordered_set<std::string_view>> before_keys, after_keys;
  for (const auto& k : before.launches)
    if (auto key = key_of(k, in_after); !key.empty()) before_keys[key].insert(k.name);
  for (const auto& k : after.launches)
    if (auto key = key_of(k, in_before); !key.empty()) after_keys[key].insert(k.name);
  std::unordered_map<std::string, std::string_view> target;  // key -> BEFORE's name, AFTER's interned
  for (const auto& [key, names] : after_keys) {
    const auto found = before_keys.find(key);
    if (names.size() == 1 && found != before_keys.end() && found->second.size() == 1)
      target.emplace(key, after.names->intern(*found->second.begin()));
  }
  std::unordered_set<std::string_view> renamed;
  for (auto& k : after.launches) {
    if (in_before.contains(k.name)) continue;
    const auto found = target.find(key_of(k, in_before));
    if (found == target.end()) continue;
    renamed.insert(k.name);
    k.name = found->second;
  }
  return renamed.size();
}

}  // namespace

void align_configurations(ComparedRun& before, ComparedRun& after) {
  const auto unconfigured = [](const ComparedRun& run) {
    return !run.launches.empty() && std::all_of(run.launches.begin(), run.launches.end(),
                                                [](const ComparedLaunch& k) { return k.block.count() == 0; });
  };
  const bool before_unknown = unconfigured(before), after_unknown = unconfigured(after);
  if (before_unknown == after_unknown) return;
  for (auto& launch : (before_unknown ? after : before).launches) launch.grid = launch.block = Dim3{0, 0, 0};
}

std::size_t align_kernel_names(const ComparedRun& before, ComparedRun& after) {
  const auto matches = match_kernel_names(kernel_names(before), kernel_names(after));
  if (matches.empty()) return match_by_configuration(before, after);
  // Each launch's name is looked up by its address: the names are interned, and hashing a
  // template name of hundreds of characters for each of a million launches is not free.
  std::unordered_map<const char*, std::string_view> renamed;
  for (auto& launch : after.launches) {
    auto [entry, added] = renamed.try_emplace(launch.name.data(), launch.name);
    if (added) {
      if (const auto match = matches.find(launch.name); match != matches.end())
        entry->second = after.names->intern(match->second);
    }
    launch.name = entry->second;
  }
  for (auto& seen : after.kernels_seen)
    if (const auto match = matches.find(seen.name); match != matches.end()) seen.name = std::string(match->second);
  if (after.stalls)
    for (auto& kernel : after.stalls->kernels)
      if (const auto match = matches.find(kernel.name); match != matches.end())
        kernel.name = std::string(match->second);
  return matches.size() + match_by_configuration(before, after);
}

void add_comparison_context(const ComparedRun& before, const ComparedRun& after, RunComparison& result) {
  result.program_warning = program_warning(before, after);
  if (result.program_warning.empty()) result.match_warning = match_warning(result);
  if (before.stalls && after.stalls && !before.stalls->kernels.empty() && !after.stalls->kernels.empty()) {
    result.samples = compare_samples(*before.stalls, *after.stalls);
    result.before_samples = before.stalls->samples;
    result.after_samples = after.stalls->samples;
  }
}

}  // namespace limiter::detail
