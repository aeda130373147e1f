// The hot PCs' SASS (limiter/stall_sass.hpp): nvdisasm's listing parsed per function and
// offset, cubins found by CRC, and what is said when a cubin or nvdisasm is missing.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <tuple>

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

TEST(PcSamplingSass, CubinsAreNamedByCrc) { EXPECT_EQ(cubin_file_name(0x1234abcd), "000000001234abcd.cubin"); }

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
  std::ofstream(tool) << "#!/bin/sh\ncat '" << testing::kData + "/stalls/stall_probe.nvdisasm.txt"
                      << "'\n";
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

TEST(PcSamplingSass, ACubinsFunctionsAreFoundByNameWithTheirSymbolIndicesAndCode) {
  // nvcc -lineinfo -O3 -arch=sm_90 -cubin of tests/data/stalls/stall_probe.cu (CUDA 13.0).
  const CubinFunctions cubin = read_cubin_functions(testing::kData + "/stalls/stall_probe.sm_90.cubin");
  EXPECT_EQ(cubin.sm, 90);
  ASSERT_EQ(cubin.functions.count("_Z5chasePKjPjii"), 1u);
  ASSERT_EQ(cubin.functions.count("_Z7barrierPfi"), 1u);
  const auto& chase = cubin.functions.at("_Z5chasePKjPjii");
  const auto& barrier = cubin.functions.at("_Z7barrierPfi");
  EXPECT_NE(chase.symbol, barrier.symbol);
  EXPECT_GT(barrier.symbol, 0u);         // index 0 is ELF's null symbol
  EXPECT_EQ(chase.code.size(), 0x780u);  // the symbols' sizes, whole 16-byte instructions
  EXPECT_EQ(barrier.code.size(), 0x800u);
  EXPECT_FALSE(std::ranges::equal(chase.code, barrier.code));
  // Views into the file read once, not copies: a function's code is where its symbol says.
  ASSERT_TRUE(cubin.file);
  EXPECT_GE(chase.code.data(), reinterpret_cast<const std::uint8_t*>(cubin.file->data()));
  EXPECT_LE(chase.code.data() + chase.code.size(),
            reinterpret_cast<const std::uint8_t*>(cubin.file->data() + cubin.file->size()));
  EXPECT_EQ(cubin.variant, "");
  EXPECT_EQ(cubin.nvdisasm_arch(), "SM90");
  EXPECT_TRUE(read_cubin_functions(testing::kData + "/stalls/stall_probe.cu").functions.empty());  // not ELF
  EXPECT_EQ(read_cubin_functions(testing::kData + "/stalls/stall_probe.cu").sm, 0);
  EXPECT_TRUE(read_cubin_functions("/nonexistent.cubin").functions.empty());
}

// A stand-in nvdisasm at DIR/NAME that logs its arguments to DIR/args and prints RAW for a raw
// binary (-b, whose input it keeps as DIR/raw-input; it refuses -b when RAW is empty) and FUN (a
// file) otherwise.
std::string fake_nvdisasm(const std::string& dir, const std::string& name, const std::string& raw,
                          const std::string& fun) {
  const std::string tool = dir + "/" + name;
  std::ofstream(dir + "/raw-listing") << raw;
  std::ofstream(tool) << "#!/bin/sh\necho \"$@\" >> '" << dir << "/args'\ncase \"$*\" in *\"-b \"*) "
                      << (raw.empty() ? "exit 1"
                                      : "for last; do :; done; cp \"$last\" '" + dir + "/raw-input'; cat '" + dir +
                                            "/raw-listing'; exit 0")
                      << ";; esac\ncat '" << fun << "'\n";
  std::filesystem::permissions(tool, std::filesystem::perms::owner_all);
  return tool;
}

