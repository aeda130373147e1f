#include "text_table.hpp"

#include <algorithm>

#include "render_helpers.hpp"

namespace limiter::render {

void TextTable::add_row(std::vector<std::string> cells, std::string color, std::size_t colored_column) {
  cells.resize(columns_.size());
  rows_.push_back({std::move(cells), std::move(color), colored_column});
}

void TextTable::write(std::ostream& out, const std::string& indent) const {
  std::vector<std::size_t> widths;
  for (const auto& column : columns_) widths.push_back(display_width(column.title));
  for (const auto& row : rows_)
    for (std::size_t i = 0; i < row.cells.size(); ++i) widths[i] = std::max(widths[i], display_width(row.cells[i]));
  const auto write_cells = [&](const std::vector<std::string>& cells, const std::string& color, std::size_t colored) {
    std::string line = indent;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const bool last = i + 1 == cells.size();
      const bool left = columns_[i].align == Align::left;
      std::string cell = last && left ? cells[i] : pad(cells[i], widths[i], left);
      if (!color.empty() && i == colored) cell = color + cell + "\033[0m";
      line += cell;
      if (!last) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  };
  std::vector<std::string> titles;
  for (const auto& column : columns_) titles.push_back(column.title);
  write_cells(titles, "", 0);
  for (const auto& row : rows_) write_cells(row.cells, row.color, row.colored_column);
}

}  // namespace limiter::render
