#pragma once
// A terminal table whose columns are as wide as their widest cell, two spaces apart, so no
// value ever runs into the next whatever its width; the last column (a kernel name, of any
// length) is not padded. Widths count characters, not bytes.
#include <ostream>
#include <string>
#include <vector>

namespace limiter::render {

class TextTable {
 public:
  enum class Align { left, right };
  struct Column {
    std::string title;
    Align align = Align::right;
  };
  explicit TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}

  // CELLS has one entry per column; COLOR (an ANSI code, or empty) goes around the cell at
  // COLORED_COLUMN, outside its padding so the columns stay aligned.
  void add_row(std::vector<std::string> cells, std::string color = "", std::size_t colored_column = 0);
  void write(std::ostream& out, const std::string& indent = "") const;

 private:
  struct Row {
    std::vector<std::string> cells;
    std::string color;
    std::size_t colored_column = 0;
  };
  std::vector<Column> columns_;
  std::vector<Row> rows_;
};

}  // namespace limiter::render
