// The collector's modes as phase lists (phases.hpp): the one place where options combine.
#include "collect/phases.hpp"

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
  return record;
}

SessionCallbacks Phases::callbacks() const {
  SessionCallbacks all;
  for (const auto& session : sessions_) {
    const SessionCallbacks wanted = session->callbacks();
    all.launch_exit |= wanted.launch_exit;
    all.sync_points |= wanted.sync_points;
    all.graphs |= wanted.graphs;
    all.graph_destroy |= wanted.graph_destroy;
  }
  return all;
}

std::vector<std::unique_ptr<Session>> sessions_for(const CollectorOptions& options, RangeBackend& backend,
                                                   NvtxTracker& nvtx, LaunchSink* sink) {
  std::vector<std::unique_ptr<Session>> sessions;
  const std::vector<std::string> metrics = options.metrics.empty() ? metric_plan(options.plan).metrics : options.metrics;
  const bool budgets = options.per_kernel_count != CollectorOptions{}.per_kernel_count || options.per_kernel_skip > 0;
  if (!options.sampling) {
    sessions.push_back(std::make_unique<RangeSession>(options, metrics, backend, nvtx, sink));
    return sessions;
  }
  if (options.exact_undecided_count > 0) {
    // The exact phase is a budget of exact_undecided_count launches per undecided kernel.
    CollectorOptions exact = options;
    exact.sampling = false;
    exact.keep_launches = true;  // until they join the sampler's aggregates
    exact.per_kernel_count = options.exact_undecided_count;
    exact.raw_dir.clear();  // --save-raw keeps the samples; the record holds the exact counters
    sessions.push_back(std::make_unique<PmSamplingSession>(options, sink, SamplingRole::before_exact));
    sessions.push_back(std::make_unique<RangeSession>(exact, metrics, backend, nvtx, sink));
    return sessions;
  }
  if (!budgets) {  // no range profiler at all: the sampler and kernel timestamps
    sessions.push_back(std::make_unique<PmSamplingSession>(options, sink, SamplingRole::alone));
    return sessions;
  }
  // Each kernel's first launches exactly, then sampling from where a budget run would pause.
  CollectorOptions exact = options;
  exact.sampling = false;
  exact.keep_launches = true;
  exact.raw_dir.clear();
  auto range = std::make_unique<RangeSession>(exact, metrics, backend, nvtx, sink, /*ends_when_budgets_spent=*/true);
  auto sampler = std::make_unique<PmSamplingSession>(options, sink, SamplingRole::after_exact);
  // The sampler's host side is prepared while the exact phase runs, off the app's path.
  range->on_context_ready = [sampler = sampler.get()](int device, const std::string& chip) {
    sampler->prepare_ahead(device, chip);
  };
  sessions.push_back(std::move(range));
  sessions.push_back(std::move(sampler));
  return sessions;
}

}  // namespace limiter::detail
