#pragma once
// The hot PCs' SASS (HotPc::sass), from the cubins the PC-sampling session kept
// (cubins/<crc>.cubin under a record's raw folder) through the toolkit's nvdisasm. CUPTI does not
// disassemble; nvdisasm runs in `limiter run` after the app ended (never inside the profiled
// process) or on a recorded run's cubins later. Host-only: no CUDA header.
#include <chrono>
#include <cstdint>
#include <map>
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

// The function symbols of the cubin at PATH (an ELF file) by name, with their symbol indices
// (what `nvdisasm -fun` takes); empty when it is not one.
std::map<std::string, std::uint32_t> cubin_function_symbols(const std::string& path);

// The nvdisasm to run: on PATH, else the toolkit's (/usr/local/cuda/bin); empty when none.
std::string find_nvdisasm();

// Fills the hot PCs' sass of INFO from the cubins found in DIRS (each a folder of
// cubin_file_name files), disassembled by NVDISASM, a cubin a core, none started after BUDGET
// (the app has ended and its user waits: ~1 s a cubin, hundreds in a large program). Returns what
// could not be done, for the user ("" when every kernel's cubin was found and disassembled);
// sass stays empty there.
std::string fill_sass(StallInfo& info, const std::vector<std::string>& dirs, const std::string& nvdisasm,
                      std::chrono::milliseconds budget = std::chrono::seconds(30));

}  // namespace limiter
