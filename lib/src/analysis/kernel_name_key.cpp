// Kernel names as one key however ncu or CUPTI spells them (kernel_name_key.hpp).
#include "analysis/kernel_name_key.hpp"

#include <cxxabi.h>

#include <cctype>
#include <cstdlib>
#include <functional>
#include <regex>
#include <unordered_set>

namespace limiter::detail {
namespace {

std::string demangled(std::string_view name) {
  if (!name.starts_with("_Z")) return std::string(name);
  int status = 0;
  const std::string mangled(name);
  char* readable = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  std::string text = status == 0 && readable ? readable : mangled;
  std::free(readable);
  return text;
}

// The position of the '(' that opens the parameter list TEXT ends with, or npos.
std::size_t parameter_list_start(std::string_view text) {
  if (!text.ends_with(')')) return std::string_view::npos;
  int depth = 0;
  for (std::size_t i = text.size(); i-- > 0;) {
    if (text[i] == ')')
      ++depth;
    else if (text[i] == '(' && --depth == 0)
      return i;
  }
  return std::string_view::npos;
}

bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Blanks out; `1ul` -> `1`; `(int)4` -> `4`.
std::string canonical_spelling(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    if (c == '(') {  // a cast of a literal: (int)4, (unsigned long)3, (bool)1
      const std::size_t close = text.find(')', i);
      if (close != std::string_view::npos && close + 1 < text.size() &&
          (std::isdigit(static_cast<unsigned char>(text[close + 1])) || text[close + 1] == '-') &&
          text.substr(i + 1, close - i - 1).find_first_of("(<,") == std::string_view::npos) {
        i = close;
        continue;
      }
    }
    if ((c == 'u' || c == 'U' || c == 'l' || c == 'L') && !out.empty() &&
        std::isdigit(static_cast<unsigned char>(out.back()))) {
      // A suffix only when the number started a token: not the 1 of `sm_1l`.
      std::size_t digits = out.size();
      while (digits > 0 && std::isdigit(static_cast<unsigned char>(out[digits - 1]))) --digits;
      const bool number = digits == 0 || !is_identifier_char(out[digits - 1]);
      std::size_t end = i;
      while (end < text.size() && std::string_view("uUlL").find(text[end]) != std::string_view::npos) ++end;
      if (number && (end == text.size() || !is_identifier_char(text[end]))) {
        i = end - 1;
        continue;
      }
    }
    out += c;
  }
  return out;
}

std::string without_templates(std::string_view text) {
  std::string out;
  int depth = 0;
  for (char c : text) {
    if (c == '<')
      ++depth;
    else if (c == '>' && depth > 0)
      --depth;
    else if (depth == 0)
      out += c;
  }
  return out;
}

// Namespaces and classes out (`at::native::f` and `at::f` are one), `(anonymous namespace)` and
// ncu's `<unnamed>` included; `true`/`false` as 1/0; ncu's `[lambda(int) (instance 1)]` as
// `{lambda(int)#1}`.
std::string unqualified(std::string key) {
  static const std::regex lambda(R"(\[lambda\(([^()]*)\)\(instance([0-9]+)\)\])");
  static const std::regex qualifier(R"((\(anonymousnamespace\)|<unnamed>|[A-Za-z_][A-Za-z0-9_]*)::)");
  static const std::regex const_method(R"(\)const\b)");
  key = std::regex_replace(key, lambda, "{lambda($1)#$2}");
  key = std::regex_replace(key, const_method, ")");
  const std::string out = std::regex_replace(key, qualifier, "");
  std::string result;
  for (std::size_t i = 0; i < out.size();) {
    if (out.compare(i, 4, "true") == 0 && (i + 4 == out.size() || !is_identifier_char(out[i + 4])) &&
        (i == 0 || !is_identifier_char(out[i - 1]))) {
      result += '1';
      i += 4;
    } else if (out.compare(i, 5, "false") == 0 && (i + 5 == out.size() || !is_identifier_char(out[i + 5])) &&
               (i == 0 || !is_identifier_char(out[i - 1]))) {
      result += '0';
      i += 5;
    } else {
      result += out[i++];
    }
  }
  return result;
}

using KeyOf = std::function<std::string(std::string_view)>;

// One round: names of UNMATCHED_AFTER whose KEY names exactly one name on each side.
void match_by(const KeyOf& key, std::vector<std::string_view>& unmatched_before,
              std::vector<std::string_view>& unmatched_after,
              std::unordered_map<std::string_view, std::string_view>& matches) {
  std::unordered_map<std::string, std::pair<int, std::string_view>> before_by_key, after_by_key;
  for (auto name : unmatched_before) {
    auto& entry = before_by_key[key(name)];
    ++entry.first;
    entry.second = name;
  }
  for (auto name : unmatched_after) {
    auto& entry = after_by_key[key(name)];
    ++entry.first;
    entry.second = name;
  }
  std::unordered_set<std::string_view> matched_before, matched_after;
  for (const auto& [text, after] : after_by_key) {
    const auto before = before_by_key.find(text);
    if (text.empty() || after.first != 1 || before == before_by_key.end() || before->second.first != 1) continue;
    matches.emplace(after.second, before->second.second);
    matched_before.insert(before->second.second);
    matched_after.insert(after.second);
  }
  std::erase_if(unmatched_before, [&](std::string_view name) { return matched_before.contains(name); });
  std::erase_if(unmatched_after, [&](std::string_view name) { return matched_after.contains(name); });
}

}  // namespace

std::string kernel_name_key(std::string_view name) {
  std::string text = demangled(name);
  std::string_view view = text;
  while (!view.empty() && std::isspace(static_cast<unsigned char>(view.front()))) view.remove_prefix(1);
  while (!view.empty() && std::isspace(static_cast<unsigned char>(view.back()))) view.remove_suffix(1);
  if (view.starts_with("void ")) view.remove_prefix(5);
  if (const std::size_t open = parameter_list_start(view); open != std::string_view::npos && open > 0)
    view = view.substr(0, open);
  return canonical_spelling(view);
}

std::string kernel_unqualified_key(std::string_view name) { return unqualified(kernel_name_key(name)); }

std::string kernel_qualified_key(std::string_view name) { return without_templates(kernel_name_key(name)); }

std::string kernel_base_key(std::string_view name) {
  const std::string qualified = kernel_qualified_key(name);
  const std::size_t last = qualified.rfind("::");
  return last == std::string::npos ? qualified : qualified.substr(last + 2);
}

std::unordered_map<std::string_view, std::string_view> match_kernel_names(const std::vector<std::string_view>& before,
                                                                          const std::vector<std::string_view>& after) {
  const std::unordered_set<std::string_view> before_set(before.begin(), before.end()),
      after_set(after.begin(), after.end());
  std::vector<std::string_view> unmatched_before, unmatched_after;
  for (auto name : before_set)
    if (!after_set.contains(name)) unmatched_before.push_back(name);
  for (auto name : after_set)
    if (!before_set.contains(name)) unmatched_after.push_back(name);
  std::unordered_map<std::string_view, std::string_view> matches;
  for (const KeyOf& key :
       {KeyOf(kernel_name_key), KeyOf(kernel_unqualified_key), KeyOf(kernel_qualified_key), KeyOf(kernel_base_key)}) {
    if (unmatched_before.empty() || unmatched_after.empty()) break;
    match_by(key, unmatched_before, unmatched_after, matches);
  }
  return matches;
}

}  // namespace limiter::detail
