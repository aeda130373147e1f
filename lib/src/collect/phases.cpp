// The collector's modes as phase lists (phases.hpp): the one place where options combine.
#include "collect/phases.hpp"

#include "collect/activity_session.hpp"
#include "collect/pc_sampling_session.hpp"
#include "collect/pm_sampling_session.hpp"
#include "collect/range_session.hpp"
#include "limiter/metric_plans.hpp"

namespace limiter::detail {

void Phases::advance() {
  if (last()) return;
  Session& ending = current();
  RunRecord record = ending.finish();
  Session& next = *sessions_[index_.load() + 1];
  next.begin_after(std::move(record), /*follows=*/true);
  index_.store(index_.load() + 1);
}

RunRecord Phases::finish() {
  std::size_t i = index_.load();
  RunRecord record = sessions_[i]->finish();
  for (++i; i < sessions_.size(); ++i) {
    sessions_[i]->begin_after(std::move(record), /*follows=*/false);
    record = sessions_[i]->finish();
  }
  for (const auto& session : background_) record = session->finish_beside(std::move(record));
  return record;
}

SessionCallbacks Phases::callbacks() const {
  SessionCallbacks all;
  for (const auto* list : {&sessions_, &background_}) {
    for (const auto& session : *list) {
      const SessionCallbacks wanted = session->callbacks();
      all.launch_exit |= wanted.launch_exit;
      all.sync_points |= wanted.sync_points;
      all.graphs |= wanted.graphs;
      all.graph_destroy |= wanted.graph_destroy;
      all.modules |= wanted.modules;
      all.contexts |= wanted.contexts;
      all.nvtx |= wanted.nvtx;
    }
  }
  return all;
}

PhaseList sessions_for(const CollectorOptions& options, RangeBackend& backend, NvtxTracker& nvtx, LaunchSink* sink) {
  PhaseList list;
  auto& sessions = list.phases;
  if (options.trace) {  // no range profiler at all: the timeline alone
    sessions.push_back(std::make_unique<ActivitySession>(options, sink, /*alone=*/true));
    return list;
  }
  if (options.stalls) {  // PC sampling alone: the Range Profiler and PM sampling are refused beside it
    sessions.push_back(std::make_unique<PcSamplingSession>(options, cupti_pc_sampling_backend()));
    return list;
  }
  const std::vector<std::string> metrics = options.metrics.empty() ? metric_plan(options.plan).metrics : options.metrics;
  const bool budgets = options.per_kernel_count != CollectorOptions{}.per_kernel_count || options.per_kernel_skip > 0;
  if (!options.sampling) {
    auto range = std::make_unique<RangeSession>(options, metrics, backend, nvtx, sink);
    if (!options.timeline) {
      sessions.push_back(std::move(range));
      return list;
    }
    auto activity = std::make_unique<ActivitySession>(options, sink, /*alone=*/false);
    range->on_launch_completed = [activity = activity.get()](std::uint32_t correlation_id, std::uint64_t sequence) {
      activity->note_launch(correlation_id, sequence);
    };
    sessions.push_back(std::move(range));
    list.background.push_back(std::move(activity));
    return list;
  }
  if (options.exact_undecided_count > 0) {
    // The exact phase is a budget of exact_undecided_count launches per undecided kernel.
    CollectorOptions exact = options;
    exact.sampling = false;
    exact.keep_launches = true;  // until they join the sampler's aggregates
    exact.per_kernel_count = options.exact_undecided_count;
    exact.raw_dir.clear();  // --save-raw keeps the samples; the record holds the exact counters
    sessions.push_back(std::make_unique<PmSamplingSession>(options, sink, SamplingRole::before_exact,
                                                          cupti_pm_sampling_backend()));
    sessions.push_back(std::make_unique<RangeSession>(exact, metrics, backend, nvtx, sink));
    return list;
  }
  if (!budgets) {  // no range profiler at all: the sampler and kernel timestamps
    sessions.push_back(std::make_unique<PmSamplingSession>(options, sink, SamplingRole::alone,
                                                          cupti_pm_sampling_backend()));
    return list;
  }
  // Each kernel's first launches exactly, then sampling from where a budget run would pause.
  CollectorOptions exact = options;
  exact.sampling = false;
  exact.keep_launches = true;
  exact.raw_dir.clear();
  auto range = std::make_unique<RangeSession>(exact, metrics, backend, nvtx, sink, /*ends_when_budgets_spent=*/true);
  auto sampler = std::make_unique<PmSamplingSession>(options, sink, SamplingRole::after_exact,
                                                          cupti_pm_sampling_backend());
  // The sampler's host side is prepared while the exact phase runs, off the app's path.
  range->on_context_ready = [sampler = sampler.get()](int device, const std::string& chip) {
    sampler->prepare_ahead(device, chip);
  };
  sessions.push_back(std::move(range));
  sessions.push_back(std::move(sampler));
  return list;
}

}  // namespace limiter::detail
