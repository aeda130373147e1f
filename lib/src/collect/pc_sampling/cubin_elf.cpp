// A cubin's functions from its ELF file (limiter/stall_sass.hpp): what nvdisasm needs to
// disassemble only the hot ones.
#include <elf.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string_view>

#include "limiter/stall_sass.hpp"

namespace limiter {

namespace {

// The SM of a cubin's ELF header: e_flags bits 8-15 from CUDA's ELF ABI version 8 on (CUDA 12.8+;
// 0x6005a04 for sm_90), bits 0-7 before (EF_CUDA_SM). 0 when neither is plausible.
int cubin_sm(unsigned char abi_version, std::uint32_t flags) {
  const int sm = static_cast<int>(abi_version >= 8 ? (flags >> 8) & 0xff : flags & 0xff);
  return sm >= 30 && sm < 200 ? sm : 0;
}

// The variant letter after "-arch sm_NN" in ptxas's command line, which the toolkit note keeps
// ("... -arch sm_90a -m 64 "): "a", "f" or "". Only a letter that belongs to SM.
std::string arch_variant(std::string_view note, int sm) {
  const std::string flag = "-arch sm_" + std::to_string(sm);
  const auto at = note.find(flag);
  if (at == std::string_view::npos || at + flag.size() >= note.size()) return "";
  const char letter = note[at + flag.size()];
  return letter == 'a' || letter == 'f' ? std::string(1, letter) : "";
}

}  // namespace

CubinFunctions read_cubin_functions(const std::string& path) {
  // A cubin is an ELF64 file: its symbol table names each function (STT_FUNC) by index, the
  // number nvdisasm's -fun (--cuda-function-index) takes, and points at its code (a
  // .text.<name> section, the symbol's value an offset in it).
  std::ifstream in(path, std::ios::binary);
  CubinFunctions out;
  out.file = std::make_shared<const std::string>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  const std::string& bytes = *out.file;
  auto fits = [&](std::uint64_t offset, std::uint64_t size) {
    return offset <= bytes.size() && size <= bytes.size() - offset;
  };
  Elf64_Ehdr header;
  if (!fits(0, sizeof header) || bytes.compare(0, SELFMAG, ELFMAG) != 0 || bytes[EI_CLASS] != ELFCLASS64) return out;
  std::memcpy(&header, bytes.data(), sizeof header);
  if (header.e_shentsize != sizeof(Elf64_Shdr) ||
      !fits(header.e_shoff, std::uint64_t(header.e_shnum) * sizeof(Elf64_Shdr)))
    return out;
  out.sm = cubin_sm(static_cast<unsigned char>(bytes[EI_ABIVERSION]), header.e_flags);
  auto section = [&](std::size_t i) {
    Elf64_Shdr s;
    std::memcpy(&s, bytes.data() + header.e_shoff + i * sizeof s, sizeof s);
    return s;
  };
  const Elf64_Shdr* section_names = nullptr;
  Elf64_Shdr names_header;
  if (header.e_shstrndx < header.e_shnum) {
    names_header = section(header.e_shstrndx);
    if (fits(names_header.sh_offset, names_header.sh_size)) section_names = &names_header;
  }
  for (std::size_t i = 0; i < header.e_shnum && section_names && out.sm > 0; ++i) {
    const Elf64_Shdr note = section(i);
    if (note.sh_type != SHT_NOTE || note.sh_name >= section_names->sh_size || !fits(note.sh_offset, note.sh_size))
      continue;
    const char* name = bytes.data() + section_names->sh_offset + note.sh_name;
    if (std::string_view(name, strnlen(name, section_names->sh_size - note.sh_name)) != ".note.nv.tkinfo") continue;
    out.variant = arch_variant(std::string_view(bytes).substr(note.sh_offset, note.sh_size), out.sm);
  }
  for (std::size_t i = 0; i < header.e_shnum; ++i) {
    const Elf64_Shdr symbols = section(i);
    if (symbols.sh_type != SHT_SYMTAB || symbols.sh_entsize != sizeof(Elf64_Sym) || symbols.sh_link >= header.e_shnum ||
        !fits(symbols.sh_offset, symbols.sh_size))
      continue;
    const Elf64_Shdr names = section(symbols.sh_link);
    if (!fits(names.sh_offset, names.sh_size)) continue;
    for (std::uint64_t n = 0; n < symbols.sh_size / sizeof(Elf64_Sym); ++n) {
      Elf64_Sym symbol;
      std::memcpy(&symbol, bytes.data() + symbols.sh_offset + n * sizeof symbol, sizeof symbol);
      // A function defined in a section of this file. The first of a name whose code can be read
      // wins; else the first of the name (its index for -fun, no code).
      if (ELF64_ST_TYPE(symbol.st_info) != STT_FUNC || symbol.st_name >= names.sh_size ||
          symbol.st_shndx == SHN_UNDEF || symbol.st_shndx >= header.e_shnum)
        continue;
      const char* name = bytes.data() + names.sh_offset + symbol.st_name;
      const std::string key(name, strnlen(name, names.sh_size - symbol.st_name));
      // Its code: the symbol's value is an offset in its section (sh_addr is 0 in a cubin).
      const Elf64_Shdr code = section(symbol.st_shndx);
      const std::uint64_t size =
          symbol.st_size > 0 ? symbol.st_size : code.sh_size - std::min(symbol.st_value, code.sh_size);
      const bool readable = code.sh_type == SHT_PROGBITS && (code.sh_flags & SHF_EXECINSTR) &&
                            fits(code.sh_offset, code.sh_size) && symbol.st_value <= code.sh_size &&
                            size <= code.sh_size - symbol.st_value && size > 0;
      const auto known = out.functions.find(key);
      if (known != out.functions.end() && (!known->second.code.empty() || !readable)) continue;
      CubinFunction& function = out.functions[key];
      function.symbol = static_cast<std::uint32_t>(n);
      if (!readable) continue;
      const auto* first = reinterpret_cast<const std::uint8_t*>(bytes.data() + code.sh_offset + symbol.st_value);
      function.code = {first, static_cast<std::size_t>(size)};
    }
  }
  return out;
}

}  // namespace limiter
