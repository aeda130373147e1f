#pragma once
// NVTX ranges around a launch, and Nsight Compute's filter syntax for them (`--nvtx-include`,
// `--nvtx-exclude`). Pure C++: the collector fills NvtxRanges from CUPTI's NVTX callbacks, the
// record keeps them as paths (KernelLaunch::nvtx), and reports filter the paths read back.
//
// An expression, as ncu reads it:
//   "A"           a start/end range A (nvtxRangeStart/End) is open, in the default domain
//   "A/"          the launching thread's push/pop stack holds A, at any level
//   "A/B/"        ... holds A with B directly inside it;  "A/*/B/": B anywhere inside A
//   "[A/"         A is the bottom of the stack;  "A/B]": B is the top (innermost) range
//   "D@A/", "D@A" the same in the NVTX domain D (nvtxDomainCreate)
//   "regex:..."   each range name is an ECMAScript regular expression (searched in the name)
// Several includes: a launch inside any of them; an exclude: never a launch inside it.
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace limiter {

struct NvtxStack {
  std::string domain;               // empty: the default domain
  std::vector<std::string> ranges;  // outermost first
};

struct NvtxStartEnd {
  std::string domain;
  std::string name;
};

struct NvtxRanges {
  std::vector<NvtxStack> push_pop;      // the launching thread's stacks, one per domain
  std::vector<NvtxStartEnd> start_end;  // the process's open start/end ranges, oldest first
  bool empty() const;
};

// The paths a record keeps: "A/B/" per push/pop stack ("D@A/B/" outside the default domain),
// then "A" ("D@A") per open start/end range. Each is an expression that selects the launch.
std::vector<std::string> nvtx_paths(const NvtxRanges& ranges);
// Back from the paths (a name holding '/' or '@' reads back split: the record's limit).
NvtxRanges nvtx_ranges_from_paths(const std::vector<std::string>& paths);
inline constexpr const char* kNoNvtxRange = "(no NVTX range)";
// The paths as one label, " + " between them; kNoNvtxRange for none.
std::string nvtx_label(const std::vector<std::string>& paths);

class NvtxExpression {
 public:
  explicit NvtxExpression(const std::string& text);  // throws InputError naming the syntax
  bool matches(const NvtxRanges& ranges) const;
  const std::string& text() const { return text_; }

 private:
  struct Element {
    bool any_run = false;  // "*": zero or more ranges
    std::string name;
    std::optional<std::regex> pattern;
    bool matches(const std::string& range) const;
  };
  bool matches_stack(const std::vector<std::string>& stack) const;
  bool matches_from(const std::vector<std::string>& stack, std::size_t element, std::size_t at) const;

  std::string text_, domain_;
  bool push_pop_ = false, bottom_ = false, top_ = false;
  std::vector<Element> elements_;
};

class NvtxFilter {
 public:
  NvtxFilter() = default;
  NvtxFilter(const std::vector<std::string>& include, const std::vector<std::string>& exclude);
  bool active() const { return !include_.empty() || !exclude_.empty(); }
  bool selects(const NvtxRanges& ranges) const;

 private:
  std::vector<NvtxExpression> include_, exclude_;
};

}  // namespace limiter
