// Short kernel names: parse the demangled name just enough (scopes, template arguments, lambdas)
// to keep the function's own name and the template argument a person tells kernels apart by,
// then add detail level by level only to the names that would otherwise read the same.
#include "limiter/kernel_names.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "limiter/error.hpp"

namespace limiter {

NameStyle name_style_from_string(const std::string& text) {
  if (text == "short") return NameStyle::short_form;
  if (text == "demangled") return NameStyle::demangled;
  if (text == "mangled") return NameStyle::mangled;
  throw InputError("unknown --names '" + text + "' (expected short, demangled or mangled)");
}

std::string to_string(NameStyle style) {
  switch (style) {
    case NameStyle::short_form:
      return "short";
    case NameStyle::demangled:
      return "demangled";
    case NameStyle::mangled:
      return "mangled";
  }
  return "short";
}

namespace {

using Parts = std::vector<std::string_view>;

int nesting(char c) {
  switch (c) {
    case '<':
    case '(':
    case '{':
    case '[':
      return 1;
    case '>':
    case ')':
    case '}':
    case ']':
      return -1;
    default:
      return 0;
  }
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

// Splits at SEPARATOR where no bracket is open: "a<b, c>, d" at "," -> "a<b, c>", "d".
Parts split_top(std::string_view text, std::string_view separator) {
  Parts parts;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    depth += nesting(text[i]);
    if (depth == 0 && text.compare(i, separator.size(), separator) == 0) {
      parts.push_back(trim(text.substr(start, i - start)));
      start = i + separator.size();
      i = start - 1;
    }
  }
  parts.push_back(trim(text.substr(start)));
  return parts;
}

// Where the first bracket OPEN at depth 0 starts, or npos.
std::size_t find_top(std::string_view text, char open) {
  int depth = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (depth == 0 && text[i] == open) return i;
    depth += nesting(text[i]);
  }
  return std::string_view::npos;
}

// One scope of a qualified name: "reduce_kernel<512, 1, ...>(int)" -> name, template arguments.
struct Component {
  std::string_view name;
  Parts arguments;
  bool templated = false;
};

Component parse_component(std::string_view text) {
  Component component;
  // "operator()" keeps its parentheses; any other '(' at depth 0 starts the parameter list.
  std::size_t skip = text.starts_with("operator()") ? 10 : 0;
  const std::size_t params = find_top(text.substr(skip), '(');
  if (params != std::string_view::npos) text = trim(text.substr(0, skip + params));
  const std::size_t open = find_top(text, '<');
  if (open == std::string_view::npos || text.back() != '>') {
    component.name = text;
    return component;
  }
  component.name = text.substr(0, open);
  component.arguments = split_top(text.substr(open + 1, text.size() - open - 2), ",");
  component.templated = true;
  return component;
}

bool is_lambda(std::string_view scope) { return scope.starts_with("{lambda"); }

// Literals, builtin types and the standard library: never what tells kernels apart.
bool is_plain(std::string_view argument) {
  if (argument.empty() || argument.starts_with("std::") || argument.front() == '(') return true;
  if (argument.back() == '*' || argument.back() == '&') return true;  // a generator, a buffer
  if (std::isdigit(static_cast<unsigned char>(argument.front())) || argument.front() == '-') return true;
  if (argument == "true" || argument == "false") return true;
  for (std::string_view scalar : {"c10::Half", "c10::BFloat16", "__half", "__nv_bfloat16", "c10::complex"})
    if (argument.starts_with(scalar)) return true;
  return argument.find_first_of("<:(") == std::string_view::npos;  // float, unsigned int, char*
}

// A functor, lambda or operation class reads best; otherwise the first non-plain argument.
std::optional<std::size_t> telling_argument(const Parts& arguments) {
  std::optional<std::size_t> first;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    if (is_plain(arguments[i])) continue;
    if (!first) first = i;
    const auto a = arguments[i];
    if (a.find("{lambda") != std::string_view::npos || a.find("unctor") != std::string_view::npos ||
        a.find("Op") != std::string_view::npos)
      return i;
  }
  return first;
}

std::string join(const std::vector<std::string>& parts) {
  std::string text;
  for (const auto& part : parts) text += (text.empty() ? "" : ", ") + part;
  return text;
}

std::string full_form(std::string_view type);

// A scope without its namespaces or parameters, its template arguments in full form.
std::string component_full(std::string_view text) {
  const Component component = parse_component(text);
  std::string out(component.name);
  if (!component.templated) return out;
  std::vector<std::string> arguments;
  for (auto argument : component.arguments) arguments.push_back(full_form(argument));
  return out + "<" + join(arguments) + ">";
}

