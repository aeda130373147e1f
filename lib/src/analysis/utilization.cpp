// Utilisations against peak (docs/design.md §7): issue slots, L2, DRAM, L1 and SM pipes.
#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>

#include "analysis/analysis_steps.hpp"
#include "analysis/counter_names.hpp"
#include "analysis/sol_units.hpp"
#include "limiter/architecture.hpp"
#include "limiter/format.hpp"

namespace limiter::detail {
namespace {

namespace c = counters;

// string_view: the names' lengths are known at compile time, not measured per launch.
std::optional<double> sum_of(const KernelLaunch& k, std::initializer_list<std::string_view> metrics,
                             bool all_required = true) {
  double total = 0;
  bool any = false;
  for (const std::string_view metric : metrics) {
    if (auto value = k.counter(metric)) {
      total += *value;
      any = true;
    } else if (all_required) {
      return std::nullopt;
    }
  }
  return any ? std::optional<double>(total) : std::nullopt;
}

// Each SOL sub-unit's counter names, built once: the analysis reads them for every launch.
struct SolUnitCounters {
  std::string elapsed_pct;  // <unit>.avg.pct_of_peak_sustained_elapsed
  std::string active_pct;   // <unit>.avg.pct_of_peak_sustained_active
  bool core = false;        // in kSolCoreUnits: named when missing
};

// The SOL sub-unit percentages a launch has, by kSolUnits index: one pass over its counters
// (a few dozen) instead of two lookups for each of the ~50 sub-units, most of them absent.
struct SolPercents {
  std::array<std::optional<double>, std::size(kSolUnits)> elapsed, active;
};

const std::vector<SolUnitCounters>& sol_unit_counters();

SolPercents sol_percents(const KernelLaunch& k) {
  static const auto* by_name = [] {
    auto* names = new std::unordered_map<std::string_view, std::pair<std::size_t, bool>>;
    const auto& counters = sol_unit_counters();
    for (std::size_t i = 0; i < counters.size(); ++i) {
      names->emplace(counters[i].elapsed_pct, std::pair{i, true});
      names->emplace(counters[i].active_pct, std::pair{i, false});
    }
    return names;
  }();
  SolPercents found;
  constexpr std::string_view kSuffix = ".avg.pct_of_peak_sustained_";
  for (const auto& [name, value] : k.counters) {
    if (name.find(kSuffix) == std::string::npos) continue;
    if (const auto it = by_name->find(name); it != by_name->end())
      (it->second.second ? found.elapsed : found.active)[it->second.first] = value;
  }
  return found;
}

const std::vector<SolUnitCounters>& sol_unit_counters() {
  static const std::vector<SolUnitCounters> table = [] {
    std::vector<SolUnitCounters> names;
    for (const auto& unit : kSolUnits) {
      const std::string base = unit.unit;
      bool core = false;
      for (const char* core_unit : kSolCoreUnits) core = core || base == core_unit;
      names.push_back({base + ".avg.pct_of_peak_sustained_elapsed", base + ".avg.pct_of_peak_sustained_active", core});
    }
    return names;
  }();
  return table;
}

// Issue slots per cycle per SM on Fermi/Kepler: schedulers x dispatch units (GF100: 2 x 1,
// GF104: 2 x 2, GK1xx: 4 x 2). An upper bound; real dual issue is rarely sustained.
double legacy_issue_per_sm_cycle(int compute_capability) {
  if (compute_capability >= 30) return 8.0;
  if (compute_capability == 21) return 4.0;
  if (compute_capability >= 20) return 2.0;
  return 1.0;
}

void issue_utilization(const KernelLaunch& k, const DeviceDescription& device, CounterModel model, const PeakSet& peaks,
                       Utilization& u, std::vector<Evidence>* evidence) {
  if (model == CounterModel::legacy) {
    auto issued = k.counter(c::legacy_inst_issued);
    auto cycles = k.counter(c::legacy_elapsed_cycles);
    if (!issued || !cycles || *cycles <= 0 || device.arch.empty()) return;
    const int cc = architecture_limits(device.arch).compute_capability;
    const double slots = *cycles * legacy_issue_per_sm_cycle(cc);
    u.issue = *issued / slots;
    if (evidence)
      evidence->push_back({"utilization.issue", *u.issue,
                           format_count(*issued) + " warp instructions issued per SM over " + format_count(*cycles) +
                               " cycles x " + format_fixed(legacy_issue_per_sm_cycle(cc), 0) + " issue slots"});
    return;
  }
  auto issued = k.counter(c::inst_issued);
  auto cycles = k.counter(c::sm_cycles_elapsed);
  if (issued && cycles && *cycles > 0) {
    std::optional<double> per_cycle = k.counter(c::inst_issued_peak);
    const bool from_counter = per_cycle.has_value();
    if (!per_cycle && device.sm_count > 0 && !device.arch.empty()) {
      per_cycle = architecture_limits(device.arch).sub_partitions_per_sm * device.sm_count *
                  peaks.issue_per_scheduler_per_cycle;
    }
    if (per_cycle && *per_cycle > 0) {
      u.issue = *issued / (*per_cycle * *cycles);
      if (!evidence) return;
      const std::string peak_origin =
          from_counter ? std::string("smsp__inst_issued.sum.peak_sustained")
                       : "1 per scheduler x " + std::to_string(architecture_limits(device.arch).sub_partitions_per_sm) +
                             " schedulers x " + std::to_string(device.sm_count) + " SMs";
      evidence->push_back({"utilization.issue", *u.issue,
                           format_count(*issued) + " warp instructions issued / (" + format_fixed(*per_cycle, 0) +
                               " per cycle (" + peak_origin + ") x " + format_count(*cycles) + " SM cycles)"});
      return;
    }
  }
  if (auto pct = k.counter(c::inst_issued_pct)) {
    u.issue = *pct / 100.0;
    if (evidence)
      evidence->push_back({"utilization.issue", *u.issue, std::string(c::inst_issued_pct) + " from the record"});
  }
}

void dram_utilization(const KernelLaunch& k, const PeakSet& peaks, Utilization& u, std::vector<Evidence>* evidence) {
  auto bytes = sum_of(k, {c::dram_read_bytes, c::dram_write_bytes});
  auto duration = k.counter(c::duration_ns);
  if (bytes && duration && *duration > 0) {
    std::optional<double> peak = peaks.dram_bytes_per_second;
    bool from_counters = false;
    if (peaks.kind == PeakKind::theoretical) {
      auto per_cycle = k.counter(c::dram_peak_bytes_per_cycle);
      auto clock = k.counter(c::dram_clock_hz);
      if (per_cycle && clock) {
        peak = *per_cycle * *clock;
        from_counters = true;
      }
    }
    if (peak && *peak > 0) {
      const double rate = *bytes / (*duration * 1e-9);
      u.dram = rate / *peak;
      if (!evidence) return;
      const std::string origin =
          from_counters ? std::string("theoretical: dram__bytes.sum.peak_sustained x DRAM clock from the record")
                        : to_string(peaks.kind) + ": " + peaks.origin;
      evidence->push_back({"utilization.dram", *u.dram,
                           format_bytes(*bytes) + " in " + format_duration_ns(*duration) + " = " + format_rate(rate) +
                               " of " + format_rate(*peak) + " (" + origin + ")"});
      return;
    }
  }
  if (auto pct = k.counter(c::dram_throughput_pct)) {
    u.dram = *pct / 100.0;
    if (evidence)
      evidence->push_back({"utilization.dram", *u.dram, std::string(c::dram_throughput_pct) + " from the record"});
  }
}

void l2_utilization(const KernelLaunch& k, const PeakSet& peaks, const SolPercents& percents, Utilization& u,
                    std::vector<Evidence>* evidence) {
  // DETAIL is worded only when the evidence is kept.
  auto consider = [&](double value, const std::string& label, const auto& detail) {
    std::string text = evidence ? detail() : std::string();
    if (evidence) evidence->push_back({"utilization.l2 (" + label + ")", value, text});
    u.units.push_back({label, false, "l2", value, std::move(text), false});
  };
  // Tag-stage lookups against the tag peak (fabric duplicates included, as the peak counts them).
  auto sectors = sum_of(k, {c::l2_read_sectors, c::l2_write_sectors, c::l2_atom_sectors, c::l2_red_sectors}, false);
  // PM sampling cannot take the per-op sector counters: all L2 sectors are the same lookups.
  if (!sectors) sectors = k.counter(c::l2_all_sectors);
  if (sectors && peaks.kind == PeakKind::theoretical) {
    std::optional<double> per_cycle = k.counter(c::l2_tag_peak_per_cycle);
    if (!per_cycle) per_cycle = peaks.l2_tag_sectors_per_cycle;
    std::optional<double> cycles = k.counter(c::l2_cycles_elapsed);
    auto duration = k.counter(c::duration_ns);
    if (!cycles && duration && peaks.l2_clock_hz) cycles = *duration * 1e-9 * *peaks.l2_clock_hz;
    if (per_cycle && cycles && *per_cycle > 0 && *cycles > 0) {
      consider(*sectors / (*per_cycle * *cycles), "L2 tag lookups", [&] {
        return format_count(*sectors) + " L2 sector lookups / (" + format_fixed(*per_cycle, 0) + " per L2 cycle x " +
               format_count(*cycles) + " L2 cycles)";
      });
    }
  }
  // Delivered L1<->L2 bandwidth against the calibrated L2-resident read rate.
  auto tex_sectors = sum_of(
      k, {c::l2_tex_read_sectors, c::l2_tex_write_sectors, c::l2_tex_atom_sectors, c::l2_tex_red_sectors}, false);
  auto duration = k.counter(c::duration_ns);
  if (tex_sectors && duration && *duration > 0 && peaks.kind == PeakKind::calibrated &&
      peaks.l2_delivered_bytes_per_second) {
    const double rate = *tex_sectors * 32.0 / (*duration * 1e-9);
    consider(rate / *peaks.l2_delivered_bytes_per_second, "L2 delivered bandwidth", [&] {
      return format_rate(rate) + " between L1 and L2 of " + format_rate(*peaks.l2_delivered_bytes_per_second) +
             " (calibrated: " + peaks.origin + ")";
    });
  }
  bool any_sub_unit = false;  // ncu's own L2 sub-units are read with the others (sol_units)
  for (std::size_t i = 0; i < std::size(kSolUnits) && !any_sub_unit; ++i)
    any_sub_unit = std::string_view(kSolUnits[i].group) == "l2" && percents.elapsed[i].has_value();
  // The return path from the read sectors, when ncu's own figure for it is missing.
  const bool has_return_path = k.counter(c::l2_return_path_pct).has_value();
  auto tex_reads = k.counter(c::l2_tex_read_sectors);
  auto l2_cycles = k.counter(c::l2_cycles_elapsed);
  if (!has_return_path && tex_reads && l2_cycles && *l2_cycles > 0 && peaks.l2_return_sectors_per_cycle &&
      peaks.kind == PeakKind::theoretical) {
    consider(*tex_reads / (*peaks.l2_return_sectors_per_cycle * *l2_cycles), "L2-to-crossbar path", [&] {
      return format_count(*tex_reads) + " sectors read by L1 / (" +
             format_fixed(*peaks.l2_return_sectors_per_cycle, 0) + " per L2 cycle x " + format_count(*l2_cycles) +
             " L2 cycles)";
    });
  }
  // ncu's details page carries only the roll-up (the max over L2 sub-units): use it when
  // the sub-units themselves are missing, since tag lookups alone miss a busy crossbar path.
  if (!any_sub_unit) {
    if (auto pct = k.counter(c::l2_throughput_pct))
      consider(*pct / 100.0, "L2 (ncu's busiest sub-unit)",
               [] { return std::string(c::l2_throughput_pct) + " from the record"; });
  }
}

// A sub-unit's value, kept in u.units; a derived one gives way to ncu's own figure of the
// same sub-unit (finish_units), so the maxima match ncu's breakdown wherever the record has it.
void add_unit(Utilization& u, std::string label, SolSide side, std::string group, double value, std::string source,
              bool direct) {
  u.units.push_back({std::move(label), side == SolSide::compute, std::move(group), value, std::move(source), direct});
}

// ncu reports a sub-unit against elapsed cycles, older exports against active ones: those are
// scaled to elapsed cycles so that a kernel busy on a few SMs does not look busy on all.
void sol_units(const KernelLaunch& k, const SolPercents& percents, Utilization& u, bool explain) {
  auto active = k.counter(c::sm_cycles_active);
  auto elapsed = k.counter(c::sm_cycles_elapsed);
  const auto& counters = sol_unit_counters();
  for (std::size_t i = 0; i < std::size(kSolUnits); ++i) {
    const SolUnit& unit = kSolUnits[i];
    const SolUnitCounters& names = counters[i];
    if (const auto& pct = percents.elapsed[i]) {
      add_unit(u, unit.label, unit.side, unit.group, *pct / 100.0, explain ? names.elapsed_pct : std::string(), true);
    } else if (const auto& pct_active = percents.active[i]; pct_active && active && elapsed && *elapsed > 0) {
      add_unit(u, unit.label, unit.side, unit.group, *pct_active / 100.0 * (*active / *elapsed),
               explain ? names.active_pct + " x active/elapsed cycles" : std::string(), true);
    }
  }
}

// Values computed above from raw counters and peaks, as sub-units of their own.
void derived_units(Utilization& derived, Utilization& u) {
  if (derived.issue) add_unit(u, "issue slots", SolSide::compute, "issue", *derived.issue, "derived", false);
  if (derived.dram) add_unit(u, "DRAM", SolSide::memory, "dram", *derived.dram, "derived", false);
  for (auto& use : derived.units) u.units.push_back(std::move(use));  // DERIVED is not used again
}

// The kSolUnits indices of the sub-units named when missing, in kSolCoreUnits' order, as the
// coverage note names them: built once, not for every launch.
const std::vector<std::size_t>& core_unit_indices() {
  static const std::vector<std::size_t> indices = [] {
    std::vector<std::size_t> found;
    const auto& counters = sol_unit_counters();
    for (const char* core : kSolCoreUnits)
      for (std::size_t i = 0; i < std::size(kSolUnits); ++i)
        if (counters[i].core && std::string_view(kSolUnits[i].unit) == core) found.push_back(i);
    return found;
  }();
  return indices;
}

void finish_units(Utilization& u, std::vector<Evidence>* evidence) {
  std::vector<SubUnitUse> kept;
  kept.reserve(u.units.size());
  for (auto& use : u.units) {  // moved: u.units is replaced by what is kept
    auto same = std::find_if(kept.begin(), kept.end(), [&](const SubUnitUse& k) { return k.label == use.label; });
    if (same == kept.end()) {
      kept.push_back(std::move(use));
    } else if ((use.direct && !same->direct) || (use.direct == same->direct && use.value > same->value)) {
      *same = std::move(use);
    }
  }
  std::stable_sort(kept.begin(), kept.end(),
                   [](const SubUnitUse& a, const SubUnitUse& b) { return a.value > b.value; });
  u.units = std::move(kept);
  u.issue = u.l2 = u.dram = u.l1 = std::nullopt;
  u.pipes.clear();
  for (const auto& use : u.units) {  // busiest first: the first of each group is its maximum
    if (use.group == "issue" && !u.issue) u.issue = use.value;
    if (use.group == "dram" && !u.dram) u.dram = use.value;
    if (use.group == "l1" && !u.l1) u.l1 = use.value;
    if (use.group == "l2" && !u.l2) {
      u.l2 = use.value;
      u.l2_source = use.label;
    }
    if (use.group == "pipe") u.pipes.emplace(use.label, use.value);
    if (evidence && use.direct && use.value >= 0.2)
      evidence->push_back({"utilization." + use.label, use.value, use.source + " from the record"});
  }
  for (const std::size_t i : core_unit_indices()) {
    const bool present = std::any_of(u.units.begin(), u.units.end(),
                                     [&](const SubUnitUse& use) { return use.label == kSolUnits[i].label; });
    if (!present) u.missing_units.push_back(kSolUnits[i].label);
  }
}

}  // namespace

Utilization compute_utilization(const KernelLaunch& launch, const DeviceDescription& device, CounterModel model,
                                const PeakSet& peaks, std::vector<Evidence>* evidence) {
  Utilization derived;
  issue_utilization(launch, device, model, peaks, derived, evidence);
  // Once: the L2 and the SOL sub-units read them.
  const SolPercents percents = model == CounterModel::perfworks ? sol_percents(launch) : SolPercents{};
  if (model == CounterModel::perfworks) {
    dram_utilization(launch, peaks, derived, evidence);
    l2_utilization(launch, peaks, percents, derived, evidence);
  }
  Utilization u;
  derived_units(derived, u);
  if (model == CounterModel::perfworks) sol_units(launch, percents, u, evidence != nullptr);
  finish_units(u, evidence);
  if (model != CounterModel::perfworks || u.units.empty()) u.missing_units.clear();
  return u;
}

PeakSet choose_peaks(const RunRecord& run, PeakKind kind) {
  const GpuSpec* spec = find_gpu_spec(run.device.name);
  if (kind == PeakKind::calibrated) {
    if (spec && spec->calibrated) return *spec->calibrated;
    PeakSet none;
    none.kind = PeakKind::calibrated;
    none.origin = "no calibrated peaks known for '" + run.device.name + "' (run `limiter calibrate` on it)";
    return none;
  }
  if (spec) return spec->theoretical;
  PeakSet from_counters;
  from_counters.origin = "'" + run.device.name +
                         "' is not in limiter's table of GPUs: peaks from the record's own "
                         "*.peak_sustained counters (the device's), sub-units as the hardware reports them; "
                         "`limiter calibrate` on it measures achieved peaks";
  return from_counters;
}

}  // namespace limiter::detail

namespace limiter {

const SubUnitUse* Utilization::busiest(bool compute_side) const {
  const SubUnitUse* best = nullptr;
  for (const auto& use : units)
    if (use.compute_side == compute_side && (!best || use.value > best->value)) best = &use;
  return best;
}

std::optional<double> Utilization::compute() const {
  std::optional<double> best = issue;
  for (const auto& [name, value] : pipes)
    if (!best || value > *best) best = value;
  if (const auto* use = busiest(true); use && (!best || use->value > *best)) best = use->value;
  return best;
}

std::optional<double> Utilization::memory() const {
  std::optional<double> best;
  for (auto value : {l2, dram, l1})
    if (value && (!best || *value > *best)) best = value;
  if (const auto* use = busiest(false); use && (!best || use->value > *best)) best = use->value;
  return best;
}

}  // namespace limiter