// A kernel of the cubin of CRC with one hot PC at OFFSET.
KernelStalls hot_kernel(std::uint64_t crc, const std::string& name, std::uint64_t offset) {
  KernelStalls kernel;
  kernel.mangled_name = name;
  kernel.cubin_crc = crc;
  kernel.hot_pcs = {HotPc{}};
  kernel.hot_pcs[0].pc_offset = offset;
  return kernel;
}

std::string hex(std::uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "%04llx", static_cast<unsigned long long>(value));
  return text;
}

// sm_90 and sm_90a cubins carry the same ELF flags; the toolkit note names the variant, which
// nvdisasm -b needs for arch-specific instructions (wgmma).
TEST(PcSamplingSass, AnArchSpecificCubinIsReadAsItsVariant) {
  const CubinFunctions cubin = read_cubin_functions(testing::kData + "/stalls/stall_probe.sm_90a.cubin");
  EXPECT_EQ(cubin.sm, 90);
  EXPECT_EQ(cubin.variant, "a");
  EXPECT_EQ(cubin.nvdisasm_arch(), "SM90a");
  EXPECT_EQ(cubin.functions.size(),
            read_cubin_functions(testing::kData + "/stalls/stall_probe.sm_90.cubin").functions.size());
  char pattern[] = "/tmp/limiter-sass-XXXXXX";
  const std::string dir = mkdtemp(pattern);
  std::filesystem::copy_file(testing::kData + "/stalls/stall_probe.sm_90a.cubin",
                             std::filesystem::path(dir) / cubin_file_name(7));
  const std::string tool = fake_nvdisasm(dir, "fake-nvdisasm", "", testing::kData + "/stalls/stall_probe.nvdisasm.txt");
  StallInfo info;
  info.kernels.push_back(hot_kernel(7, "_Z7barrierPfi", 0x90));
  fill_sass(info, {dir}, tool, std::chrono::seconds(30));
  EXPECT_EQ(read(dir + "/args").find("-c -b SM90a --base-address 0x100000000 "), 0u) << read(dir + "/args");
  std::filesystem::remove_all(dir);
}