// The scopes of a type or lambda, and where the first lambda is.
struct Scopes {
  Parts parts;
  std::optional<std::size_t> first_lambda;
  // The scope that names what a lambda belongs to: its function, or the class of its operator().
  std::size_t owner() const {
    std::size_t owner = first_lambda ? *first_lambda - 1 : parts.size() - 1;
    while (owner > 0 && parts[owner].starts_with("operator()")) --owner;
    return owner;
  }
};

Scopes scopes_of(std::string_view type) {
  Scopes scopes;
  scopes.parts = split_top(type, "::");
  for (std::size_t i = 0; i < scopes.parts.size(); ++i) {
    if (is_lambda(scopes.parts[i])) {
      scopes.first_lambda = i;
      break;
    }
  }
  if (scopes.first_lambda == std::size_t{0}) scopes.first_lambda.reset();  // a lambda with no owner
  return scopes;
}

// A kernel whose own name says nothing of what it does (CUTLASS's Kernel, Kernel2 and
// device_kernel, a plain "kernel"): its first template argument, the operation it runs, does.
bool is_generic(std::string_view base) {
  if (base.starts_with("device_")) base.remove_prefix(7);
  while (!base.empty() && std::isdigit(static_cast<unsigned char>(base.back()))) base.remove_suffix(1);
  return base == "Kernel" || base == "kernel";
}

// The first argument that names a type or function rather than a number: "GemmUniversal" of
// "cutlass::gemm::kernel::GemmUniversal<cute::tuple<...>, ...>", the class without namespaces or arguments.
std::optional<std::string> first_named_argument(const Parts& arguments) {
  for (auto argument : arguments) {
    if (argument.empty() || argument.front() == '(' || argument == "true" || argument == "false") continue;
    if (std::isdigit(static_cast<unsigned char>(argument.front())) || argument.front() == '-') continue;
    const Scopes scopes = scopes_of(argument);
    return std::string(parse_component(scopes.parts[scopes.owner()]).name);
  }
  return std::nullopt;
}

// "{lambda(c10::Half)#1}" -> "{lambda(Half)#1}": the last lambda, its parameter types unqualified.
std::string innermost_lambda(const Scopes& scopes) {
  std::string_view lambda = scopes.parts.back();
  const std::size_t open = lambda.find('('), close = lambda.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return std::string(lambda);
  std::vector<std::string> parameters;
  const auto inside = lambda.substr(open + 1, close - open - 1);
  if (!trim(inside).empty())
    for (auto parameter : split_top(inside, ",")) parameters.push_back(std::string(split_top(parameter, "::").back()));
  return std::string(lambda.substr(0, open + 1)) + join(parameters) + std::string(lambda.substr(close));
}

// Level 3: every scope from the owner on, namespaces and parameter lists dropped.
std::string full_form(std::string_view type) {
  const Scopes scopes = scopes_of(type);
  if (!scopes.first_lambda) return component_full(scopes.parts.back());
  std::string out = component_full(scopes.parts[scopes.owner()]);
  for (std::size_t i = scopes.owner() + 1; i < scopes.parts.size(); ++i) {
    const auto scope = scopes.parts[i];
    if (scope.starts_with("operator()") && i + 1 < scopes.parts.size()) continue;
    out += "::" + (is_lambda(scope) ? innermost_lambda(Scopes{{scope}, {}}) : std::string(scope));
  }
  return out;
}

// Level 1: the innermost telling name ("CUDAFunctor_add<float>", "launch_clamp_scalar").
// Level 2: the chain of telling names down to it ("BUnaryFunctor<MulFunctor<float>>"), and a
// lambda whose owner says nothing more gets its own signature ("launch_clamp_scalar::{lambda(float)#1}").
std::string telling_form(std::string_view type, int level) {
  const Scopes scopes = scopes_of(type);
  const Component owner = parse_component(scopes.parts[scopes.owner()]);
  const auto telling = telling_argument(owner.arguments);
  std::string out;
  if (telling) {
    const std::string inner = telling_form(owner.arguments[*telling], level);
    out = level >= 2 ? std::string(owner.name) + "<" + inner + ">" : inner;
  } else {
    out = component_full(scopes.parts[scopes.owner()]);
    if (level >= 2 && scopes.first_lambda) out += "::" + innermost_lambda(scopes);
  }
  return out;
}

