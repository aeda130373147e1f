#include "import/csv_table.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <istream>
#include <iterator>
#include <sstream>

#include "limiter/error.hpp"

namespace limiter::detail {

std::string_view strip_bom(std::string_view text) {
  constexpr std::string_view bom = "\xEF\xBB\xBF";
  if (text.substr(0, bom.size()) == bom) text.remove_prefix(bom.size());
  return text;
}

std::string_view trim(std::string_view text) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!text.empty() && blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && blank(text.back())) text.remove_suffix(1);
  return text;
}

std::string read_all(std::istream& in, const std::string& origin) {
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw InputError("cannot read '" + origin + "': the read failed");
  return std::move(buffer).str();
}

std::vector<CsvRow> parse_csv(std::string_view text, const std::string& origin, std::size_t first_line) {
  text = strip_bom(text);
  std::vector<CsvRow> rows;
  CsvRow row{first_line, {}};
  std::string field;
  std::size_t line = first_line;
  std::size_t i = 0;
  const std::size_t n = text.size();

  bool row_started = false;  // the last row may end without a line break
  const auto end_row = [&] {
    row.fields.push_back(std::move(field));
    field.clear();
    rows.push_back(std::move(row));
    row = CsvRow{line, {}};
    row_started = false;
  };

  while (i < n) {
    row_started = true;
    // At the start of a field.
    if (text[i] == '"') {
      const std::size_t opened_on = line;
      ++i;
      for (;;) {
        if (i >= n) {
          throw InputError(origin + ":" + std::to_string(opened_on) +
                           ": a quoted field is never closed (a missing '\"'?)");
        }
        const char c = text[i];
        if (c == '"') {
          if (i + 1 < n && text[i + 1] == '"') {  // doubled quote: one literal quote
            field += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        if (c == '\n') ++line;
        field += c;
        ++i;
      }
      // After the closing quote only a separator or the end of the line may follow.
      if (i < n && text[i] == '\r' && (i + 1 == n || text[i + 1] == '\n')) ++i;
      if (i < n && text[i] != ',' && text[i] != '\n') {
        throw InputError(origin + ":" + std::to_string(line) + ": unexpected '" + std::string(1, text[i]) +
                         "' after a closing quote (quotes inside a quoted field must be doubled)");
      }
    } else {
      while (i < n && text[i] != ',' && text[i] != '\n') {
        if (text[i] == '\r' && (i + 1 == n || text[i + 1] == '\n')) break;
        field += text[i++];
      }
      if (i < n && text[i] == '\r') ++i;  // CRLF: the '\n' ends the row below
    }
    if (i >= n) break;
    if (text[i] == ',') {
      row.fields.push_back(std::move(field));
      field.clear();
      ++i;
      if (i == n) break;  // a trailing comma on the last line still ends with an empty field
      continue;
    }
    // text[i] == '\n'
    ++i;
    ++line;
    end_row();
  }
  if (row_started) end_row();
  return rows;
}

namespace {

// "1,048,576" → "1048576"; nullopt when the commas do not separate groups of three digits
// in the integer part (so a decimal comma like "9,00" is not misread as 900).
std::optional<std::string> without_thousands_separators(std::string_view text) {
  if (text.find(',') == std::string_view::npos) return std::string(text);
  std::string_view sign;
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
    sign = text.substr(0, 1);
    text.remove_prefix(1);
  }
  const std::size_t integer_end = std::min(text.find_first_of(".eE"), text.size());
  const std::string_view integer_part = text.substr(0, integer_end);
  if (text.substr(integer_end).find(',') != std::string_view::npos) return std::nullopt;
  std::size_t group_start = 0;
  bool first_group = true;
  std::string digits(sign);
  while (group_start <= integer_part.size()) {
    const std::size_t comma = std::min(integer_part.find(',', group_start), integer_part.size());
    const std::size_t length = comma - group_start;
    if (first_group ? (length < 1 || length > 3) : length != 3) return std::nullopt;
    digits += integer_part.substr(group_start, length);
    first_group = false;
    group_start = comma + 1;
  }
  digits += text.substr(integer_end);
  return digits;
}

}  // namespace

std::optional<double> parse_number(std::string_view text, int decimal_exponent) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  auto plain = without_thousands_separators(text);
  if (!plain) return std::nullopt;
  if (!plain->empty() && plain->front() == '+') plain->erase(0, 1);
  if (decimal_exponent != 0) {
    // Shift the decimal point in the text, so the one rounding is from_chars' own.
    const std::size_t e = plain->find_first_of("eE");
    if (e == std::string::npos) {
      *plain += "e" + std::to_string(decimal_exponent);
    } else {
      int exponent = 0;
      const char* first = plain->data() + e + 1;
      const char* last = plain->data() + plain->size();
      if (first != last && *first == '+') ++first;
      const auto [end, error] = std::from_chars(first, last, exponent);
      if (error != std::errc() || end != last) return std::nullopt;
      plain->replace(e, std::string::npos, "e" + std::to_string(exponent + decimal_exponent));
    }
  }
  double value = 0;
  const char* last = plain->data() + plain->size();
  const auto [end, error] = std::from_chars(plain->data(), last, value, std::chars_format::general);
  if (error != std::errc() || end != last) return std::nullopt;
  if (!std::isfinite(value)) return std::nullopt;
  return value;
}

}  // namespace limiter::detail
