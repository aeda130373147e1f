// The hot PCs' SASS (limiter/stall_sass.hpp): nvdisasm's listing parsed per function and
// offset, cubins found by CRC, and what is said when a cubin or nvdisasm is missing.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "limiter/stall_sass.hpp"
#include "test_data.hpp"

namespace limiter {
namespace {

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// `nvdisasm -c` of tests/data/stalls/stall_probe.cu's cubin (sm_90, CUDA 13.0, on the H100).
std::string probe_listing() { return read(testing::kData + "/stalls/stall_probe.nvdisasm.txt"); }

TEST(PcSamplingSass, TheListingIsReadPerFunctionAndOffset) {
  const SassListing listing = parse_nvdisasm(probe_listing());
  ASSERT_EQ(listing.count("_Z5chasePKjPjii"), 1u);
  ASSERT_EQ(listing.count("_Z7barrierPfi"), 1u);
  const auto& chase = listing.at("_Z5chasePKjPjii");
  ASSERT_FALSE(chase.empty());
  EXPECT_EQ(chase.begin()->first, 0u);
  bool load = false;
  for (const auto& [offset, text] : chase) {
    EXPECT_EQ(offset % 16, 0u) << text;  // sm_90: 16-byte instructions
    EXPECT_EQ(text.find(';'), std::string::npos) << text;
    load |= text.rfind("LDG", 0) == 0;
  }
  EXPECT_TRUE(load);  // the chase's dependent load
}

TEST(PcSamplingSass, CubinsAreNamedByCrc) {
  EXPECT_EQ(cubin_file_name(0x1234abcd), "000000001234abcd.cubin");
}

TEST(PcSamplingSass, AMissingCubinOrNvdisasmIsSaidAndLeavesTheSassEmpty) {
  char pattern[] = "/tmp/limiter-sass-XXXXXX";
  const std::string dir = mkdtemp(pattern);
  std::ofstream(std::filesystem::path(dir) / cubin_file_name(5)) << "not a cubin";
  StallInfo info;
  KernelStalls kernel;
  kernel.mangled_name = "_Z1kv";
  kernel.cubin_crc = 5;
  kernel.hot_pcs.push_back({});
  info.kernels = {kernel, kernel};
  info.kernels[1].cubin_crc = 6;
  const std::string note = fill_sass(info, {dir}, "");
  EXPECT_NE(note.find("1 kernel module(s) without a kept cubin"), std::string::npos) << note;
  EXPECT_NE(note.find("1 cubin(s) not disassembled: nvdisasm not found"), std::string::npos) << note;
  EXPECT_TRUE(info.kernels[0].hot_pcs[0].sass.empty());
  // A failing disassembler is said as such.
  EXPECT_NE(fill_sass(info, {dir}, "/bin/false").find("nvdisasm failed"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(PcSamplingSass, TheHotPcsGetTheirInstructions) {
  char pattern[] = "/tmp/limiter-sass-XXXXXX";
  const std::string dir = mkdtemp(pattern);
  std::ofstream(std::filesystem::path(dir) / cubin_file_name(9)) << "cubin";
  // A stand-in disassembler that prints the probe's listing, as nvdisasm would for its cubin.
  const std::string tool = dir + "/fake-nvdisasm";
  std::ofstream(tool) << "#!/bin/sh\ncat '" << testing::kData + "/stalls/stall_probe.nvdisasm.txt" << "'\n";
  std::filesystem::permissions(tool, std::filesystem::perms::owner_all);
  const auto listing = parse_nvdisasm(probe_listing()).at("_Z7barrierPfi");
  StallInfo info;
  KernelStalls kernel;
  kernel.mangled_name = "_Z7barrierPfi";
  kernel.cubin_crc = 9;
  HotPc pc;
  pc.pc_offset = listing.rbegin()->first;
  kernel.hot_pcs = {pc};
  info.kernels = {kernel};
  EXPECT_EQ(fill_sass(info, {dir}, tool), "");
  EXPECT_EQ(info.kernels[0].hot_pcs[0].sass, listing.rbegin()->second);
  EXPECT_FALSE(info.kernels[0].hot_pcs[0].sass.empty());
  std::filesystem::remove_all(dir);
}

TEST(PcSamplingSass, ACubinsFunctionsAreFoundByNameWithTheirSymbolIndices) {
  // nvcc -lineinfo -O3 -arch=sm_90 -cubin of tests/data/stalls/stall_probe.cu (CUDA 13.0).
  const auto symbols = cubin_function_symbols(testing::kData + "/stalls/stall_probe.sm_90.cubin");
  ASSERT_EQ(symbols.count("_Z5chasePKjPjii"), 1u);
  ASSERT_EQ(symbols.count("_Z7barrierPfi"), 1u);
  EXPECT_NE(symbols.at("_Z5chasePKjPjii"), symbols.at("_Z7barrierPfi"));
  EXPECT_GT(symbols.at("_Z7barrierPfi"), 0u);  // index 0 is ELF's null symbol
  EXPECT_TRUE(cubin_function_symbols(testing::kData + "/stalls/stall_probe.cu").empty());  // not ELF
  EXPECT_TRUE(cubin_function_symbols("/nonexistent.cubin").empty());
}

TEST(PcSamplingSass, OnlyTheHotFunctionsAreDisassembledAndAnNvdisasmWithoutTheOptionGetsTheWholeCubin) {
  char pattern[] = "/tmp/limiter-sass-XXXXXX";
  const std::string dir = mkdtemp(pattern);
  const std::string cubin = testing::kData + "/stalls/stall_probe.sm_90.cubin";
  std::filesystem::copy_file(cubin, std::filesystem::path(dir) / cubin_file_name(9));
  const std::string index = std::to_string(cubin_function_symbols(cubin).at("_Z7barrierPfi"));
  // A stand-in that logs its arguments and prints the probe's listing; the second refuses -fun.
  const std::string log = dir + "/args", tool = dir + "/fake-nvdisasm", old_tool = dir + "/old-nvdisasm";
  const std::string listing = testing::kData + "/stalls/stall_probe.nvdisasm.txt";
  std::ofstream(tool) << "#!/bin/sh\necho \"$@\" >> '" << log << "'\ncat '" << listing << "'\n";
  std::ofstream(old_tool) << "#!/bin/sh\necho \"$@\" >> '" << log << "'\ncase \"$*\" in *-fun*) exit 1;; esac\ncat '"
                          << listing << "'\n";
  for (const auto& path : {tool, old_tool}) std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  StallInfo info;
  KernelStalls kernel;
  kernel.mangled_name = "_Z7barrierPfi";
  kernel.cubin_crc = 9;
  kernel.hot_pcs = {HotPc{}};
  kernel.hot_pcs[0].pc_offset = 0x90;
  info.kernels = {kernel};
  EXPECT_EQ(fill_sass(info, {dir}, tool), "");
  EXPECT_EQ(info.kernels[0].hot_pcs[0].sass, "LDG.E R7, desc[UR6][R2.64]");
  EXPECT_NE(read(log).find("-c -fun " + index + " "), std::string::npos) << read(log);
  std::filesystem::remove(log);
  info.kernels[0].hot_pcs[0].sass.clear();
  EXPECT_EQ(fill_sass(info, {dir}, old_tool), "");
  EXPECT_EQ(info.kernels[0].hot_pcs[0].sass, "LDG.E R7, desc[UR6][R2.64]");
  EXPECT_NE(read(log).find("\n-c /"), std::string::npos) << read(log);  // then the whole cubin
  std::filesystem::remove_all(dir);
}

TEST(PcSamplingSass, ManyCubinsAreDisassembledEachOnceAndEveryKernelGetsItsSass) {
  char pattern[] = "/tmp/limiter-sass-XXXXXX";
  const std::string dir = mkdtemp(pattern);
  const std::string cubin = testing::kData + "/stalls/stall_probe.sm_90.cubin";
  const std::string log = dir + "/args", tool = dir + "/fake-nvdisasm";
  std::ofstream(tool) << "#!/bin/sh\necho \"$@\" >> '" << log << "'\ncat '"
                      << testing::kData + "/stalls/stall_probe.nvdisasm.txt" << "'\n";
  std::filesystem::permissions(tool, std::filesystem::perms::owner_all);
  StallInfo info;
  for (std::uint64_t crc = 1; crc <= 12; ++crc) {  // more cubins than a small machine has cores
    std::filesystem::copy_file(cubin, std::filesystem::path(dir) / cubin_file_name(crc));
    for (const char* name : {"_Z7barrierPfi", "_Z5chasePKjPjii"}) {
      KernelStalls kernel;
      kernel.mangled_name = name;
      kernel.cubin_crc = crc;
      kernel.hot_pcs = {HotPc{}};
      info.kernels.push_back(kernel);
    }
  }
  EXPECT_EQ(fill_sass(info, {dir}, tool), "");
  for (const auto& kernel : info.kernels) EXPECT_FALSE(kernel.hot_pcs[0].sass.empty()) << kernel.cubin_crc;
  std::ifstream lines(log);
  std::string line;
  int runs = 0;
  while (std::getline(lines, line)) ++runs;
  EXPECT_EQ(runs, 12);  // one nvdisasm a cubin, both kernels in its -fun list
  std::filesystem::remove_all(dir);
}

TEST(PcSamplingSass, CubinsNotStartedWithinTheBudgetAreSaidAndKeepTheirLines) {
  char pattern[] = "/tmp/limiter-sass-XXXXXX";
  const std::string dir = mkdtemp(pattern);
  const std::string cubin = testing::kData + "/stalls/stall_probe.sm_90.cubin";
  StallInfo info;
  for (std::uint64_t crc = 1; crc <= 3; ++crc) {
    std::filesystem::copy_file(cubin, std::filesystem::path(dir) / cubin_file_name(crc));
    KernelStalls kernel;
    kernel.mangled_name = "_Z7barrierPfi";
    kernel.cubin_crc = crc;
    kernel.hot_pcs = {HotPc{}};
    kernel.hot_pcs[0].file = "stall_probe.cu";
    kernel.hot_pcs[0].line = 26;
    info.kernels.push_back(kernel);
  }
  const std::string note = fill_sass(info, {dir}, "/bin/true", std::chrono::milliseconds(0));
  EXPECT_NE(note.find("3 cubin(s) not disassembled within 0 s"), std::string::npos) << note;
  EXPECT_EQ(note.find("nvdisasm failed"), std::string::npos) << note;  // not run, so not failed
  for (const auto& kernel : info.kernels) {
    EXPECT_TRUE(kernel.hot_pcs[0].sass.empty());
    EXPECT_EQ(kernel.hot_pcs[0].line, 26u);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace limiter
