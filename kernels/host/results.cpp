#include "limiter/kernels/results.hpp"

#include <algorithm>
#include <cmath>
#include <ostream>

#include "limiter/architecture.hpp"
#include "limiter/error.hpp"
#include "limiter/format.hpp"
#include "limiter/kernels/catalog.hpp"
#include "limiter/occupancy.hpp"
#include "table.hpp"

namespace limiter::kernels {

std::optional<double> Measurement::bytes_per_second() const {
  if (!time_ns || *time_ns <= 0 || useful_bytes <= 0) return std::nullopt;
  return useful_bytes / (*time_ns * 1e-9);
}

std::optional<double> Measurement::flops_per_second() const {
  if (!time_ns || *time_ns <= 0 || useful_flops <= 0) return std::nullopt;
  return useful_flops / (*time_ns * 1e-9);
}

std::optional<double> Measurement::ns_per_dependent_step() const {
  if (!time_ns || dependent_steps <= 0) return std::nullopt;
  return *time_ns / dependent_steps;
}

std::optional<double> SweepPoint::bytes_per_second() const {
  if (!time_ns || *time_ns <= 0) return std::nullopt;
  return useful_bytes / (*time_ns * 1e-9);
}

void annotate_launch(const Measurement& measurement, KernelLaunch& launch) {
  if (measurement.time_ns) launch.counters[kTimeUnprofiledCounter] = *measurement.time_ns;
  launch.counters[kTimedRunsCounter] = measurement.timed_runs;
  if (measurement.useful_bytes > 0) launch.counters[kUsefulBytesCounter] = measurement.useful_bytes;
  if (measurement.useful_flops > 0) launch.counters[kUsefulFlopsCounter] = measurement.useful_flops;
  if (measurement.dependent_steps > 0) launch.counters[kDependentStepsCounter] = measurement.dependent_steps;
  if (measurement.correct) launch.counters[kResultCorrectCounter] = *measurement.correct ? 1.0 : 0.0;
}

std::vector<Measurement> measurements_from_run(const RunRecord& run) {
  std::vector<Measurement> measurements;
  for (const auto& launch : run.launches) {
    if (!find_entry(launch.name)) continue;
    Measurement m;
    m.name = launch.name;
    // A run recorded by a profiler alone (Nsight Compute) has no unprofiled time: its kernel duration stands in.
    m.time_ns = launch.counter(kTimeUnprofiledCounter);
    if (!m.time_ns) m.time_ns = launch.counter("gpu__time_duration.sum");
    m.timed_runs = static_cast<int>(launch.counter(kTimedRunsCounter).value_or(0));
    m.useful_bytes = launch.counter(kUsefulBytesCounter).value_or(0);
    m.useful_flops = launch.counter(kUsefulFlopsCounter).value_or(0);
    m.dependent_steps = launch.counter(kDependentStepsCounter).value_or(0);
    if (auto correct = launch.counter(kResultCorrectCounter)) m.correct = *correct == 1.0;
    m.check_detail = "from the recorded run";
    m.grid = launch.grid;
    m.block = launch.block;
    m.registers_per_thread = launch.registers_per_thread;
    m.local_bytes_per_thread = launch.local_bytes_per_thread;
    if (launch.static_shared_bytes || launch.dynamic_shared_bytes)
      m.shared_bytes_per_block = launch.total_shared_bytes();
    measurements.push_back(std::move(m));
  }
  return measurements;
}

std::optional<SweepPoint> best_sweep_point(const std::vector<SweepPoint>& sweep) {
  std::optional<SweepPoint> best;
  for (const auto& point : sweep) {
    if (!point.correct || !point.time_ns) continue;
    if (!best || *point.time_ns < *best->time_ns) best = point;
  }
  return best;
}

std::vector<LadderRow> speedup_ladder(const std::vector<const Measurement*>& steps) {
  std::vector<LadderRow> rows;
  std::optional<double> first, previous;
  for (const Measurement* step : steps) {
    LadderRow row;
    row.name = step->name;
    row.time_ns = step->time_ns;
    if (step->time_ns && *step->time_ns > 0) {
      if (previous) row.step_speedup = *previous / *step->time_ns;
      if (!first) first = *step->time_ns;
      row.cumulative_speedup = *first / *step->time_ns;
    }
    previous = step->time_ns && *step->time_ns > 0 ? step->time_ns : std::nullopt;
    rows.push_back(row);
  }
  return rows;
}

namespace {

using detail::kNone;
using detail::Table;

std::string time_text(const std::optional<double>& ns) { return ns ? format_duration_ns(*ns) : kNone; }
std::string rate_text(const std::optional<double>& bytes_per_second) {
  return bytes_per_second ? format_rate(*bytes_per_second) : kNone;
}
std::string speedup_text(const std::optional<double>& speedup) {
  return speedup ? format_fixed(*speedup, 2) + "x" : kNone;
}
std::string optional_int(const std::optional<int>& value) { return value ? std::to_string(*value) : kNone; }
std::string optional_bytes(const std::optional<std::uint64_t>& value) { return value ? std::to_string(*value) : kNone; }
std::string correct_text(const Measurement& m) {
  if (!m.skipped_reason.empty()) return "skipped";
  if (!m.correct) return kNone;
  return *m.correct ? "yes" : "WRONG";
}

const KernelAnalysis* analysis_of(const TableContext& context, const std::string& name) {
  if (!context.analysis) return nullptr;
  for (const auto& kernel : context.analysis->kernels)
    if (kernel.name == name) return &kernel;
  return nullptr;
}

std::string verdict_text(const KernelAnalysis* kernel) {
  if (!kernel || !kernel->verdict) return kNone;
  std::string text = to_string(*kernel->verdict);
  if (kernel->balanced) text += " (balanced)";
  for (std::size_t i = 0; i < kernel->latency_causes.size(); ++i)
    text +=
        (i ? ", " : " (") + to_string(kernel->latency_causes[i]) + (i + 1 == kernel->latency_causes.size() ? ")" : "");
  return text;
}

// Whether the verdict is the one the catalog intends: "yes", "NO", or "-" without a verdict.
std::string intended_text(const KernelAnalysis* kernel, const std::string& name) {
  const CatalogEntry* entry = find_entry(name);
  if (!kernel || !kernel->verdict || !entry || !entry->intended) return kNone;
  return *kernel->verdict == *entry->intended ? "yes" : "NO (" + to_string(*entry->intended) + ")";
}

std::optional<OccupancyResult> occupancy_of(const Measurement& m, const DeviceDescription& device) {
  if (device.arch.empty() || !m.registers_per_thread || m.block.count() == 0) return std::nullopt;
  OccupancyInput input;
  input.arch = device.arch;
  input.threads_per_block = static_cast<int>(m.block.count());
  input.registers_per_thread = *m.registers_per_thread;
  input.shared_bytes_per_block = m.shared_bytes_per_block.value_or(0);
  try {
    return compute_occupancy(input);
  } catch (const InputError&) {
    return std::nullopt;
  }
}

// Resident blocks per SM: the runtime's figure when measured here, else the occupancy model's.
std::optional<int> blocks_per_sm_of(const Measurement& m, const DeviceDescription& device) {
  if (m.blocks_per_sm) return m.blocks_per_sm;
  if (auto occupancy = occupancy_of(m, device)) return occupancy->blocks_per_sm;
  return std::nullopt;
}

std::optional<double> occupancy_fraction(const Measurement& m, const DeviceDescription& device) {
  const auto blocks = blocks_per_sm_of(m, device);
  if (!blocks || device.arch.empty()) return std::nullopt;
  try {
    const auto& limits = architecture_limits(device.arch);
    return static_cast<double>(*blocks * m.block.count()) / limits.max_threads_per_sm;
  } catch (const InputError&) {
    return std::nullopt;
  }
}

std::vector<const Measurement*> of_family(const std::vector<Measurement>& measurements, Family family) {
  std::vector<const Measurement*> selected;
  for (const auto& m : measurements) {
    const CatalogEntry* entry = find_entry(m.name);
    if (entry && entry->family == family) selected.push_back(&m);
  }
  return selected;
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void write_reduction(const std::vector<const Measurement*>& family, const TableContext& context, std::ostream& out) {
  // Seed 002's G80 table on 2^22 ints: time, GB/s and cumulative speed-up of kernels 1..7.
  static const char* const seed_figures[] = {"8.054 ms, 2.08 GB/s",          "3.456 ms, 4.85 GB/s, 2.33x",
                                             "1.722 ms, 9.74 GB/s, 4.68x",   "0.965 ms, 17.38 GB/s, 8.34x",
                                             "0.536 ms, 31.29 GB/s, 15.01x", "0.381 ms, 44.00 GB/s, 21.16x",
                                             "0.268 ms, 62.67 GB/s, 30.04x"};
  for (const char* size : {"_4M", "_32M"}) {
    std::vector<const Measurement*> steps;
    for (const auto* m : family)
      if (ends_with(m->name, size)) steps.push_back(m);
    if (steps.empty()) continue;
    out << "\nreduction ladder on " << (std::string(size) == "_4M" ? "2^22" : "2^25")
        << " ints (seed 002; the seed's G80 figures on 2^22 ints at the right)\n";
    Table table({"kernel", "time", "bandwidth", "step", "cumulative", "verdict", "= intended", "correct", "seed"});
    const auto ladder = speedup_ladder(steps);
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const auto* kernel = analysis_of(context, steps[i]->name);
      const int step_number = steps[i]->name[6] - '0';  // "reduceN_..."
      table.add({steps[i]->name, time_text(ladder[i].time_ns), rate_text(steps[i]->bytes_per_second()),
                 speedup_text(ladder[i].step_speedup), speedup_text(ladder[i].cumulative_speedup), verdict_text(kernel),
                 intended_text(kernel, steps[i]->name), correct_text(*steps[i]),
                 step_number >= 1 && step_number <= 7 ? seed_figures[step_number - 1] : kNone});
    }
    table.write(out);
  }
}

void write_stencil(const std::vector<const Measurement*>& family, const TableContext& context, std::ostream& out) {
  out << "\nLMEM case study: 8th-order 3D wave-equation stencil (seed 001)\n";
  const Measurement* spilling = nullptr;
  for (const auto* m : family)
    if (m->name == "stencil8_spilling") spilling = m;
  Table table({"variant", "regs", "lmem B/thread", "L1 vs shared", "time", "bandwidth", "vs spilling", "LMEM of L2",
               "LMEM of inst", "L1 ld hit", "verdict", "= intended", "correct"});
  for (const auto* m : family) {
    const auto* kernel = analysis_of(context, m->name);
    std::optional<double> speedup;
    if (spilling && spilling->time_ns && m->time_ns && *m->time_ns > 0) speedup = *spilling->time_ns / *m->time_ns;
    table.add({m->name, optional_int(m->registers_per_thread), optional_bytes(m->local_bytes_per_thread),
               ends_with(m->name, "_l1_carveout") ? "largest L1" : "largest shared", time_text(m->time_ns),
               rate_text(m->bytes_per_second()), speedup_text(speedup),
               kernel ? format_percent(kernel->lmem.l2_share) : kNone,
               kernel ? format_percent(kernel->lmem.instruction_share) : kNone,
               kernel ? format_percent(kernel->lmem.l1_load_hit_rate) : kNone, verdict_text(kernel),
               intended_text(kernel, m->name), correct_text(*m)});
  }
  table.write(out);
  out << "seed 001 (Fermi, 16 SMs, 32-register cap, 44 bytes of spills): LMEM 53.38% of L2 queries by its estimate, "
         "4.6% of instructions; no cap 1.22x; 48 KB L1 1.45x (L1 LMEM hit rate 13.95% -> 98.32%)\n";
}

void write_occupancy(const std::vector<const Measurement*>& family, const TableContext& context, std::ostream& out) {
  out << "\noccupancy, grain size VT and launch bounds: tile scan (seed 000)\n";
  Table table({"variant", "NT", "regs", "lmem B/thread", "shared B", "blocks/SM", "occupancy", "time", "bandwidth",
               "verdict", "= intended", "correct"});
  for (const auto* m : family) {
    const auto* kernel = analysis_of(context, m->name);
    table.add({m->name, std::to_string(m->block.count()), optional_int(m->registers_per_thread),
               optional_bytes(m->local_bytes_per_thread), optional_bytes(m->shared_bytes_per_block),
               optional_int(blocks_per_sm_of(*m, context.device)),
               format_percent(occupancy_fraction(*m, context.device), 0), time_text(m->time_ns),
               rate_text(m->bytes_per_second()), verdict_text(kernel), intended_text(kernel, m->name),
               correct_text(*m)});
  }
  table.write(out);
  if (!context.sweep || context.sweep->empty()) return;
  out << "\ntuning sweep over block size NT and odd grain size VT (timing only; fastest first)\n";
  std::vector<SweepPoint> sorted = *context.sweep;
  std::stable_sort(sorted.begin(), sorted.end(), [](const SweepPoint& a, const SweepPoint& b) {
    return a.time_ns.value_or(INFINITY) < b.time_ns.value_or(INFINITY);
  });
  Table sweep({"NT x VT", "regs", "blocks/SM", "time", "bandwidth", "correct"});
  for (const auto& point : sorted) {
    sweep.add({std::to_string(point.threads) + " x " + std::to_string(point.grain),
               std::to_string(point.registers_per_thread), std::to_string(point.blocks_per_sm),
               time_text(point.time_ns), rate_text(point.bytes_per_second()), point.correct ? "yes" : "WRONG"});
  }
  sweep.write(out);
  if (auto best = best_sweep_point(*context.sweep)) {
    out << "best configuration: NT=" << best->threads << " VT=" << best->grain << " ("
        << rate_text(best->bytes_per_second()) << "); seed 000's mergesort bests were 128x23 (Fermi) and 256x11 "
        << "(Kepler) for 32-bit keys\n";
  }
}

void write_tail(const std::vector<const Measurement*>& family, const TableContext& context, std::ostream& out) {
  out << "\ntail effect (seed 003)\n";
  Table table({"variant", "regs", "blocks/SM", "grid", "waves", "tail blocks", "tail idle", "time", "speed-up",
               "verdict", "= intended", "correct"});
  const Measurement* first = family.empty() ? nullptr : family.front();
  for (const auto* m : family) {
    const auto* kernel = analysis_of(context, m->name);
    const auto blocks = blocks_per_sm_of(*m, context.device);
    std::optional<WaveResult> waves;
    if (blocks && *blocks > 0 && context.device.sm_count > 0)
      waves = compute_waves(m->grid.count(), context.device.sm_count, *blocks);
    std::optional<double> speedup;
    if (first->time_ns && m->time_ns && *m->time_ns > 0) speedup = *first->time_ns / *m->time_ns;
    table.add({m->name, optional_int(m->registers_per_thread), optional_int(blocks), std::to_string(m->grid.count()),
               waves ? format_fixed(waves->waves, 2) : kNone, waves ? std::to_string(waves->tail_blocks) : kNone,
               waves ? format_percent(waves->tail_idle_fraction) : kNone, time_text(m->time_ns), speedup_text(speedup),
               verdict_text(kernel), intended_text(kernel, m->name), correct_text(*m)});
  }
  table.write(out);
  out << "seed 003 (K20, 13 SMs): 128 blocks at 4 per SM = 2.46 waves, then 5 per SM = 1.97 waves: 1.19x "
         "(4.535 ms -> 3.825 ms)\n";
}

void write_matmul(const std::vector<const Measurement*>& family, const TableContext& context, std::ostream& out) {
  out << "\nmatrix multiply and thread granularity (seed 002)\n";
  Table table({"variant", "regs", "time", "FLOP/s", "step", "cumulative", "verdict", "= intended", "correct"});
  const auto ladder = speedup_ladder(family);
  for (std::size_t i = 0; i < family.size(); ++i) {
    const auto* m = family[i];
    const auto* kernel = analysis_of(context, m->name);
    const auto flops = m->flops_per_second();
    table.add({m->name, optional_int(m->registers_per_thread), time_text(m->time_ns),
               flops ? format_fixed(*flops * 1e-12, 2) + " T" : kNone, speedup_text(ladder[i].step_speedup),
               speedup_text(ladder[i].cumulative_speedup), verdict_text(kernel), intended_text(kernel, m->name),
               correct_text(*m)});
  }
  table.write(out);
}

void write_ml_patterns(const std::vector<const Measurement*>& family, const TableContext& context, std::ostream& out) {
  out << "\nML patterns: tensor cores, shared memory, atomics, gathers\n";
  Table table({"kernel", "time", "achieved", "verdict", "limiting unit", "= intended", "correct"});
  for (const auto* m : family) {
    const auto* kernel = analysis_of(context, m->name);
    std::string achieved = rate_text(m->bytes_per_second());
    if (auto flops = m->flops_per_second()) achieved = format_fixed(*flops * 1e-12, 1) + " TFLOP/s fp16";
    table.add({m->name, time_text(m->time_ns), achieved, verdict_text(kernel),
               kernel && !kernel->limiting_unit.empty() ? kernel->limiting_unit : kNone, intended_text(kernel, m->name),
               correct_text(*m)});
  }
  table.write(out);
}

void write_warp_stalls(const std::vector<const Measurement*>& family, const TableContext& context, std::ostream& out) {
  out << "\nwarp stalls: one dominant stall reason each (the stall check below needs --stalls)\n";
  Table table({"kernel", "regs", "blocks/SM", "occupancy", "time", "verdict", "= intended", "correct"});
  for (const auto* m : family) {
    const auto* kernel = analysis_of(context, m->name);
    table.add({m->name, optional_int(m->registers_per_thread), optional_int(blocks_per_sm_of(*m, context.device)),
               format_percent(occupancy_fraction(*m, context.device), 0), time_text(m->time_ns), verdict_text(kernel),
               intended_text(kernel, m->name), correct_text(*m)});
  }
  table.write(out);
}

void write_calibration(const std::vector<const Measurement*>& family, const TableContext& context, std::ostream& out) {
  out << "\ncalibration kernels (docs/design.md §7; `limiter calibrate` writes these peaks to a file)\n";
  Table table({"kernel", "time", "achieved", "verdict", "= intended", "correct"});
  for (const auto* m : family) {
    const auto* kernel = analysis_of(context, m->name);
    std::string achieved = kNone;
    if (auto rate = m->bytes_per_second()) achieved = format_rate(*rate);
    if (auto flops = m->flops_per_second()) achieved = format_fixed(*flops * 1e-12, 2) + " TFLOP/s FP32";
    if (auto step = m->ns_per_dependent_step()) achieved = format_fixed(*step, 1) + " ns per dependent load";
    table.add({m->name, time_text(m->time_ns), achieved, verdict_text(kernel), intended_text(kernel, m->name),
               correct_text(*m)});
  }
  table.write(out);
}

void write_multi_gpu(const std::vector<const Measurement*>& family, const TableContext& context, std::ostream& out) {
  out << "\nmulti-GPU halo exchange (seed 001, second half)\n";
  Table table({"case", "bytes", "time", "bandwidth", "verdict", "correct", "note"});
  for (const auto* m : family) {
    const auto* kernel = analysis_of(context, m->name);
    table.add({m->name, m->useful_bytes > 0 ? format_bytes(m->useful_bytes) : kNone, time_text(m->time_ns),
               rate_text(m->bytes_per_second()), verdict_text(kernel), correct_text(*m),
               m->skipped_reason.empty() ? m->check_detail : m->skipped_reason});
  }
  table.write(out);
}

}  // namespace

void write_family_tables(const std::vector<Measurement>& measurements, const TableContext& context, std::ostream& out) {
  for (Family family : all_families()) {
    const auto members = of_family(measurements, family);
    if (members.empty()) continue;
    switch (family) {
      case Family::reduction:
        write_reduction(members, context, out);
        break;
      case Family::lmem_stencil:
        write_stencil(members, context, out);
        break;
      case Family::occupancy:
        write_occupancy(members, context, out);
        break;
      case Family::tail_effect:
        write_tail(members, context, out);
        break;
      case Family::matmul:
        write_matmul(members, context, out);
        break;
      case Family::ml_patterns:
        write_ml_patterns(members, context, out);
        break;
      case Family::warp_stalls:
        write_warp_stalls(members, context, out);
        break;
      case Family::calibration:
        write_calibration(members, context, out);
        break;
      case Family::multi_gpu:
        write_multi_gpu(members, context, out);
        break;
    }
  }
}

}  // namespace limiter::kernels
