#pragma once
// The hot PCs' SASS (HotPc::sass), from the cubins the PC-sampling session kept
// (cubins/<crc>.cubin under a record's raw folder) through the toolkit's nvdisasm. CUPTI does not
// disassemble; nvdisasm runs in `limiter run` after the app ended, when a `limiter.profile()`
// block ends (its record written, the kernels done), or on a recorded run's cubins later.
// Host-only: no CUDA header.
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "limiter/stalls.hpp"

namespace limiter {

// The file a cubin of CRC is kept in: "<16 hex digits>.cubin".
std::string cubin_file_name(std::uint64_t crc);

// nvdisasm's listing (`nvdisasm -c`) by function (mangled name) and offset: the instruction
// text without its ';' ("LDG.E R2, desc[UR4][R2.64]").
using SassListing = std::map<std::string, std::map<std::uint64_t, std::string>>;
SassListing parse_nvdisasm(const std::string& listing);

// A function of a cubin: its ELF symbol index (what `nvdisasm -fun` takes) and its code bytes
// (empty where the file does not hold them where its symbol says), a view into its CubinFunctions'
// file, which it must not outlive.
struct CubinFunction {
  std::uint32_t symbol = 0;
  std::span<const std::uint8_t> code;
};
// The functions of the cubin at PATH (an ELF file) by mangled name, and the SM it was built for
// (90 for sm_90; 0 when unknown); no function when it is not an ELF file. The file is read once
// and kept, shared: the functions' code is never copied (a PyTorch program keeps ~70 MB of cubins).
struct CubinFunctions {
  int sm = 0;
  // The architecture's variant ptxas compiled for: "a" (sm_90a, sm_100a: arch-specific
  // instructions such as wgmma), "f", or "" — from the .note.nv.tkinfo note's "-arch sm_90a",
  // since the ELF flags of sm_90 and sm_90a are the same (CUDA 13.0).
  std::string variant;
  // nvdisasm's name for it (-b): "SM90", "SM90a"; empty when the SM is not known.
  std::string nvdisasm_arch() const { return sm > 0 ? "SM" + std::to_string(sm) + variant : ""; }
  std::shared_ptr<const std::string> file;
  std::map<std::string, CubinFunction> functions;
};
CubinFunctions read_cubin_functions(const std::string& path);

// The nvdisasm to run: on PATH, else the toolkit's (/usr/local/cuda/bin); empty when none.
std::string find_nvdisasm();

// Fills the hot PCs' sass of INFO from the cubins found in DIRS (each a folder of
// cubin_file_name files), disassembled by NVDISASM. The hot instructions alone go to one nvdisasm
// as a raw instruction binary per architecture (`-b SM90a --base-address 0x100000000`: 16 bytes each, in CRC,
// function and offset order), since nvdisasm's time grows with what it reads (a PyTorch program's
// 32 hot functions whole: 1.2 s, H200, 2026-11-27); a relative branch's target is then written as
// the function's own offset. A cubin whose code cannot be read so, or an nvdisasm that refuses -b,
// gets `-fun` on its cubin (the whole cubin without it), a cubin a core. No run starts after
// BUDGET (the app has ended and its user waits). Returns what could not be done, for the user (""
// when every kernel's cubin was found and disassembled); sass stays empty there.
// RUNS, when given, says what ran.
struct SassRuns {
  std::size_t raw_instructions = 0;  // hot instructions disassembled from raw binaries
  std::size_t raw_runs = 0;          // nvdisasm runs of raw binaries (done or refused)
  std::size_t cubin_runs = 0;        // nvdisasm runs on a cubin (-fun or whole)
};
std::string fill_sass(StallInfo& info, const std::vector<std::string>& dirs, const std::string& nvdisasm,
                      std::chrono::milliseconds budget = std::chrono::seconds(30), SassRuns* runs = nullptr);

}  // namespace limiter
