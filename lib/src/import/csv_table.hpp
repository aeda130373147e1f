#pragma once
// A small RFC 4180 reader for the importers. No Debian CSV library fits (ncu kernel names hold
// commas, parentheses and quotes; exports carry a BOM or CRLF), so this one is hand-written and
// kept to what the importers need: rows of text fields with the line each row starts on.
#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace limiter::detail {

struct CsvRow {
  std::size_t line = 0;             // 1-based line of the file where the row starts
  std::vector<std::string> fields;  // unquoted; a blank line is one empty field

  bool is_blank() const { return fields.size() == 1 && fields[0].empty(); }
};

// Splits `text` into rows. Accepts a UTF-8 byte-order mark, LF or CRLF line ends, quoted
// fields with doubled quotes and embedded commas or line breaks. A quote inside an unquoted
// field is kept as text (log lines mixed into exports have them). `first_line` is the line
// number of the first line of `text`, for text cut out of a larger file. Throws InputError
// naming origin and line for an unterminated quoted field or text after a closing quote.
std::vector<CsvRow> parse_csv(std::string_view text, const std::string& origin, std::size_t first_line = 1);

// The whole stream as text; throws InputError naming origin when reading fails.
std::string read_all(std::istream& in, const std::string& origin);

// Drops a leading UTF-8 byte-order mark.
std::string_view strip_bom(std::string_view text);

std::string_view trim(std::string_view text);

// A decimal number as exporters write it: optional sign, digits with optional thousands
// separators ("1,048,576" but not "9,00"), fraction, exponent. Surrounding blanks are ignored.
// Returns nullopt for anything else, including "n/a", "nan" and "inf". The value is multiplied
// by 10^decimal_exponent before rounding to double, so "6.912" with exponent 3 is exactly 6912
// (unit prefixes convert without rounding error).
std::optional<double> parse_number(std::string_view text, int decimal_exponent = 0);

}  // namespace limiter::detail
