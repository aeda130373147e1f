// The subscriber's events through the phase list (phases.hpp), each to the sessions that opted
// into it (session_capabilities.hpp says which: the current phase, every phase, the background).
#include "collect/phases.hpp"

namespace limiter::detail {

namespace {

// Calls F with each of TAKES' opt-ins of one kind (MEMBER) that is set.
template <class Member, class F>
void each(const std::vector<SessionCapabilities>& takes, Member member, F&& f) {
  for (const auto& session : takes)
    if (auto* capability = session.*member) f(*capability);
}

// The same, over every phase's opt-ins and then the background's.
template <class Member, class F>
void each(const std::vector<SessionCapabilities>& phases, const std::vector<SessionCapabilities>& background,
          Member member, F&& f) {
  each(phases, member, f);
  each(background, member, f);
}

}  // namespace

void Phases::on_collector_started() {
  if (auto* start = current_takes().start) start->on_collector_started();
  each(background_takes_, &SessionCapabilities::start, [](CollectorStart& s) { s.on_collector_started(); });
}

void Phases::on_launch(const LaunchCall& call) {
  current().on_launch(call);
  for (const auto& session : background_) session->on_launch(call);
}

void Phases::on_launch_exit(const LaunchCall& call) {
  each(takes_, background_takes_, &SessionCapabilities::launch_exits, [&](LaunchExits& s) { s.on_launch_exit(call); });
}

void Phases::on_sync(SyncKind kind) {
  if (auto* sync = current_takes().sync_points) sync->on_sync(kind);
}

void Phases::on_graph_event(const GraphEvent& event) {
  each(takes_, background_takes_, &SessionCapabilities::graphs, [&](GraphEvents& s) { s.on_graph_event(event); });
}

void Phases::on_module_loaded(const ModuleLoad& module) {
  each(takes_, background_takes_, &SessionCapabilities::modules, [&](ModuleLoads& s) { s.on_module_loaded(module); });
}

void Phases::on_context_created(CUcontext context) {
  if (auto* contexts = current_takes().contexts) contexts->on_context_created(context);
  each(background_takes_, &SessionCapabilities::contexts, [&](ContextCreation& s) { s.on_context_created(context); });
}

void Phases::on_context_destroy(CUcontext context) {
  for (const auto& session : sessions_) session->on_context_destroy(context);
  for (const auto& session : background_) session->on_context_destroy(context);
}

void Phases::on_nvtx(const NvtxEvent& event) {
  if (auto* nvtx = current_takes().nvtx) nvtx->on_nvtx(event);
  each(background_takes_, &SessionCapabilities::nvtx, [&](NvtxCalls& s) { s.on_nvtx(event); });
}

void Phases::flush() {
  if (auto* pending = current_takes().pending) pending->flush();
  each(background_takes_, &SessionCapabilities::pending, [](PendingWork& s) { s.flush(); });
}

bool Phases::flush_before_exit(std::chrono::milliseconds wait) noexcept {
  PendingWork* pending = current_takes().pending;
  const bool complete = !pending || pending->flush_before_exit(wait);
  // After the phase's last launches are decoded: the timeline's kernels join them.
  each(background_takes_, &SessionCapabilities::pending, [&](PendingWork& s) { s.flush_before_exit(wait); });
  return complete;
}

void Phases::write_raw_files() {
  if (auto* pending = current_takes().pending) pending->write_raw_files();
}

std::vector<MissedLaunches> Phases::missed() const {
  std::vector<MissedLaunches> all;
  for (const auto& session : sessions_) {
    auto part = session->missed();
    all.insert(all.end(), part.begin(), part.end());
  }
  return all;
}

std::uint64_t Phases::launches_seen() const {
  std::uint64_t seen = 0;
  for (const auto& session : sessions_) seen += session->launches_seen();
  return seen;
}

std::vector<KernelSeen> Phases::kernels_seen() const {
  for (const auto& takes : takes_)  // the exact phase's (the default run's second)
    if (takes.kernels)
      if (auto seen = takes.kernels->kernels_seen(); !seen.empty()) return seen;
  return {};
}

SessionCallbacks Phases::callbacks() const {
  SessionCallbacks all;
  for (const auto* list : {&takes_, &background_takes_}) {
    for (const SessionCapabilities& takes : *list) {
      all.launch_exit |= takes.launch_exits != nullptr;
      all.sync_points |= takes.sync_points != nullptr;
      all.graphs |= takes.graphs != nullptr;
      all.graph_destroy |= takes.graphs && takes.graphs->keeps_graphs();
      all.modules |= takes.modules != nullptr;
      all.contexts |= takes.contexts != nullptr;
      all.nvtx |= takes.nvtx != nullptr;
    }
  }
  return all;
}

}  // namespace limiter::detail
