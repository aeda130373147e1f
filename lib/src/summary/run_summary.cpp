// Groups of launches summarised as they arrive: one accumulator per kernel and launch
// configuration, found through a hash map, so a million launches cost one pass and flat memory.
#include "limiter/run_summary.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>

#include "limiter/error.hpp"
#include "summary/display_names.hpp"
#include "summary/group_index.hpp"
#include "summary/timeline_kernels.hpp"

namespace limiter {
namespace {

// A mean weighted by time, falling back to a plain mean when the group has no timed launch.
struct WeightedMean {
  double time_sum = 0, time_weight = 0, plain_sum = 0;
  std::size_t count = 0;
  void add(const std::optional<double>& value, const std::optional<double>& duration_ns) {
    if (!value) return;
    ++count;
    plain_sum += *value;
    if (duration_ns) {
      time_sum += *value * *duration_ns;
      time_weight += *duration_ns;
    }
  }
  std::optional<double> value() const {
    if (time_weight > 0) return time_sum / time_weight;
    if (count > 0) return plain_sum / static_cast<double>(count);
    return std::nullopt;
  }
};

// Which of several labels holds most of the time (most launches when nothing is timed).
struct Tally {
  double time = 0;
  std::size_t count = 0;
  bool beats(const Tally& other, bool timed) const { return timed ? time > other.time : count > other.count; }
};

std::size_t verdict_slot(const std::optional<Verdict>& verdict) {
  if (!verdict) return 3;
  switch (*verdict) {
    case Verdict::bandwidth:
      return 0;
    case Verdict::instruction:
      return 1;
    case Verdict::latency:
      return 2;
  }
  return 3;
}

const std::array<std::optional<Verdict>, 4> kVerdictSlots = {Verdict::bandwidth, Verdict::instruction, Verdict::latency,
                                                             std::nullopt};

}  // namespace

struct SummaryBuilder::Accumulator {
  KernelSummary group;
  std::size_t name_id = 0;  // GroupIndex::names: the ranges' kernels are tallied by it
  WeightedMean issue, l2, dram, memory, compute, lmem_l2, lmem_instructions, occupancy;
  std::array<Tally, 4> verdict_time;
  std::map<std::string, Tally> unit_time;
  std::optional<KernelLaunch> longest_raw;  // to explain at finish(), when analysed without words
};

struct SummaryBuilder::GroupIndex : detail::GroupIndex {};

struct SummaryBuilder::RangeAccumulator {
  NvtxRangeSummary range;
  std::array<Tally, 4> verdict_time;
  std::unordered_map<std::size_t, Tally> kernel_time;  // by demangled name (GroupIndex::names)
};

std::regex kernel_name_regex(const std::string& pattern) {
  try {
    return std::regex(pattern, std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error& e) {
    throw InputError("-k '" + pattern + "' is not a valid regular expression: " + e.what());
  }
}

std::string RunSummary::group_key(const std::string& name, const Dim3& grid, const Dim3& block) {
  std::string key = name;
  for (std::uint32_t value : {grid.x, grid.y, grid.z, block.x, block.y, block.z}) key += '\x1f' + std::to_string(value);
  return key;
}

bool RunSummary::has_repeated_launches() const {
  return std::any_of(groups.begin(), groups.end(), [](const KernelSummary& g) { return g.launches > 1; });
}

const std::string& RunSummary::display_name(const std::string& name) const {
  const auto found = display_names.find(name);
  return found == display_names.end() ? name : found->second;
}

std::size_t RunSummary::group_of(const KernelAnalysis& launch) const {
  return group_index.at(group_key(launch.name, launch.grid, launch.block));
}

std::optional<double> RunSummary::share_of_run(const std::optional<double>& duration_ns) const {
  if (!duration_ns || total_ns <= 0) return std::nullopt;
  return *duration_ns / total_ns;
}

SummaryBuilder::SummaryBuilder(SummaryOptions options)
    : options_(std::move(options)), group_index_(std::make_unique<GroupIndex>()) {
  selection_ = KernelSelection(options_.kernel_regex);
  summary_.kernel_regex = options_.kernel_regex;
  summary_.names = options_.names;
}

SummaryBuilder::~SummaryBuilder() = default;

void SummaryBuilder::start(const RunAnalysis& run) {
  summary_.run.device = run.device;
  summary_.run.source = run.source;
  summary_.run.counter_model = run.counter_model;
  summary_.run.peaks = run.peaks;
  summary_.run.peaks_origin = run.peaks_origin;
  summary_.run.thresholds = run.thresholds;
  summary_.run.missed = run.missed;
  summary_.run.ended = run.ended;
  summary_.run.phases = run.phases;
  summary_.run.cache_control = run.cache_control;
  summary_.run.launches_seen = run.launches_seen;
  summary_.run.kernels_seen = run.kernels_seen;
  summary_.run.host = run.host;
  summary_.run.rank = run.rank;
  summary_.run.stall_sampling = run.stall_sampling;
}

void SummaryBuilder::explain_longest_with(std::function<KernelAnalysis(const KernelLaunch&)> explain) {
  explain_ = std::move(explain);
}

void SummaryBuilder::add(KernelAnalysis&& launch, const std::string& mangled_name, const KernelLaunch* raw) {
  // A sampled entry (PM-sampling mode) stands for all the launches of its kernel and configuration.
  const std::uint64_t launches = launch.sampled ? std::max<std::uint64_t>(launch.sampled->launches, 1) : 1;
  summary_.launches += launches;
  if (launch.duration_ns) {
    summary_.timed_launches += launches;
    summary_.total_ns += *launch.duration_ns;
  }
  if (!selection_.selects(launch.name, mangled_name)) return;
  summary_.selected_launches += launches;

  auto slot = group_index_->slots.find(GroupIndex::KeyView{launch.name, launch.grid, launch.block});
  if (slot == group_index_->slots.end()) {
    accumulators_.emplace_back();
    auto& group = accumulators_.back().group;
    group.name = launch.name;
    group.mangled_name = mangled_name;
    group.grid = launch.grid;
    group.block = launch.block;
    group.first_sequence = launch.sequence;
    const auto [name, added] = group_index_->name_ids.try_emplace(launch.name, group_index_->names.size());
    if (added) group_index_->names.push_back(launch.name);
    accumulators_.back().name_id = name->second;
    slot = group_index_->slots.emplace(GroupIndex::Key{group.name, group.grid, group.block}, accumulators_.size() - 1)
               .first;
  }
  Accumulator& a = accumulators_[slot->second];
  add_to_range(launch, a.name_id);
  KernelSummary& group = a.group;
  const auto& duration = launch.duration_ns;
  group.launches += launches;
  if (launch.sampled)
    group.durations.add_aggregate(duration, launches);
  else
    group.durations.add(duration);
  for (std::uint64_t i = 0; i < launches; ++i) group.verdicts.add(launch.verdict);  // one verdict for them all
  Tally& verdict = a.verdict_time[verdict_slot(launch.verdict)];
  verdict.time += duration.value_or(0);
  verdict.count += launches;
  Tally& unit = a.unit_time[launch.limiting_unit];
  unit.time += duration.value_or(0);
  ++unit.count;
  a.issue.add(launch.utilization.issue, duration);
  a.l2.add(launch.utilization.l2, duration);
  a.dram.add(launch.utilization.dram, duration);
  a.memory.add(launch.utilization.memory(), duration);
  a.compute.add(launch.utilization.compute(), duration);
  a.lmem_l2.add(launch.lmem.l2_share, duration);
  a.lmem_instructions.add(launch.lmem.instruction_share, duration);
  if (launch.occupancy.theoretical) a.occupancy.add(launch.occupancy.theoretical->occupancy, duration);
  group.lmem_l2_share_is_upper_bound = group.lmem_l2_share_is_upper_bound || launch.lmem.l2_share_is_upper_bound;
  if (!group.stalls) group.stalls = launch.stalls;  // by name: every launch of the group has the same

  note_if_longest(launch);
  const bool longest = group.launches == 1 || launch.duration_ns.value_or(-1) > group.longest.duration_ns.value_or(-1);
  if (longest) {  // a copy of the launch, rarely: a group's longest changes O(log n) times in n launches
    if (raw && explain_)
      a.longest_raw = *raw;
    else
      a.longest_raw.reset();
  }
  if (options_.keep_launches && !summary_.launches_dropped &&
      summary_.selected_launches > options_.keep_launches_up_to) {
    summary_.launches_dropped = true;
    summary_.run.kernels = {};
  }
  if (options_.keep_launches && !summary_.launches_dropped) {
    if (longest) group.longest = launch;
    summary_.run.kernels.push_back(std::move(launch));
  } else if (longest) {
    group.longest = std::move(launch);
  }
}

void SummaryBuilder::add_to_range(const KernelAnalysis& launch, std::size_t name_id) {
  any_nvtx_ = any_nvtx_ || !launch.nvtx.empty();
  std::string key = nvtx_label(launch.nvtx);
  auto [slot, inserted] = range_index_.try_emplace(key, range_accumulators_.size());
  if (inserted) {
    range_accumulators_.emplace_back();
    range_accumulators_.back().range.ranges = std::move(key);
  }
  RangeAccumulator& r = range_accumulators_[slot->second];
  const double time = launch.duration_ns.value_or(0);
  ++r.range.launches;
  r.range.durations.add(launch.duration_ns);
  r.range.verdicts.add(launch.verdict);
  Tally& verdict = r.verdict_time[verdict_slot(launch.verdict)];
  verdict.time += time;
  ++verdict.count;
  Tally& kernel = r.kernel_time[name_id];
  kernel.time += time;
  ++kernel.count;
}

// Ranges by time, each with its verdict of most time and its kernels of most time; none when
// no launch had a range (records without NVTX look as before).
void SummaryBuilder::finish_ranges() {
  if (!any_nvtx_) return;
  for (auto& r : range_accumulators_) {
    NvtxRangeSummary& range = r.range;
    const bool timed = range.durations.timed_launches > 0;
    range.time_share = summary_.share_of_run(range.durations.total_ns);
    std::size_t best = 0;
    for (std::size_t slot = 1; slot < kVerdictSlots.size(); ++slot)
      if (r.verdict_time[slot].beats(r.verdict_time[best], timed)) best = slot;
    range.main_verdict = kVerdictSlots[best];
    std::vector<std::pair<std::string, Tally>> kernels;
    for (const auto& [name_id, tally] : r.kernel_time) kernels.emplace_back(group_index_->names[name_id], tally);
    std::sort(kernels.begin(), kernels.end(), [&](const auto& a, const auto& b) {
      if (a.second.beats(b.second, timed)) return true;
      if (b.second.beats(a.second, timed)) return false;
      return a.first < b.first;  // ties by name: the output does not depend on hashing
    });
    for (std::size_t k = 0; k < kernels.size() && k < kNvtxTopKernels; ++k)
      range.top_kernels.push_back(summary_.display_name(kernels[k].first));
    summary_.nvtx_ranges.push_back(std::move(range));
  }
  std::stable_sort(summary_.nvtx_ranges.begin(), summary_.nvtx_ranges.end(),
                   [](const NvtxRangeSummary& a, const NvtxRangeSummary& b) {
                     if (a.durations.total_ns.value_or(-1) != b.durations.total_ns.value_or(-1))
                       return a.durations.total_ns.value_or(-1) > b.durations.total_ns.value_or(-1);
                     return a.launches > b.launches;
                   });
  range_accumulators_.clear();
}

void SummaryBuilder::note_if_longest(const KernelAnalysis& launch) {
  if (options_.longest_to_note == 0) return;
  // A min-heap of the longest so far: the shortest of them is replaced by a longer launch.
  const auto shorter = [](const Noted& a, const Noted& b) { return a > b; };
  longest_.push_back({launch.duration_ns.value_or(-1), launch.sequence});
  std::push_heap(longest_.begin(), longest_.end(), shorter);
  if (longest_.size() > options_.longest_to_note) {
    std::pop_heap(longest_.begin(), longest_.end(), shorter);
    longest_.pop_back();
  }
}

// Per-kernel budgets profile K launches of each kernel and configuration: its time over the
// whole run is its profiled mean times the launches the collector saw of it.
void SummaryBuilder::estimate_whole_run() {
  if (summary_.run.kernels_seen.empty()) return;
  std::unordered_map<std::string, std::uint64_t> seen;
  for (const auto& k : summary_.run.kernels_seen) seen[RunSummary::group_key(k.name, k.grid, k.block)] += k.launches;
  double total = 0;
  for (auto& a : accumulators_) {
    KernelSummary& group = a.group;
    const auto it = seen.find(RunSummary::group_key(group.name, group.grid, group.block));
    if (it != seen.end() && it->second >= group.launches) group.launches_seen = it->second;
    const auto& d = group.durations;
    if (group.launches_seen && d.total_ns && d.timed_launches > 0)
      group.estimated_ns =
          *d.total_ns / static_cast<double>(d.timed_launches) * static_cast<double>(*group.launches_seen);
    total += group.estimated_ns ? *group.estimated_ns : d.total_ns.value_or(0);
  }
  summary_.estimated_total_ns = total;
}

RunSummary SummaryBuilder::finish() {
  for (const auto& [duration, sequence] : longest_) summary_.longest_sequences.insert(sequence);
  estimate_whole_run();
  for (auto& a : accumulators_) {
    KernelSummary& group = a.group;
    if (a.longest_raw) group.longest = explain_(*a.longest_raw);
    const bool timed = group.durations.timed_launches > 0;
    if (summary_.estimated_total_ns) {
      const auto ns = group.estimated_ns ? group.estimated_ns : group.durations.total_ns;
      if (ns && *summary_.estimated_total_ns > 0) group.time_share = *ns / *summary_.estimated_total_ns;
    } else if (group.durations.total_ns) {
      group.time_share = summary_.share_of_run(group.durations.total_ns);
    }
    std::size_t best = 0;
    for (std::size_t slot = 1; slot < kVerdictSlots.size(); ++slot)
      if (a.verdict_time[slot].beats(a.verdict_time[best], timed)) best = slot;
    group.main_verdict = kVerdictSlots[best];
    const Tally* best_unit = nullptr;
    for (const auto& [unit, tally] : a.unit_time) {
      if (!best_unit || tally.beats(*best_unit, timed)) {
        best_unit = &tally;
        group.limiting_unit = unit;
      }
    }
    group.issue = a.issue.value();
    group.l2 = a.l2.value();
    group.dram = a.dram.value();
    group.memory = a.memory.value();
    group.compute = a.compute.value();
    group.lmem_l2_share = a.lmem_l2.value();
    group.lmem_instruction_share = a.lmem_instructions.value();
    group.occupancy = a.occupancy.value();
  }
  // Stable: equal times keep launch order, so the output does not depend on the sort.
  std::stable_sort(accumulators_.begin(), accumulators_.end(), [](const Accumulator& a, const Accumulator& b) {
    return a.group.ranked_ns() > b.group.ranked_ns();
  });

  RunSummary& s = summary_;
  for (std::size_t slot = 0; slot < kVerdictSlots.size(); ++slot) {
    VerdictTime entry;
    entry.verdict = kVerdictSlots[slot];
    for (const auto& a : accumulators_) {
      entry.launches += a.verdict_time[slot].count;
      entry.duration_ns += a.verdict_time[slot].time;
    }
    entry.time_share = s.share_of_run(entry.duration_ns);
    s.time_by_verdict.push_back(entry);
  }
  std::vector<std::string> names;
  for (auto& a : accumulators_) {
    s.group_index[RunSummary::group_key(a.group.name, a.group.grid, a.group.block)] = s.groups.size();
    names.push_back(a.group.name);
    s.groups.push_back(std::move(a.group));
  }
  accumulators_.clear();
  s.distinct_kernels = std::set<std::string>(names.begin(), names.end()).size();
  s.unselected_kernels = selection_.unselected();
  detail::name_kernels(s);

  finish_ranges();  // after the display names

  detail::choose_fix_first(s, options_.fix_first_limit);
  return std::move(summary_);
}

namespace detail {

// What to fix first: the groups with the most time whose longest launch has actionable advice.
void choose_fix_first(RunSummary& s, std::size_t limit) {
  s.fix_first.clear();
  for (auto& group : s.groups) group.fix_first_rank.reset();
  for (std::size_t index = 0; index < s.groups.size() && s.fix_first.size() < limit; ++index) {
    const auto& advice = s.groups[index].longest.advice;
    const auto first = std::find_if(advice.begin(), advice.end(), is_actionable_advice);
    if (first == advice.end()) continue;
    s.groups[index].fix_first_rank = s.fix_first.size() + 1;
    s.fix_first.push_back({index, advice_headline(*first), *first});
  }
}

}  // namespace detail

}  // namespace limiter
