#pragma once
// The plain-text tables of the kernel suite's results (results.cpp, programs, stall checks):
// the first column left-aligned, the others right-aligned, widths from the widest cell.
// Internal to kernels/host.
#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

namespace limiter::kernels::detail {

inline const std::string kNone = "-";

// Display width of UTF-8 text (continuation bytes take no column).
inline std::size_t display_width(const std::string& text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

class Table {
 public:
  explicit Table(std::vector<std::string> header) : rows_{std::move(header)} {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void write(std::ostream& out) const {
    std::vector<std::size_t> widths;
    for (const auto& row : rows_) {
      if (widths.size() < row.size()) widths.resize(row.size(), 0);
      for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], display_width(row[c]));
    }
    for (const auto& row : rows_) {
      std::string line;
      for (std::size_t c = 0; c < row.size(); ++c) {
        const std::string fill(widths[c] - display_width(row[c]), ' ');
        line += c == 0 ? row[c] + fill : "  " + fill + row[c];
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out << line << "\n";
    }
  }

 private:
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace limiter::kernels::detail
