// The phase list (phases.hpp): windows, hand-overs and the run's end.
#include "collect/phases.hpp"

#include <system_error>

#include "collect/forked_child.hpp"

namespace limiter::detail {

Phases::Phases(PhaseList list, PhaseClock clock)
    : sessions_(std::move(list.phases)),
      background_(std::move(list.background)),
      background_from_(std::move(list.background_from)),
      handovers_(std::move(list.handovers)),
      clock_(std::move(clock)) {
  background_from_.resize(background_.size(), 0);
  for (auto& name : list.names) windows_.push_back({std::move(name), 0, 0, 0, ""});
  windows_.resize(windows_.empty() ? 0 : sessions_.size());
  ask_capabilities();
}

Phases::Phases(std::vector<std::unique_ptr<Session>> sessions) : sessions_(std::move(sessions)) { ask_capabilities(); }

void Phases::ask_capabilities() {
  for (const auto& session : sessions_) takes_.push_back(session->capabilities());
  for (const auto& session : background_) background_takes_.push_back(session->capabilities());
}

bool Phases::current_over() const {
  const PhaseEnd* end = current_takes().phase_end;
  return end && end->phase_over();
}

void Phases::note_launch() {
  ++phase_launches_;
  // The first phase's window opens at the first launch, not at cuInit: the app's set-up is no phase's.
  if (windows_.empty() || first_launch_seen_.load(std::memory_order_relaxed) || first_launch_seen_.exchange(true))
    return;
  std::lock_guard lock(windows_mutex_);
  if (windows_[0].start_ns == 0) windows_[0].start_ns = now();
}

void Phases::begin_region() {
  for (std::size_t i = index_.load(); i < sessions_.size(); ++i) sessions_[i]->begin_region();
  for (const auto& session : background_) session->begin_region();
}

void Phases::end_region() {
  for (std::size_t i = index_.load(); i < sessions_.size(); ++i) sessions_[i]->end_region();
  for (const auto& session : background_) session->end_region();
}

void Phases::close_window(std::size_t index, std::string ended_by) {
  if (index >= windows_.size()) return;
  std::lock_guard lock(windows_mutex_);
  PhaseWindow& window = windows_[index];
  window.end_ns = now();
  if (window.start_ns == 0) window.start_ns = window.end_ns;  // no launch ran in it
  window.launches = phase_launches_.exchange(0);
  window.ended_by = std::move(ended_by);
}

void Phases::advance() {
  if (last() || finished_) return;
  const std::size_t ending_index = index_.load();
  const SessionCapabilities ending = takes_[ending_index];
  close_window(ending_index, ending.phase_end ? ending.phase_end->phase_over_reason() : "its work done");
  RunRecord record = finish_phase(ending_index);
  if (!windows_.empty()) {
    std::lock_guard lock(windows_mutex_);
    windows_[ending_index + 1].start_ns = windows_[ending_index].end_ns;
    record.phases = windows_;
  }
  // The ended phase's slow part and its record's way to disk run beside the next phase: a sampling
  // window's source lines and cubin files cost the app's thread ~0.2 s (H200, a PyTorch loop).
  join_completer();  // a phase before this one's (none in the lists there are)
  handed_over_ = false;
  try {
    completer_ = std::thread(
        [this, ended = ending.completion, handed = record]() mutable { hand_over(ended, std::move(handed)); });
  } catch (const std::system_error&) {  // no thread: on the app's
    hand_over(ending.completion, record);
  }
  begin_phase(ending_index + 1, std::move(record), /*follows=*/true);
  index_.store(ending_index + 1);
  for (std::size_t i = 0; i < background_.size(); ++i)
    if (background_from_[i] == ending_index + 1 && background_takes_[i].background)
      background_takes_[i].background->on_phase_begun(ending_index + 1);
}

PhaseHandover* Phases::handover(std::size_t i) const { return i < handovers_.size() ? handovers_[i].get() : nullptr; }

void Phases::begin_phase(std::size_t i, RunRecord before, bool follows) {
  if (PhaseHandover* rule = handover(i))
    rule->begin(std::move(before), follows);
  else
    sessions_[i]->begin_after(std::move(before), follows);
}

RunRecord Phases::finish_phase(std::size_t i) {
  RunRecord record = sessions_[i]->finish();
  PhaseHandover* rule = handover(i);
  return rule ? rule->join(std::move(record)) : record;
}

std::string Phases::timings(std::size_t i) const {
  const PhaseHandover* rule = handover(i);
  return (rule ? rule->timings() : std::string()) + sessions_[i]->timings();
}

void Phases::hand_over(SlowCompletion* ended, RunRecord handed) noexcept {
  if (ended) ended->complete_record(handed);
  if (!handed.stalls) handed.stalls = completed_stalls_;  // an earlier phase's, completed (joined before)
  completed_stalls_ = handed.stalls;
  if (on_handover && !windows_.empty()) {
    try {
      on_handover(handed);
    } catch (const std::exception&) {  // the record still goes on in memory
    }
  }
  handed_over_ = true;
}

bool Phases::wait_handed_over(std::chrono::milliseconds wait) {
  const auto deadline = std::chrono::steady_clock::now() + wait;
  while (!handed_over_.load()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

void Phases::join_completer() {
  if (!completer_.joinable()) return;
  if (in_forked_child_by_pid()) {  // the parent's thread: never in this process
    completer_.detach();
    return;
  }
  completer_.join();
}

RunRecord Phases::finish() {
  join_completer();
  if (finished_) {  // a second take_run: the run is over, its record was handed out
    RunRecord done;
    done.phases = windows_;
    return done;
  }
  // A run of phases ends once; a single session's take_run gives what it holds so far (the
  // in-process API's launches since the last take_run, --every-launch).
  finished_ = sessions_.size() > 1;
  std::size_t i = index_.load();
  close_window(i, "the app ended");
  RunRecord record = finish_phase(i);
  if (takes_[i].completion) takes_[i].completion->complete_record(record);
  for (++i; i < sessions_.size(); ++i) {
    if (i < windows_.size()) {
      std::lock_guard lock(windows_mutex_);
      windows_[i].ended_by = "never began";
    }
    begin_phase(i, std::move(record), /*follows=*/false);
    record = finish_phase(i);
    if (takes_[i].completion) takes_[i].completion->complete_record(record);
  }
  for (const auto& takes : background_takes_)
    if (takes.background) record = takes.background->finish_beside(std::move(record));
  if (!record.stalls && completed_stalls_) record.stalls = std::move(completed_stalls_);
  if (!windows_.empty()) {
    std::lock_guard lock(windows_mutex_);
    record.phases = windows_;
  }
  return record;
}

std::vector<PhaseWindow> Phases::windows() const {
  std::unique_lock lock(windows_mutex_, std::chrono::milliseconds(100));
  if (!lock.owns_lock()) return {};
  std::vector<PhaseWindow> windows = windows_;
  const std::size_t i = index_.load();
  if (i < windows.size() && windows[i].ended_by.empty()) {  // the current one, still open
    windows[i].end_ns = now();
    windows[i].launches = phase_launches_.load();
    windows[i].ended_by = "running";
    for (std::size_t later = i + 1; later < windows.size(); ++later) windows[later].ended_by = "never began";
  }
  return windows;
}

}  // namespace limiter::detail
