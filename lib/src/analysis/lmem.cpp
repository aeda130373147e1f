// Local-memory shares (docs/design.md §7 and §7): of L1<->L2 traffic, of instructions, and the
// L1 hit rates — on PerfWorks counters (GPU-wide sectors, write-through L1) and on the
// seed's legacy counters (per-SM 128-byte transactions, write-back L1).
#include <string>

#include "analysis/analysis_steps.hpp"
#include "analysis/counter_names.hpp"
#include "limiter/format.hpp"

namespace limiter::detail {
namespace {

namespace c = counters;

std::optional<double> ratio(std::optional<double> numerator, std::optional<double> denominator) {
  if (!numerator || !denominator || *denominator <= 0) return std::nullopt;
  return *numerator / *denominator;
}

std::optional<double> hit_rate(std::optional<double> hits, std::optional<double> misses) {
  if (!hits || !misses) return std::nullopt;
  return ratio(hits, *hits + *misses);
}

// string_view: the names' lengths are known at compile time, not measured per launch.
std::optional<double> optional_sum(const KernelLaunch& k, std::initializer_list<std::string_view> required,
                                   std::initializer_list<std::string_view> optional_terms = {}) {
  double total = 0;
  for (const std::string_view metric : required) {
    auto value = k.counter(metric);
    if (!value) return std::nullopt;
    total += *value;
  }
  for (const std::string_view metric : optional_terms) total += k.counter(metric).value_or(0.0);
  return total;
}

// Sectors written partially, and counters taken in different replay passes, put a side a
// fraction of a percent above 1 (0.13 % seen on an H200); beyond this tolerance it is a defect.
constexpr double kSideTolerance = 1.01;

void check_side(LmemAnalysis& lmem, const std::optional<double>& share, const char* side) {
  if (share && *share > kSideTolerance) {
    lmem.warnings.push_back(std::string("LMEM ") + side + " share is " + format_percent(share) +
                            ", above 100%: the counters disagree (different replay passes, or other work "
                            "on the GPU during profiling)");
  }
}

LmemAnalysis perfworks_lmem(const KernelLaunch& k) {
  LmemAnalysis lmem;
  auto ld_hit = k.counter(c::local_ld_hit), ld_miss = k.counter(c::local_ld_miss);
  auto st_hit = k.counter(c::local_st_hit), st_miss = k.counter(c::local_st_miss);
  lmem.l1_load_hit_rate = hit_rate(ld_hit, ld_miss);
  lmem.l1_store_hit_rate = hit_rate(st_hit, st_miss);

  auto all_reads = optional_sum(k, {c::l2_read_sectors});
  auto all_writes = optional_sum(k, {c::l2_write_sectors});
  auto all_queries =
      optional_sum(k, {c::l2_read_sectors, c::l2_write_sectors}, {c::l2_atom_sectors, c::l2_red_sectors});
  auto tex_reads = optional_sum(k, {c::l2_tex_read_sectors});
  auto tex_writes = optional_sum(k, {c::l2_tex_write_sectors});
  auto tex_all = optional_sum(k, {c::l2_tex_read_sectors, c::l2_tex_write_sectors},
                              {c::l2_tex_atom_sectors, c::l2_tex_red_sectors});

  if (ld_miss && st_hit && st_miss) {
    // L1 writes through since Volta: every local store sector reaches L2, hit or miss.
    const double lmem_sectors = *ld_miss + *st_hit + *st_miss;
    lmem.l2_sectors = lmem_sectors;
    if (tex_all) {
      lmem.l2_share = ratio(lmem_sectors, tex_all);
      lmem.l2_read_share = ratio(ld_miss, tex_reads);
      lmem.l2_write_share = ratio(*st_hit + *st_miss, tex_writes);
    } else if (all_queries) {
      lmem.l2_share = ratio(lmem_sectors, all_queries);
      lmem.l2_read_share = ratio(ld_miss, all_reads);
      lmem.l2_write_share = ratio(*st_hit + *st_miss, all_writes);
      lmem.warnings.push_back(
          "no L1-sourced L2 counters (lts__t_sectors_srcunit_tex_*): the share is taken over "
          "all L2 lookups, which count traffic between L2 partitions twice, so it is understated");
    }
    if (lmem_sectors == 0 && !lmem.l2_share) lmem.l2_share = 0.0;
  }
  if (ld_miss) {
    // The seed's estimate: each load miss implies an earlier write-back, over all L2 queries.
    lmem.l2_share_seed = ratio(2.0 * *ld_miss, all_queries ? all_queries : tex_all);
  }
  auto local_inst = optional_sum(k, {c::local_ld_inst, c::local_st_inst});
  if (!local_inst) local_inst = optional_sum(k, {c::local_ld_requests, c::local_st_requests});
  lmem.instruction_share = ratio(local_inst, k.counter(c::inst_issued));
  check_side(lmem, lmem.l2_read_share, "read");
  check_side(lmem, lmem.l2_write_share, "write");
  return lmem;
}

LmemAnalysis legacy_lmem(const KernelLaunch& k, const DeviceDescription& device) {
  LmemAnalysis lmem;
  auto ld_hit = k.counter(c::legacy_ld_hit), ld_miss = k.counter(c::legacy_ld_miss);
  auto st_hit = k.counter(c::legacy_st_hit), st_miss = k.counter(c::legacy_st_miss);
  lmem.l1_load_hit_rate = hit_rate(ld_hit, ld_miss);
  lmem.l1_store_hit_rate = hit_rate(st_hit, st_miss);

  std::optional<double> l2_reads, l2_writes;
  const std::string prefix = c::legacy_l2_prefix;
  auto ends_with = [](const std::string& text, const std::string& suffix) {
    return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  for (const auto& [metric, value] : k.counters) {
    if (metric.rfind(prefix, 0) != 0) continue;
    if (ends_with(metric, c::legacy_l2_read_suffix)) l2_reads = l2_reads.value_or(0.0) + value;
    if (ends_with(metric, c::legacy_l2_write_suffix)) l2_writes = l2_writes.value_or(0.0) + value;
  }
  std::optional<double> l2_all;
  if (l2_reads && l2_writes) l2_all = *l2_reads + *l2_writes;

  // Per-SM 128-byte transactions -> GPU-wide 32-byte sectors.
  const double to_sectors = device.sm_count * c::legacy_sectors_per_transaction;
  if (ld_miss && device.sm_count > 0) {
    const double read_sectors = to_sectors * *ld_miss;
    lmem.l2_share_seed = ratio(2.0 * read_sectors, l2_all);
    lmem.l2_read_share = ratio(read_sectors, l2_reads);
    lmem.l2_share_lower_bound = ratio(read_sectors, l2_all);
    if (l2_writes && read_sectors > *l2_writes) {
      lmem.warnings.push_back("the seed's estimate assumes " + format_count(read_sectors) +
                              " LMEM write-back sectors, more than all L2 writes (" + format_count(*l2_writes) +
                              "): it overstates the share; the bounded share is reported instead");
    }
    if (st_hit && st_miss) {
      // Write-back L1: at most one write-back per local store transaction.
      const double write_sectors_bound = to_sectors * (*st_hit + *st_miss);
      lmem.l2_sectors = read_sectors + write_sectors_bound;
      lmem.l2_share = ratio(read_sectors + write_sectors_bound, l2_all);
      lmem.l2_write_share = ratio(write_sectors_bound, l2_writes);
      lmem.l2_share_is_upper_bound = true;
    }
  }
  if (ld_hit && ld_miss && st_hit && st_miss) {
    // Both sides per SM; transactions stand in for instructions (exact for 4-byte accesses).
    lmem.instruction_share = ratio(*ld_hit + *ld_miss + *st_hit + *st_miss, k.counter(c::legacy_inst_issued));
  }
  check_side(lmem, lmem.l2_read_share, "read");
  check_side(lmem, lmem.l2_write_share, "write");
  return lmem;
}

}  // namespace

LmemAnalysis compute_lmem(const KernelLaunch& launch, const DeviceDescription& device, CounterModel model) {
  return model == CounterModel::legacy ? legacy_lmem(launch, device) : perfworks_lmem(launch);
}

}  // namespace limiter::detail