TEST(PcSamplingSass, TheHotInstructionsGoToOneNvdisasmAsARawBinaryAndBranchesPointIntoTheirFunction) {
  char pattern[] = "/tmp/limiter-sass-XXXXXX";
  const std::string dir = mkdtemp(pattern);
  const std::string cubin = testing::kData + "/stalls/stall_probe.sm_90.cubin";
  for (std::uint64_t crc : {1, 2}) std::filesystem::copy_file(cubin, std::filesystem::path(dir) / cubin_file_name(crc));
  // The hot instructions back to back from 2^32, in CRC, name and offset order, as nvdisasm -b
  // prints them: a relative target as an address in the file, an absolute one as it is.
  const std::uint64_t base = std::uint64_t(1) << 32;
  auto at = [&](std::uint64_t i) { return hex(base + 16 * i); };
  const std::string raw =
      "\t.headerflags\t@\"EF_CUDA_SM90\"\n"
      "        /*" +
      at(0) +
      "*/                   LDC R1, c[0x0][0x28] ;\n"
      "        /*" +
      at(1) +
      "*/                   LDG.E R7, desc[UR6][R2.64] ;\n"
      "        /*" +
      at(2) + "*/              @!P0 BRA 0x" + hex(base + 0x20 - 0xb0 + 0x40) +
      " ;\n"
      "        /*" +
      at(3) + "*/                   CALL.REL.NOINC 0x" + hex(base + 0x30 + 0x100) +
      " ;\n"
      "        /*" +
      at(4) +
      "*/                   S2R R5, SR_CTAID.X ;\n"
      "        /*" +
      at(5) + "*/                   BSSY B0, 0x" + hex(base + 0x50 + 0x740) +
      " ;\n"
      "        /*" +
      at(6) +
      "*/                   JMP 0x1234 ;\n"
      "        /*" +
      at(7) + "*/                   RET.REL.NODEC R20 0x" + hex(base + 0x70 - 0xd0) + " ;\n";
  const std::string tool =
      fake_nvdisasm(dir, "fake-nvdisasm", raw, testing::kData + "/stalls/stall_probe.nvdisasm.txt");
  StallInfo info;
  const std::vector<std::tuple<std::uint64_t, std::string, std::uint64_t>> hot = {
      {1, "_Z5chasePKjPjii", 0x0},  {1, "_Z7barrierPfi", 0x90}, {1, "_Z7barrierPfi", 0xb0}, {1, "_Z7barrierPfi", 0xc0},
      {2, "_Z5chasePKjPjii", 0x10}, {2, "_Z7barrierPfi", 0xb0}, {2, "_Z7barrierPfi", 0xc0}, {2, "_Z7barrierPfi", 0xd0}};
  for (const auto& [crc, name, offset] : hot) info.kernels.push_back(hot_kernel(crc, name, offset));
  SassRuns runs;
  EXPECT_EQ(fill_sass(info, {dir}, tool, std::chrono::seconds(30), &runs), "");
  EXPECT_EQ(runs.raw_instructions, 8u);
  EXPECT_EQ(runs.raw_runs, 1u);
  EXPECT_EQ(runs.cubin_runs, 0u);
  EXPECT_EQ(read(dir + "/args").find("-c -b SM90 --base-address 0x100000000 "), 0u) << read(dir + "/args");
  EXPECT_EQ(read(dir + "/args").find('\n'), read(dir + "/args").size() - 1) << "one nvdisasm for both cubins";
  const std::vector<std::string> sass = {"LDC R1, c[0x0][0x28]", "LDG.E R7, desc[UR6][R2.64]", "@!P0 BRA 0x40",
                                         "CALL.REL.NOINC 0x1c0", "S2R R5, SR_CTAID.X",         "BSSY B0, 0x7f0",
                                         "JMP 0x1234",           "RET.REL.NODEC R20 0x0"};
  for (std::size_t i = 0; i < sass.size(); ++i) EXPECT_EQ(info.kernels[i].hot_pcs[0].sass, sass[i]) << i;
  // What nvdisasm read: each hot instruction's 16 bytes from its function, in that order.
  const CubinFunctions functions = read_cubin_functions(cubin);
  std::string expected;
  for (const auto& [crc, name, offset] : hot) {
    const auto& code = functions.functions.at(name).code;
    expected.append(reinterpret_cast<const char*>(code.data() + offset), 16);
  }
  EXPECT_EQ(read(dir + "/raw-input"), expected);
  std::filesystem::remove_all(dir);
}

