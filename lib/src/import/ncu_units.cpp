// Values of an Nsight Compute CSV in base units (ncu_units.hpp).
#include "import/ncu_units.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "import/csv_table.hpp"

namespace limiter::detail {

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return (x | 0x20) == (y | 0x20);  // ASCII case folding is enough for "n/a", "NaN"
         });
}

namespace {

// ---------------------------------------------------------------------------------------
// Units. ncu writes values in units such as "byte", "Kbyte", "ns", "usecond", "cycle",
// "Ghz", "cycle/nsecond", "byte/s", "Tbyte/second", "register/thread", "%". Values become
// base units: bytes, nanoseconds for durations, hertz for frequencies, per second for rates.
// Scales are kept as powers of ten and applied to the decimal text, so that "6.912 Kbyte"
// becomes exactly 6912 bytes.

struct UnitScale {
  int decimal_exponent = 0;  // value × 10^decimal_exponent
  double binary_factor = 1;  // × 2^(10k) for Ki/Mi/Gi prefixes (exact in double)
};

struct UnitTerm {
  UnitScale scale;
  bool is_time = false;
};

// Unit words ncu prints. A word not listed counts things (warp, block, pass, cluster...) and
// is taken as given; prefixes are only read off words listed here, so an unknown word is
// never mis-scaled.
std::optional<UnitTerm> unit_word(std::string_view word) {
  static const std::set<std::string_view> time_words = {"second", "s", "sec"};
  static const std::set<std::string_view> plain_words = {
      "byte", "B",      "bit",     "hz",        "Hz",          "cycle",   "inst", "instruction",
      "warp", "thread", "block",   "register",  "sector",      "request", "SM",   "SMSP",
      "pass", "%",      "cluster", "wavefront", "transaction", "flop",    "op"};
  if (time_words.contains(word)) return UnitTerm{{}, true};
  if (plain_words.contains(word)) return UnitTerm{};
  return std::nullopt;
}

UnitTerm unit_term(std::string_view term) {
  term = trim(term);
  if (const auto word = unit_word(term)) return *word;
  struct Prefix {
    std::string_view text;
    UnitScale scale;
  };
  static const Prefix prefixes[] = {{"Ki", {0, 1024.0}},
                                    {"Mi", {0, 1048576.0}},
                                    {"Gi", {0, 1073741824.0}},
                                    {"Ti", {0, 1099511627776.0}},
                                    {"n", {-9, 1}},
                                    {"u", {-6, 1}},
                                    {"\xC2\xB5", {-6, 1}},
                                    {"m", {-3, 1}},
                                    {"K", {3, 1}},
                                    {"k", {3, 1}},
                                    {"M", {6, 1}},
                                    {"G", {9, 1}},
                                    {"T", {12, 1}},
                                    {"P", {15, 1}}};
  for (const auto& prefix : prefixes) {
    if (!term.starts_with(prefix.text)) continue;
    if (const auto word = unit_word(term.substr(prefix.text.size()))) {
      return UnitTerm{prefix.scale, word->is_time};
    }
  }
  return UnitTerm{};
}

// "Gbyte/second" → bytes per second; "usecond" → nanoseconds; "cycle/nsecond" → hertz.
UnitScale unit_scale(std::string_view unit) {
  unit = trim(unit);
  UnitScale scale;
  if (unit.empty()) return scale;
  std::size_t slash = unit.find('/');
  const UnitTerm numerator = unit_term(unit.substr(0, slash));
  scale = numerator.scale;
  if (numerator.is_time) scale.decimal_exponent += 9;  // durations in nanoseconds
  while (slash != std::string_view::npos) {
    const std::size_t next = unit.find('/', slash + 1);
    const UnitTerm denominator = unit_term(unit.substr(slash + 1, next - slash - 1));
    scale.decimal_exponent -= denominator.scale.decimal_exponent;  // rates per second
    scale.binary_factor /= denominator.scale.binary_factor;
    slash = next;
  }
  return scale;
}

// The value of `text` in base units, or nullopt when it is not a number.
}  // namespace

std::optional<double> to_base_units(std::string_view text, std::string_view unit) {
  const UnitScale scale = unit_scale(unit);
  const auto value = parse_number(text, scale.decimal_exponent);
  if (!value) return std::nullopt;
  return *value * scale.binary_factor;
}

}  // namespace limiter::detail
