#include "limiter/kernels/catalog.hpp"

#include <algorithm>
#include <ostream>

#include "catalog_parts.hpp"
#include "limiter/error.hpp"

namespace limiter::kernels {

std::string to_string(Family family) {
  switch (family) {
    case Family::reduction:
      return "reduction";
    case Family::lmem_stencil:
      return "lmem_stencil";
    case Family::occupancy:
      return "occupancy";
    case Family::tail_effect:
      return "tail_effect";
    case Family::matmul:
      return "matmul";
    case Family::ml_patterns:
      return "ml_patterns";
    case Family::warp_stalls:
      return "warp_stalls";
    case Family::calibration:
      return "calibration";
    case Family::multi_gpu:
      return "multi_gpu";
  }
  return "reduction";
}

const std::vector<Family>& all_families() {
  static const std::vector<Family> families = {Family::reduction,   Family::lmem_stencil, Family::occupancy,
                                               Family::tail_effect, Family::matmul,       Family::ml_patterns,
                                               Family::warp_stalls, Family::calibration,  Family::multi_gpu};
  return families;
}

std::optional<Family> family_from_string(std::string_view name) {
  for (Family family : all_families())
    if (to_string(family) == name) return family;
  return std::nullopt;
}

std::string to_string(ProblemSize size) { return size == ProblemSize::small ? "small" : "full"; }

ProblemSize problem_size_from_string(const std::string& text) {
  if (text == "small") return ProblemSize::small;
  if (text == "full") return ProblemSize::full;
  throw InputError("unknown --sizes '" + text + "' (expected small or full)");
}

namespace {

using detail::add_entry;

constexpr auto bandwidth = Verdict::bandwidth;
constexpr auto instruction = Verdict::instruction;
constexpr auto latency = Verdict::latency;

void add_reduction_ladder(std::vector<CatalogEntry>& entries) {
  struct Step {
    const char* name;
    Verdict intended_4m;   // 2^22 ints: 16 MiB, 3.5 us of HBM time on an H200
    Verdict intended_32m;  // 2^25 ints
    const char* claim;
  };
  // Seed 002's table (G80, 2^22 ints) gives the speed-ups quoted in the claims. The intended
  // verdicts are what each step's bottleneck is on an H100/H200 (checked against Nsight
  // Compute's SOL there): the shared-memory tree of kernels 2-4 keeps the L1/shared pipe
  // busiest; from kernel 5 on the code is lean enough to be latency-limited (seed 000: "many
  // highly-optimized routines become latency limited as work efficiency improves") until
  // kernel 7 reads enough bytes per thread to be bandwidth-bound, on the 2^25-int input only:
  // 2^22 ints are too few to fill an H200's HBM pipeline.
  const Step steps[] = {
      {"reduce1_interleaved_divergent", instruction, instruction,
       "kernel 1: interleaved addressing, `tid % (2*s)` with divergent branches: issue-bound on the modulo "
       "and branches; the slowest step (seed: 8.054 ms, 2.083 GB/s on 2^22 ints)"},
      {"reduce2_interleaved_bank_conflicts", bandwidth, bandwidth,
       "kernel 2: a strided index instead of the modulo removes divergence (2.33x in the seed), but strides "
       "of 2s words conflict on shared-memory banks: the L1/shared pipe is the busiest unit"},
      {"reduce3_sequential_addressing", bandwidth, bandwidth,
       "kernel 3: sequential addressing is free of bank conflicts (2.01x step, 4.68x cumulative in the seed); "
       "the shared-memory tree still leads, close to balanced with issue"},
      {"reduce4_first_add_during_load", latency, bandwidth,
       "kernel 4: the first add during the global load halves the blocks and the idle threads (1.78x step, "
       "8.34x cumulative); on 2^22 ints it sits at the latency threshold"},
      {"reduce5_unroll_last_warp", latency, latency,
       "kernel 5: the last warp unrolled without barriers (1.8x step, 15.01x cumulative); written with "
       "__syncwarp() between steps, because seed 004 forbids relying on implicit warp lock-step"},
      {"reduce6_completely_unrolled", latency, latency,
       "kernel 6: completely unrolled with the block size as a template parameter (1.41x step, 21.16x "
       "cumulative); lean code, two elements per thread: latency-limited"},
      {"reduce7_multiple_elements", latency, bandwidth,
       "kernel 7: many elements per thread (a grid-stride loop over a grid of one wave): 1.42x step, 30.04x "
       "cumulative, bandwidth-bound in the seed (62.7 GB/s on 2^22 ints, 73 GB/s on 2^25)"},
      {"reduce8_warp_shuffle", latency, bandwidth,
       "kernel 7 with warp shuffles instead of shared memory inside each warp: seed 004's supported, "
       "future-proof way for the threads of a warp to exchange data"},
  };
  for (const bool large : {false, true}) {
    for (const auto& step : steps) {
      add_entry(entries, std::string(step.name) + (large ? "_32M" : "_4M"), Family::reduction,
                large ? step.intended_32m : step.intended_4m, "002, 004", large ? "2^25 ints" : "2^22 ints",
                step.claim);
    }
  }
}

// The patterns ML programs spend their time in (tensor cores, shared memory, atomics, gathers),
// each with the sub-unit that Nsight Compute's Speed-of-Light breakdown finds busiest.
void add_ml_patterns(std::vector<CatalogEntry>& entries) {
  add_entry(entries, "tensor_mma_loop", Family::ml_patterns, instruction, "002", "4 x 1024 MMAs per warp",
            "warp-level mma.sync (WMMA, fp16 in, fp32 out) on register-resident tiles, four accumulators "
            "per warp: the tensor pipe is the busiest unit while issue slots stay low, so a verdict from "
            "issue slots alone would call it latency-limited (cuBLAS and cuDNN GEMMs are this kind)");
  add_entry(entries, "shared_bank_conflicts", Family::ml_patterns, bandwidth, "002", "32-way conflicts",
            "every lane of a warp reads the same shared-memory bank: each load is replayed as 32 "
            "wavefronts, and the L1/shared data pipe limits (seed 002's kernel 2, in its purest form)");
  add_entry(entries, "atomics_many_addresses", Family::ml_patterns, bandwidth, "-", "2^26 adds into 2^20 bins",
            "a histogram with atomicAdd spread over 4 MiB of bins: the L2 slices' atomic units are "
            "busier than their sector counts suggest (index_add_, scatter_add_, embedding backward)");
  add_entry(entries, "atomics_few_addresses", Family::ml_patterns, latency, "-", "2^24 adds into 8 bins",
            "the same adds into 8 bins: they queue on eight addresses in a handful of L2 slices, so "
            "the GPU-wide averages stay low while the kernel waits on the serialised updates");
  add_entry(entries, "random_gather", Family::ml_patterns, latency, "000", "2^25 reads of a 1 GiB table",
            "out[i] = table[hash(i)], four independent reads per thread: each 4-byte read opens a new DRAM "
            "page for one 32-byte sector, and DRAM stays 50-60% busy (ncu agrees on an H200 and an H100) - "
            "the gather waits on DRAM latency, not bandwidth (seed 000: more reads in flight, or sort the "
            "indices so neighbours share sectors)");
}

std::vector<CatalogEntry> build_catalog() {
  std::vector<CatalogEntry> entries;
  add_reduction_ladder(entries);

  const std::string stencil = "1024x512x256 floats, radius 4";
  // Seed 001 calls the stencil "largely memory bandwidth-bound" on Fermi. On an H200 its march
  // keeps too few bytes in flight to reach 60% of HBM or L2: latency-limited, until the L1
  // carve-out turns the spills into L1 traffic and the L1 pipe leads.
  add_entry(entries, "stencil8_unspilled", Family::lmem_stencil, latency, "001", stencil,
            "8th-order 3D wave-equation stencil with no register cap: 48 registers, no local memory "
            "(seed: removing -maxrregcount=32 gave 46 registers and 1.22x)");
  add_entry(entries, "stencil8_spilling", Family::lmem_stencil, latency, "001", stencil,
            "the same stencil capped at 32 registers (the seed's -maxrregcount=32, for full occupancy) "
            "spills 40 bytes; LMEM is most of its L1-L2 traffic (seed: 53.38% of L2 queries by its "
            "estimate) and a small share of its instructions (seed: 4.6%)");
  add_entry(entries, "stencil8_spilling_l1_carveout", Family::lmem_stencil, bandwidth, "001", stencil,
            "same cap, with the largest L1 carve-out (today's cudaFuncCachePreferL1): more LMEM loads hit "
            "L1 (seed: 98.32% hit rate, LMEM 1.63% of L2 requests, 1.45x)");
  add_entry(entries, "stencil8_spilling_dlcm_cg", Family::lmem_stencil, latency, "001", stencil,
            "same cap, compiled with -Xptxas -dlcm=cg: global loads bypass L1 and leave it to the spilled "
            "registers (the seed's third remedy)");

  const std::string scan = "2^25 ints, tile scan";
  add_entry(entries, "scan_nt256_vt1", Family::occupancy, latency, "000", scan,
            "grain size VT=1: the once-per-CTA block scan and its barriers are paid for every element and "
            "each thread has one load in flight: under-occupied despite 100% occupancy (seed: poor ILP; "
            "register-block with a grain size VT)");
  add_entry(entries, "scan_nt256_vt7", Family::occupancy, bandwidth, "000", scan,
            "odd grain size VT=7: each thread reads 7 consecutive words of shared memory without bank "
            "conflicts (why MGPU's VT is almost always odd)");
  add_entry(entries, "scan_nt256_vt8_even", Family::occupancy, bandwidth, "000", scan,
            "even grain size VT=8: the same reads hit 8-way bank conflicts and load the shared-memory pipe "
            "more than VT=7 or 9 (seed: omit even grain sizes when searching the tuning space)");
  add_entry(entries, "scan_nt256_vt9", Family::occupancy, bandwidth, "000", scan,
            "odd grain size VT=9: conflict-free again; compare with VT=8");
  add_entry(entries, "scan_nt256_vt23", Family::occupancy, bandwidth, "000", scan,
            "large grain size VT=23: more registers per thread, so fewer CTAs per SM (parallelism "
            "decreases as the grain size goes up)");
  add_entry(entries, "scan_nt256_vt23_launch_bounds", Family::occupancy, bandwidth, "000", scan,
            "VT=23 with __launch_bounds__(256, 8): the register cap fits 8 CTAs per SM and the code "
            "generator spills the overflow (seed: KernelFoo with __launch_bounds__(128, 7))");
  add_entry(entries, "scan_nt256_vt7_dynamic_index", Family::occupancy, bandwidth, "000", scan,
            "VT=7 with the register array indexed by a loop that is not unrolled: the array lives in "
            "local memory (seed: never allow spill caused by inadvertent dynamic indexing)");

  const std::string tail = "2.5 waves of 256-thread blocks";
  add_entry(entries, "tail_2_5_waves", Family::tail_effect, latency, "003", tail,
            "a grid of 2.5 waves at 4 blocks per SM: the last half wave leaves SMs idle (seed: 128 blocks "
            "at 52 per wave on a K20, 2 full waves and a tail of 24)");
  add_entry(entries, "tail_launch_bounds_2_waves", Family::tail_effect, latency, "003", tail,
            "the same work with __launch_bounds__(256, 5): 5 blocks per SM, exactly 2 waves (seed: 1.19x, "
            "4.535 ms -> 3.825 ms)");

  const std::string matmul = "4096x4096 floats";
  add_entry(entries, "matmul_naive", Family::matmul, bandwidth, "002", matmul,
            "one output per thread, two global loads per FMA: the L1 pipe limits");
  add_entry(entries, "matmul_tiled_16x16", Family::matmul, bandwidth, "002", matmul,
            "16x16 shared-memory tiles cut global loads 16-fold (tiling reduces GMEM accesses); two "
            "shared-memory loads per FMA now keep the shared-memory pipe busy");
  add_entry(entries, "matmul_register_blocked_4x4", Family::matmul, bandwidth, "002", matmul,
            "more work per thread (thread granularity): 4x4 outputs per thread, two 16-byte shared loads "
            "per 16 FMAs; 3.5x faster, yet the shared-memory pipe still leads");
  add_entry(entries, "matmul_register_blocked_8x8", Family::matmul, instruction, "002", matmul,
            "8x8 outputs per thread, four 16-byte shared loads per 64 FMAs: enough work per thread that "
            "the FMA pipe limits (at the price of registers: fewer, fatter threads)");

  add_ml_patterns(entries);
  detail::add_warp_stalls(entries);

  add_entry(entries, "calib_hbm_stream_read", Family::calibration, bandwidth, "METHOD 5", "1 GiB read once",
            "a streaming read of far more bytes than L2 holds: the achieved DRAM bandwidth");
  add_entry(entries, "calib_l2_resident_read_cg", Family::calibration, bandwidth, "METHOD 5", "8 MiB read 64 times",
            "ld.global.cg over a buffer far smaller than L2: the achieved L2 bandwidth");
  add_entry(entries, "calib_fma_ilp", Family::calibration, instruction, "METHOD 5", "8 FFMA chains per thread",
            "eight independent FMA chains per thread at full occupancy: the achieved issue and FP32 rate");
  add_entry(entries, "calib_pointer_chase", Family::calibration, latency, "METHOD 5, 000", "2^25-entry random cycle",
            "one dependent load at a time per thread: latency, not throughput, decides (seed 000: a "
            "latency-limited kernel has too little parallelism to hide latency)");

  add_entry(entries, "halo_exchange_peer_copy", Family::multi_gpu, std::nullopt, "001", "4 planes each way",
            "1D decomposition along z: each GPU sends its boundary planes right, then left, with "
            "cudaMemcpyPeerAsync, no staging through the host (a copy engine, not a kernel)");
  add_entry(entries, "halo_pull_peer_kernel", Family::multi_gpu, latency, "001", "4 planes",
            "a kernel on GPU 0 reads GPU 1's boundary planes through unified addressing and peer access; "
            "the link, which no local unit's counters weigh, is what it waits on");
  detail::set_intended_stalls(entries);
  return entries;
}

}  // namespace

const std::vector<CatalogEntry>& catalog() {
  static const std::vector<CatalogEntry> entries = build_catalog();
  return entries;
}

const CatalogEntry* find_entry(std::string_view name) {
  for (const auto& entry : catalog())
    if (entry.name == name) return &entry;
  return nullptr;
}

std::vector<const CatalogEntry*> select_entries(const std::vector<std::string>& only) {
  std::vector<const CatalogEntry*> selected;
  for (const auto& word : only) {
    if (!find_entry(word) && !family_from_string(word)) {
      throw InputError("unknown kernel or family '" + word + "' for --only (`limiter kernels --list` shows the names)");
    }
  }
  for (const auto& entry : catalog()) {
    const bool wanted = only.empty() || std::any_of(only.begin(), only.end(), [&](const std::string& word) {
                          return word == entry.name || word == to_string(entry.family);
                        });
    if (wanted) selected.push_back(&entry);
  }
  return selected;
}

std::string intended_stall_text(const CatalogEntry& entry) {
  std::string text;
  for (const auto& reason : entry.intended_stalls) text += (text.empty() ? "" : "/") + reason;
  return text.empty() ? "-" : text;
}

void write_catalog(const std::vector<const CatalogEntry*>& entries, std::ostream& out) {
  std::size_t name_width = 4;
  for (const auto* entry : entries) name_width = std::max(name_width, entry->name.size());
  auto pad = [](const std::string& text, std::size_t width) {
    return text.size() >= width ? text + " " : text + std::string(width - text.size() + 1, ' ');
  };
  out << pad("kernel", name_width) << pad("family", 12) << pad("intended", 11) << pad("intended stall", 31)
      << pad("seed", 14) << "problem\n";
  for (const auto* entry : entries) {
    out << pad(entry->name, name_width) << pad(to_string(entry->family), 12)
        << pad(entry->intended ? to_string(*entry->intended) : "-", 11) << pad(intended_stall_text(*entry), 31)
        << pad(entry->seed, 14) << entry->problem << "\n"
        << std::string(name_width + 1, ' ') << entry->claim << "\n";
  }
  out << entries.size() << (entries.size() == 1 ? " experiment" : " experiments")
      << "; `--only NAME|FAMILY ...` selects (families: ";
  for (std::size_t i = 0; i < all_families().size(); ++i) out << (i ? ", " : "") << to_string(all_families()[i]);
  out << ")\n";
}

}  // namespace limiter::kernels
