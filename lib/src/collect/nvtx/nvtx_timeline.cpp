// The app's NVTX ranges as timeline events (nvtx_timeline.hpp).
#include "collect/nvtx/nvtx_timeline.hpp"

#include <algorithm>

namespace limiter::detail {

namespace {

std::string with_domain(const std::string& domain, const std::string& text) {
  return domain.empty() ? text : domain + "@" + text;
}

}  // namespace

NvtxTimeline::NvtxTimeline(bool process_scope, std::size_t max_ranges, std::size_t max_open)
    : process_scope_(process_scope), max_ranges_(max_ranges), max_open_(max_open) {}

void NvtxTimeline::open(std::uint64_t start_ns) {
  std::lock_guard lock(mutex_);
  if (!window_start_ns_) window_start_ns_ = std::max<std::uint64_t>(start_ns, 1);
}

void NvtxTimeline::on_event(const NvtxEvent& event) {
  std::lock_guard lock(mutex_);
  if (finished_) return;
  switch (event.kind) {
    case NvtxEvent::Kind::push: {
      Stack& stack = stacks_[{process_scope_ ? 0 : event.thread_id, event.domain}];
      if (stack.open.size() >= max_open_) {
        ++stack.overflow;
        ++dropped_;
        return;
      }
      std::string path = (stack.open.empty() ? std::string() : stack.open.back().path) + event.name + "/";
      std::string name = with_domain(event.domain, path);
      stack.open.push_back({std::move(name), std::move(path), event.time_ns, event.thread_id});
      return;
    }
    case NvtxEvent::Kind::pop: {
      auto found = stacks_.find({process_scope_ ? 0 : event.thread_id, event.domain});
      if (found == stacks_.end() || (found->second.open.empty() && !found->second.overflow)) {
        ++unmatched_;
        return;
      }
      Stack& stack = found->second;
      if (stack.overflow) {
        --stack.overflow;
        return;
      }
      Open range = std::move(stack.open.back());
      stack.open.pop_back();
      close(std::move(range), event.time_ns);
      return;
    }
    case NvtxEvent::Kind::start: {
      if (start_end_.size() >= max_open_) {
        ++dropped_;  // its end then finds no id: counted as unmatched too
        return;
      }
      start_end_[event.id] = {with_domain(event.domain, event.name), {}, event.time_ns, event.thread_id};
      return;
    }
    case NvtxEvent::Kind::end: {
      auto found = start_end_.find(event.id);
      if (found == start_end_.end()) {
        ++unmatched_;
        return;
      }
      Open range = std::move(found->second);
      start_end_.erase(found);
      close(std::move(range), event.time_ns);
      return;
    }
  }
}

void NvtxTimeline::close(Open range, std::uint64_t end_ns) {
  if (!window_start_ns_ || end_ns < window_start_ns_) return;  // before the window: only followed
  if (kept_ >= max_ranges_) {
    ++dropped_;
    return;
  }
  ++kept_;
  TimelineEvent event;
  event.kind = ActivityKind::nvtx_range;
  event.start_ns = std::max(range.start_ns, window_start_ns_);
  event.end_ns = std::max(end_ns, event.start_ns);
  event.name = std::move(range.name);
  event.thread_id = range.thread_id;
  closed_.push_back(std::move(event));
}

std::vector<TimelineEvent> NvtxTimeline::take_closed() {
  std::lock_guard lock(mutex_);
  std::vector<TimelineEvent> out;
  out.swap(closed_);
  return out;
}

std::vector<TimelineEvent> NvtxTimeline::close_open(std::uint64_t end_ns) {
  std::lock_guard lock(mutex_);
  if (!finished_) {
    finished_ = true;
    // Innermost first, as pops would have closed them; then the start/end ranges, oldest first.
    auto close_at_end = [&](Open& range) {
      const std::uint64_t before = kept_, end = std::max(end_ns, range.start_ns);
      close(std::move(range), end);
      unclosed_ += kept_ - before;
    };
    for (auto& [key, stack] : stacks_) {
      for (auto it = stack.open.rbegin(); it != stack.open.rend(); ++it) close_at_end(*it);
      stack.open.clear();
      stack.overflow = 0;  // counted as dropped when pushed
    }
    for (auto& [id, range] : start_end_) close_at_end(range);
    start_end_.clear();
  }
  std::vector<TimelineEvent> out;
  out.swap(closed_);
  return out;
}

std::uint64_t NvtxTimeline::kept() const {
  std::lock_guard lock(mutex_);
  return kept_;
}

std::uint64_t NvtxTimeline::dropped() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

std::uint64_t NvtxTimeline::unclosed() const {
  std::lock_guard lock(mutex_);
  return unclosed_;
}

std::uint64_t NvtxTimeline::unmatched() const {
  std::lock_guard lock(mutex_);
  return unmatched_;
}

}  // namespace limiter::detail
