// Chart labels that fit and tell kernels apart: the width a label takes on screen, measured
// against the widest common sans-serif, and names shortened in the middle, keeping the part
// where a name differs from its neighbours (two cuBLAS GEMMs differ at "_nt_" against "_tn_"
// eighty characters in; cutting at the end made them read alike).
#include <algorithm>
#include <cstring>

#include "html_parts.hpp"

namespace limiter::html {

namespace {

// Advance widths in em of DejaVu Sans, the sans-serif a Debian system falls back on and wider
// than Helvetica, Arial, Segoe UI or Roboto: labels placed with it fit in any of them.
double advance_em(unsigned char c) {
  if (c == ' ' || c == ',' || c == '.' || c == ':' || c == ';' || c == '\'' || c == '|' || c == '!') return 0.32;
  if (c == 'i' || c == 'j' || c == 'l' || c == 'I' || c == 'f' || c == 't' || c == 'r') return 0.42;
  if (c == '(' || c == ')' || c == '[' || c == ']' || c == '{' || c == '}' || c == '/' || c == '\\') return 0.40;
  if (c == 'm' || c == 'w' || c == 'M' || c == 'W' || c == '%' || c == '@') return 1.0;
  if (c == '<' || c == '>' || c == '=' || c == '+' || c == '~' || c == '#' || c == '&') return 0.84;
  if (c >= 'A' && c <= 'Z') return 0.76;
  if (c >= '0' && c <= '9') return 0.64;
  return 0.62;
}

bool is_separator(char c) { return std::strchr("_ <>,:()-.", c) != nullptr && c != '\0'; }

// Where `name` first differs from each other name that starts like it.
std::vector<std::size_t> differences(const std::string& name, const std::vector<std::string>& names) {
  std::vector<std::size_t> at;
  for (const auto& other : names) {
    if (other == name) continue;
    const auto mismatch = std::mismatch(name.begin(), name.end(), other.begin(), other.end());
    const auto index = static_cast<std::size_t>(mismatch.first - name.begin());
    at.push_back(std::min(index, name.size() - 1));  // a prefix of the other: its end tells them apart
  }
  std::sort(at.begin(), at.end());
  at.erase(std::unique(at.begin(), at.end()), at.end());
  return at;
}

// The characters kept, shown with one "…" for each run left out.
std::size_t shown_length(const std::vector<bool>& keep) {
  std::size_t length = 0;
  for (std::size_t i = 0; i < keep.size(); ++i) length += keep[i] || i == 0 || keep[i - 1];
  return length;
}

// The head of the name, each word where it differs from another name, then as much more as fits:
// "sm80_xmma_gemm_…nt_n_tilesize64x64x8…kernel__5x_cublas" against the "tn" and "split_k" GEMMs.
std::string shorten(const std::string& name, const std::vector<std::string>& names, std::size_t budget) {
  if (name.size() <= budget) return name;
  const std::size_t n = name.size();
  std::vector<bool> keep(n, false);
  std::size_t head = budget * 2 / 5;  // the head ends after a separator where one is near
  for (std::size_t i = head; i > head / 2; --i) {
    if (is_separator(name[i - 1])) {
      head = i;
      break;
    }
  }
  std::fill(keep.begin(), keep.begin() + static_cast<std::ptrdiff_t>(head), true);
  struct Word {
    std::size_t begin, differs, end;  // [begin, end) around the character that differs
  };
  std::vector<Word> words;
  for (std::size_t p : differences(name, names)) {
    if (keep[p]) continue;
    Word word{p, p, p + 1};
    while (word.begin > 0 && p - word.begin < 12 && !is_separator(name[word.begin - 1])) --word.begin;
    while (word.end < n && (word.end - p < 2 || !is_separator(name[word.end])) && word.end - p < 8) ++word.end;
    std::fill(keep.begin() + static_cast<std::ptrdiff_t>(word.begin),
              keep.begin() + static_cast<std::ptrdiff_t>(word.end), true);
    words.push_back(word);
  }
  // Over the budget with every word whole: each word down to a few characters around its
  // difference, then the head; a name that still does not fit is cut at the end.
  for (auto& word : words) {
    while (shown_length(keep) > budget && word.begin > 0 && word.begin + 2 < word.differs && !keep[word.begin - 1])
      keep[word.begin++] = false;
    while (shown_length(keep) > budget && word.end > word.differs + 3 && !(word.end < n && keep[word.end]))
      keep[--word.end] = false;
  }
  while (shown_length(keep) > budget && head > 6) keep[--head] = false;
  if (shown_length(keep) > budget) return ellipsize(name, budget);
  // Room left: a few more characters of each word, the name's end where it is near, the head,
  // then the words again.
  const auto grow = [&](std::size_t from, std::size_t most) {
    for (std::size_t i = from; i < n && i < from + most && !keep[i]; ++i) {
      keep[i] = true;
      if (shown_length(keep) > budget) {
        keep[i] = false;
        return;
      }
    }
  };
  const auto word_end = [&](std::size_t from) {
    while (from < n && keep[from]) ++from;
    return from;
  };
  for (const auto& word : words) grow(word_end(word.end), 8);
  if (!words.empty() && n - word_end(words.back().end) < budget / 2) {
    for (std::size_t from = n; from > 0 && !keep[from - 1]; --from) {  // the end, kept whole
      keep[from - 1] = true;
      if (shown_length(keep) > budget) {
        keep[from - 1] = false;
        break;
      }
    }
  }
  grow(head, n);
  for (const auto& word : words) grow(word_end(word.end), n);
  std::string label;
  for (std::size_t i = 0; i < n; ++i) {
    if (keep[i])
      label += name[i];
    else if (i == 0 || keep[i - 1])
      label += "…";
  }
  return label;
}

}  // namespace

double text_width(const std::string& text, double font_px) {
  double em = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if ((byte & 0xC0) == 0x80) continue;         // a UTF-8 continuation byte
    em += byte < 0x80 ? advance_em(byte) : 1.0;  // "…", "×", "≤": a full em at most
  }
  return em * font_px + 2;
}

std::string ellipsize(const std::string& text, std::size_t max_characters) {
  return text.size() <= max_characters ? text : text.substr(0, max_characters - 1) + "…";
}

std::string fit_width(const std::string& text, double width, double font_px) {
  if (text_width(text, font_px) <= width) return text;
  std::string cut = text;
  while (!cut.empty() && text_width(cut + "…", font_px) > width) cut.pop_back();
  while (!cut.empty() && (static_cast<unsigned char>(cut.back()) & 0xC0) == 0x80) cut.pop_back();
  if (!cut.empty() && (static_cast<unsigned char>(cut.back()) & 0x80) != 0) cut.pop_back();  // a cut lead byte
  return cut + "…";
}

std::string distinct_label(const std::string& name, const std::vector<std::string>& names, std::size_t budget) {
  return shorten(name, names, budget);
}

void number_alike(std::vector<std::string>& labels) {
  for (std::size_t i = 0; i < labels.size(); ++i) {
    int copies = 0;
    for (std::size_t j = i + 1; j < labels.size(); ++j)
      if (labels[j] == labels[i]) labels[j] += " #" + std::to_string(++copies + 1);
    if (copies > 0) labels[i] += " #1";
  }
}

}  // namespace limiter::html
