#include "limiter/nvtx_ranges.hpp"

#include <algorithm>

#include "limiter/error.hpp"

namespace limiter {
namespace {

constexpr const char* kSyntax =
    " (NVTX expressions: \"A\" start/end range, \"A/\" push/pop range at any level, \"A/B/\" B directly inside A, "
    "\"A/*/B/\" B anywhere inside A, \"[A/\" A at the bottom, \"A/B]\" B at the top, \"Domain@A/\" a domain, "
    "\"regex:...\" names as regular expressions)";

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t at = text.find(separator); at != std::string::npos; at = text.find(separator, start)) {
    parts.push_back(text.substr(start, at - start));
    start = at + 1;
  }
  parts.push_back(text.substr(start));
  return parts;
}

std::string with_domain(const std::string& domain, const std::string& text) {
  return domain.empty() ? text : domain + "@" + text;
}

}  // namespace

bool NvtxRanges::empty() const {
  return start_end.empty() &&
         std::all_of(push_pop.begin(), push_pop.end(), [](const NvtxStack& s) { return s.ranges.empty(); });
}

std::vector<std::string> nvtx_paths(const NvtxRanges& ranges) {
  std::vector<std::string> paths;
  for (const auto& stack : ranges.push_pop) {
    if (stack.ranges.empty()) continue;
    std::string path;
    for (const auto& range : stack.ranges) path += range + "/";
    paths.push_back(with_domain(stack.domain, path));
  }
  for (const auto& range : ranges.start_end) paths.push_back(with_domain(range.domain, range.name));
  return paths;
}

NvtxRanges nvtx_ranges_from_paths(const std::vector<std::string>& paths) {
  NvtxRanges ranges;
  for (const auto& path : paths) {
    const auto at = path.find('@');
    const std::string domain = at == std::string::npos ? "" : path.substr(0, at);
    const std::string body = at == std::string::npos ? path : path.substr(at + 1);
    if (body.empty() || body.back() != '/') {
      ranges.start_end.push_back({domain, body});
      continue;
    }
    NvtxStack stack{domain, split(body.substr(0, body.size() - 1), '/')};
    ranges.push_pop.push_back(std::move(stack));
  }
  return ranges;
}

std::string nvtx_label(const std::vector<std::string>& paths) {
  if (paths.empty()) return kNoNvtxRange;
  std::string label;
  for (const auto& path : paths) label += (label.empty() ? "" : " + ") + path;
  return label;
}

bool NvtxExpression::Element::matches(const std::string& range) const {
  return pattern ? std::regex_search(range, *pattern) : range == name;
}

NvtxExpression::NvtxExpression(const std::string& text) : text_(text) {
  std::string body = text;
  const bool regex = body.rfind("regex:", 0) == 0;
  if (regex) body.erase(0, 6);
  if (const auto at = body.find('@'); at != std::string::npos) {
    domain_ = body.substr(0, at);
    body.erase(0, at + 1);
  }
  push_pop_ = body.find('/') != std::string::npos || (!body.empty() && (body.front() == '[' || body.back() == ']'));
  if (push_pop_) {
    bottom_ = body.front() == '[';
    if (bottom_) body.erase(0, 1);
    top_ = !body.empty() && body.back() == ']';
    if (top_) body.pop_back();
    if (!body.empty() && body.back() == '/') body.pop_back();
  }
  const auto names = push_pop_ ? split(body, '/') : std::vector<std::string>{body};
  for (const auto& name : names) {
    if (name.empty()) throw InputError("NVTX expression '" + text + "' has an empty range name" + kSyntax);
    Element element;
    element.any_run = push_pop_ && name == "*";
    element.name = name;
    if (regex && !element.any_run) {
      try {
        element.pattern.emplace(name, std::regex::ECMAScript | std::regex::optimize);
      } catch (const std::regex_error& e) {
        throw InputError("NVTX expression '" + text + "': '" + name +
                         "' is not a valid regular expression: " + e.what());
      }
    }
    elements_.push_back(std::move(element));
  }
}

bool NvtxExpression::matches(const NvtxRanges& ranges) const {
  if (!push_pop_) {
    return std::any_of(ranges.start_end.begin(), ranges.start_end.end(), [&](const NvtxStartEnd& range) {
      return range.domain == domain_ && elements_.front().matches(range.name);
    });
  }
  return std::any_of(ranges.push_pop.begin(), ranges.push_pop.end(),
                     [&](const NvtxStack& stack) { return stack.domain == domain_ && matches_stack(stack.ranges); });
}

bool NvtxExpression::matches_stack(const std::vector<std::string>& stack) const {
  if (bottom_) return matches_from(stack, 0, 0);
  for (std::size_t start = 0; start <= stack.size(); ++start)
    if (matches_from(stack, 0, start)) return true;
  return false;
}

// Elements from ELEMENT on against the stack from AT on, contiguously; "*" takes any run.
bool NvtxExpression::matches_from(const std::vector<std::string>& stack, std::size_t element, std::size_t at) const {
  if (element == elements_.size()) return !top_ || at == stack.size();
  const Element& e = elements_[element];
  if (e.any_run) {
    for (std::size_t next = at; next <= stack.size(); ++next)
      if (matches_from(stack, element + 1, next)) return true;
    return false;
  }
  return at < stack.size() && e.matches(stack[at]) && matches_from(stack, element + 1, at + 1);
}

NvtxFilter::NvtxFilter(const std::vector<std::string>& include, const std::vector<std::string>& exclude) {
  for (const auto& text : include) include_.emplace_back(text);
  for (const auto& text : exclude) exclude_.emplace_back(text);
}

bool NvtxFilter::selects(const NvtxRanges& ranges) const {
  const auto inside = [&](const NvtxExpression& e) { return e.matches(ranges); };
  if (!include_.empty() && std::none_of(include_.begin(), include_.end(), inside)) return false;
  return std::none_of(exclude_.begin(), exclude_.end(), inside);
}

}  // namespace limiter