struct KernelName {
  std::string full;       // without the return type
  std::string_view base;  // the function's own name
  Component kernel;       // the function's scope: name and template arguments
};

KernelName parse_kernel(const std::string& name) {
  KernelName parsed;
  std::string_view text = trim(name);
  if (text.starts_with("void ")) text.remove_prefix(5);
  parsed.full = std::string(text);
  return parsed;
}

constexpr int kFullName = 5;

// The display form of a kernel at LEVEL; PEERS are the names it read the same as before.
// 1: the telling argument's innermost name; 2-4: also the arguments that differ from the
// peers', as innermost names, as chains, in full form; 5: the whole name.
std::string display_form(const KernelName& name, int level, const std::vector<const KernelName*>& peers) {
  const auto& kernel = name.kernel;
  if (level >= kFullName || !kernel.templated) return level >= kFullName ? name.full : std::string(name.base);
  const auto telling = telling_argument(kernel.arguments);
  if (level == 1) {
    if (is_generic(name.base))
      if (const auto named = first_named_argument(kernel.arguments)) return std::string(name.base) + "<" + *named + ">";
    return telling ? std::string(name.base) + "<" + telling_form(kernel.arguments[*telling], 1) + ">"
                   : std::string(name.base);
  }
  // Levels 2 to 4: the arguments that differ among the peers, and the telling one.
  std::vector<std::string> shown;
  for (std::size_t i = 0; i < kernel.arguments.size(); ++i) {
    const bool differs = std::any_of(peers.begin(), peers.end(), [&](const KernelName* peer) {
      return peer->kernel.arguments.size() <= i || peer->kernel.arguments[i] != kernel.arguments[i];
    });
    if (!differs && i != telling) continue;
    const auto argument = kernel.arguments[i];
    // The telling argument alone (same for all peers) stays in its level-1 form.
    shown.push_back(is_plain(argument)       ? std::string(argument)
                    : !differs || level == 2 ? telling_form(argument, 1)
                    : level == 3             ? telling_form(argument, 2)
                                             : full_form(argument));
  }
  return std::string(name.base) + "<" + join(shown) + ">";
}

}  // namespace

std::string kernel_base_name(const std::string& demangled) {
  std::string_view text = trim(demangled);
  if (text.starts_with("void ")) text.remove_prefix(5);
  return std::string(parse_component(split_top(text, "::").back()).name);
}

std::vector<std::string> kernel_short_forms(const std::string& demangled) {
  KernelName name = parse_kernel(demangled);
  name.kernel = parse_component(split_top(name.full, "::").back());
  name.base = name.kernel.name;
  const KernelName unlike;  // a peer with no arguments: every argument differs from it
  std::vector<std::string> forms;
  for (int level = 1; level < kFullName; ++level) {
    std::string form = display_form(name, level, {&unlike});
    if (std::find(forms.begin(), forms.end(), form) == forms.end()) forms.push_back(std::move(form));
  }
  return forms;
}

std::unordered_map<std::string, std::string> short_kernel_names(const std::vector<std::string>& names) {
  const std::set<std::string> distinct(names.begin(), names.end());
  std::vector<KernelName> parsed;
  parsed.reserve(distinct.size());
  for (const auto& name : distinct) parsed.push_back(parse_kernel(name));
  // Views into each entry's own `full`: parsed only after the vector stops growing.
  for (auto& name : parsed) {
    name.kernel = parse_component(split_top(name.full, "::").back());
    name.base = name.kernel.name;
  }

  std::vector<int> level(parsed.size(), 1);
  std::vector<std::vector<const KernelName*>> peers(parsed.size());
  std::vector<std::string> shown(parsed.size());
  for (int round = 0; round < kFullName; ++round) {
    std::map<std::string, std::vector<std::size_t>> readers;
    for (std::size_t i = 0; i < parsed.size(); ++i) {
      shown[i] = display_form(parsed[i], level[i], peers[i]);
      readers[shown[i]].push_back(i);
    }
    bool collided = false;
    for (const auto& [text, indices] : readers) {
      if (indices.size() < 2) continue;
      collided = true;
      for (std::size_t i : indices) {
        level[i] = std::min(level[i] + 1, kFullName);
        peers[i].clear();
        for (std::size_t other : indices)
          if (other != i) peers[i].push_back(&parsed[other]);
      }
    }
    if (!collided) break;
  }

  std::unordered_map<std::string, std::string> result;
  std::size_t index = 0;
  for (const auto& name : distinct) result[name] = shown[index++];
  return result;
}

}  // namespace limiter
