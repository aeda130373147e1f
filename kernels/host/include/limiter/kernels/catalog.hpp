#pragma once
// The catalog of the shipped kernel suite, as data: every experiment `limiter kernels` runs,
// with its family, the limiter it is built to hit, and the claim of the founding documents
// (the founding seed documents 000-004, named in docs/design.md §1) it demonstrates. Host-only: `--list` and the
// recorded reports need no GPU.
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "limiter/analysis.hpp"

namespace limiter::kernels {

enum class Family {
  reduction,     // seed 002: the reduction ladder (kernels 1-7) plus a warp-shuffle version
  lmem_stencil,  // seed 001: the 3D finite-difference stencil, spilling and its three remedies
  occupancy,     // seed 000: grain size VT, block size NT and __launch_bounds__
  tail_effect,   // seed 003: a grid of 2.5 waves, and one more block per SM
  matmul,        // seed 002: thread granularity, naive to register-blocked
  ml_patterns,   // tensor-core MMA, bank conflicts, atomics, random gather
  warp_stalls,   // a barrier-heavy kernel and one dependent FMA chain, each with one dominant stall
  calibration,   // docs/design.md §7: achieved peaks (HBM, L2, FMA issue, dependent-load latency)
  multi_gpu,     // seed 001, second half: peer-to-peer halo exchange
};

std::string to_string(Family family);
std::optional<Family> family_from_string(std::string_view name);
const std::vector<Family>& all_families();  // in the order the suite runs them

// Problem sizes: `full` is what the seeds' claims are about; `small` (for tests and quick
// looks) divides every problem so that the whole suite runs in a few seconds.
enum class ProblemSize { small, full };
std::string to_string(ProblemSize size);
ProblemSize problem_size_from_string(const std::string& text);  // throws InputError

struct CatalogEntry {
  std::string name;  // unique; what `--only` and the run record use
  Family family;
  std::optional<Verdict> intended;  // empty: not a kernel the analysis judges (a copy-engine transfer)
  std::string seed;                 // "002, 004", or "METHOD 5" (calibration: docs/design.md §7)
  std::string problem;              // the full-size problem, e.g. "2^25 ints"
  std::string claim;                // what the seed says this experiment shows
  // The dominant warp stall reason PC sampling should find (ncu's Warp State keys, stalls.hpp):
  // the first is the one expected, the others name the same wait where ncu splits it in two
  // (short_scoreboard / mio_throttle: shared memory). Empty: no known answer.
  std::vector<std::string> intended_stalls;
};

const std::vector<CatalogEntry>& catalog();
const CatalogEntry* find_entry(std::string_view name);  // nullptr when unknown

// The entries `--only` selects: each word is an entry name or a family name; empty selects
// everything. Throws InputError naming an unknown word and where to find the names.
std::vector<const CatalogEntry*> select_entries(const std::vector<std::string>& only);

// "long_scoreboard", "mio_throttle/short_scoreboard", or "-" without an intended stall.
std::string intended_stall_text(const CatalogEntry& entry);

// The `--list` table: name, family, intended verdict and stall, seed, problem and claim.
void write_catalog(const std::vector<const CatalogEntry*>& entries, std::ostream& out);

}  // namespace limiter::kernels