TEST(PcSamplingSass, AnNvdisasmWithoutRawBinariesGetsTheHotFunctionsAndWithoutThatTooTheWholeCubin) {
  char pattern[] = "/tmp/limiter-sass-XXXXXX";
  const std::string dir = mkdtemp(pattern);
  const std::string cubin = testing::kData + "/stalls/stall_probe.sm_90.cubin";
  std::filesystem::copy_file(cubin, std::filesystem::path(dir) / cubin_file_name(9));
  const std::string index = std::to_string(read_cubin_functions(cubin).functions.at("_Z7barrierPfi").symbol);
  // Stand-ins that log their arguments, refuse -b (an older nvdisasm) and print the probe's
  // listing; the second refuses -fun too.
  const std::string log = dir + "/args", tool = dir + "/fake-nvdisasm", old_tool = dir + "/old-nvdisasm";
  const std::string listing = testing::kData + "/stalls/stall_probe.nvdisasm.txt";
  std::ofstream(tool) << "#!/bin/sh\necho \"$@\" >> '" << log << "'\ncase \"$*\" in *\"-b \"*) exit 1;; esac\ncat '"
                      << listing << "'\n";
  std::ofstream(old_tool) << "#!/bin/sh\necho \"$@\" >> '" << log
                          << "'\ncase \"$*\" in *-fun*|*\"-b \"*) exit 1;; esac\ncat '" << listing << "'\n";
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

TEST(PcSamplingSass, ManyCubinsRefusedAsARawBinaryAreDisassembledEachOnceAndEveryKernelGetsItsSass) {
  char pattern[] = "/tmp/limiter-sass-XXXXXX";
  const std::string dir = mkdtemp(pattern);
  const std::string cubin = testing::kData + "/stalls/stall_probe.sm_90.cubin";
  const std::string log = dir + "/args";
  const std::string tool = fake_nvdisasm(dir, "fake-nvdisasm", "", testing::kData + "/stalls/stall_probe.nvdisasm.txt");
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
  SassRuns runs;
  EXPECT_EQ(fill_sass(info, {dir}, tool, std::chrono::seconds(30), &runs), "");
  EXPECT_EQ(runs.raw_runs, 1u);
  EXPECT_EQ(runs.cubin_runs, 12u);
  for (const auto& kernel : info.kernels) EXPECT_FALSE(kernel.hot_pcs[0].sass.empty()) << kernel.cubin_crc;
  std::ifstream lines(log);
  std::string line;
  int logged = 0;
  while (std::getline(lines, line)) ++logged;
  EXPECT_EQ(logged, 1 + 12);  // the raw binary refused, then one nvdisasm a cubin, both kernels in its -fun list
  std::filesystem::remove_all(dir);
}

TEST(PcSamplingSass, ACubinWhoseHotPcIsNotAnInstructionOrWhoseInstructionIsNotListedGoesToFun) {
  char pattern[] = "/tmp/limiter-sass-XXXXXX";
  const std::string dir = mkdtemp(pattern);
  const std::string cubin = testing::kData + "/stalls/stall_probe.sm_90.cubin";
  for (std::uint64_t crc : {1, 2}) std::filesystem::copy_file(cubin, std::filesystem::path(dir) / cubin_file_name(crc));
  // Cubin 1's hot PC is mid-instruction; cubin 2's (the raw binary's only one) is not in the listing.
  const std::string tool = fake_nvdisasm(dir, "fake-nvdisasm", "        /*100000010*/                   NOP ;\n",
                                         testing::kData + "/stalls/stall_probe.nvdisasm.txt");
  StallInfo info;
  for (std::uint64_t crc : {1, 2}) info.kernels.push_back(hot_kernel(crc, "_Z7barrierPfi", crc == 1 ? 0x94 : 0x90));
  SassRuns runs;
  EXPECT_EQ(fill_sass(info, {dir}, tool, std::chrono::seconds(30), &runs), "");
  EXPECT_EQ(runs.raw_runs, 1u);
  EXPECT_EQ(runs.raw_instructions, 0u);
  EXPECT_EQ(runs.cubin_runs, 2u);
  EXPECT_TRUE(info.kernels[0].hot_pcs[0].sass.empty());  // no instruction starts there
  EXPECT_EQ(info.kernels[1].hot_pcs[0].sass, "LDG.E R7, desc[UR6][R2.64]");
  std::filesystem::remove_all(dir);
}

TEST(PcSamplingSass, ACubinOfTheOlderElfAbiSaysItsSmInTheLowByte) {
  char pattern[] = "/tmp/limiter-sass-XXXXXX";
  const std::string dir = mkdtemp(pattern);
  std::string bytes = read(testing::kData + "/stalls/stall_probe.sm_90.cubin");
  ASSERT_GT(bytes.size(), 64u);
  bytes[8] = 7;  // EI_ABIVERSION 7 (CUDA before 12.8): e_flags' low byte is the SM
  const std::uint32_t flags = 0x5a055a;
  std::memcpy(bytes.data() + 48, &flags, sizeof flags);
  std::ofstream(dir + "/old.cubin", std::ios::binary) << bytes;
  EXPECT_EQ(read_cubin_functions(dir + "/old.cubin").sm, 90);
  EXPECT_EQ(read_cubin_functions(dir + "/old.cubin").functions.size(), 2u);
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
