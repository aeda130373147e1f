// -k: a kernel is selected when the regex is found in any name a person may know it by.
#include "limiter/kernel_selection.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "limiter/error.hpp"
#include "limiter/kernel_names.hpp"
#include "limiter/run_summary.hpp"

namespace limiter {

KernelSelection::KernelSelection(const std::string& regex) {
  if (!regex.empty()) regex_ = kernel_name_regex(regex);
}

bool KernelSelection::selects(const std::string& demangled, const std::string& mangled) {
  if (!regex_) return true;
  auto [entry, inserted] = decided_.try_emplace(demangled, false);  // one decision per distinct name, not per launch
  if (!inserted) return entry->second;
  const auto found = [&](const std::string& name) { return !name.empty() && std::regex_search(name, *regex_); };
  bool selected = found(demangled) || found(mangled);
  for (const auto& form : kernel_short_forms(demangled)) selected = selected || found(form);
  entry->second = selected;
  return selected;
}

std::vector<std::string> KernelSelection::unselected() const {
  std::vector<std::string> names;
  for (const auto& [name, selected] : decided_)
    if (!selected) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

namespace {

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// The fewest edits that make PATTERN a substring of TEXT (Sellers: a free start and end in TEXT).
std::size_t edits_to_appear(const std::string& pattern, const std::string& text) {
  std::vector<std::size_t> row(text.size() + 1, 0), next(text.size() + 1);
  for (std::size_t i = 1; i <= pattern.size(); ++i) {
    next[0] = i;
    for (std::size_t j = 1; j <= text.size(); ++j) {
      const std::size_t substitute = row[j - 1] + (lower(pattern[i - 1]) == lower(text[j - 1]) ? 0 : 1);
      next[j] = std::min({substitute, row[j] + 1, next[j - 1] + 1});
    }
    row.swap(next);
  }
  return *std::min_element(row.begin(), row.end());
}

// The words of a pattern ("reduce_kernel<summ" -> reduce_kernel, summ): a regex's punctuation
// says little, its words say which kernel was meant.
std::vector<std::string> words_of(const std::string& pattern) {
  std::vector<std::string> words(1);
  for (char c : pattern) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_')
      words.back() += c;
    else if (!words.back().empty())
      words.emplace_back();
  }
  if (words.back().empty()) words.pop_back();
  return words;
}

}  // namespace

std::vector<std::string> closest_kernel_names(const std::string& pattern, const std::vector<std::string>& shown,
                                              std::size_t limit) {
  const auto words = words_of(pattern);
  struct Scored {
    std::size_t word_edits, edits;
    std::string name;
  };
  std::vector<Scored> scored;
  for (const auto& name : std::set<std::string>(shown.begin(), shown.end())) {
    std::size_t word_edits = 0;
    for (const auto& word : words) word_edits += edits_to_appear(word, name);
    scored.push_back({word_edits, edits_to_appear(pattern, name), name});
  }
  std::stable_sort(scored.begin(), scored.end(), [](const Scored& a, const Scored& b) {
    if (a.word_edits != b.word_edits) return a.word_edits < b.word_edits;
    return a.edits != b.edits ? a.edits < b.edits : a.name.size() < b.name.size();
  });
  std::vector<std::string> closest;
  for (std::size_t i = 0; i < scored.size() && i < limit; ++i) closest.push_back(scored[i].name);
  return closest;
}

void throw_nothing_selected(const std::string& pattern, const std::string& where,
                            const std::vector<std::string>& names) {
  std::vector<std::string> shown;
  for (const auto& [name, short_name] : short_kernel_names(names)) shown.push_back(short_name);
  std::string message = "-k '" + pattern + "' selects none of the " + std::to_string(shown.size()) +
                        (shown.size() == 1 ? " kernel" : " kernels") + " of " + where;
  const auto closest = closest_kernel_names(pattern, shown);
  for (std::size_t i = 0; i < closest.size(); ++i)
    message += (i ? "', '" : "; closest: '") + closest[i] + (i + 1 == closest.size() ? "'" : "");
  throw InputError(message);
}

}  // namespace limiter
