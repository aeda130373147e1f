// A run record read for a comparison: streamed through the report's pipeline
// (summary/launch_pipeline.hpp), its launches parsed on every core. A grouped comparison shows a
// kernel and configuration by its first launch's verdict and all its launches' times, so only
// that first launch is analysed (as it is folded in, in launch order, in its batch's context, as
// analyze_run would have analysed it); the others give their name, configuration and time.
// Analysing every launch was half the CPU time of a comparison of 100,000 launches a side. With
// rows per launch every launch is analysed, on every core.
#include <optional>
#include <unordered_set>

#include "analysis/compare_groups.hpp"
#include "limiter/compare.hpp"
#include "summary/launch_pipeline.hpp"

namespace limiter {
namespace {

constexpr std::size_t kBatchLaunches = 128;  // as the report's pipeline reads them

// Each launch of the record added to LAUNCHES as it is folded, in launch order.
class ComparedLaunches {
 public:
  ComparedLaunches(const AnalysisOptions& options, bool every_launch, ComparedRun& launches,
                   std::unordered_map<std::string, std::string>* mangled)
      : options_(options), every_launch_(every_launch), launches_(launches), mangled_(mangled) {}

  detail::AnalysedBatch analyse(const RunRecord& batch) const {
    if (!every_launch_) return {};  // the fold analyses the few first launches
    return {analyze_run(batch, options_)};
  }

  void fold(const RunRecord& batch, const detail::AnalysedBatch& analysed) {
    std::optional<LaunchAnalyzer> analyzer;  // made only for a batch with a group's first launch
    for (std::size_t i = 0; i < batch.launches.size(); ++i) {
      const KernelLaunch& launch = batch.launches[i];
      if (every_launch_) {
        launches_.add(analysed.analysis.kernels[i]);
      } else {
        const std::size_t known = groups_.size();
        const ComparedLaunch& added = launches_.add_unanalysed(launch);
        if (groups_.of(added.name, added.grid, added.block) == known) {  // its group's first launch
          if (!analyzer) analyzer.emplace(batch, options_);
          launches_.launches.pop_back();
          launches_.add(analyzer->analyze(launch));
        }
      }
      note_mangled(launch, launches_.launches.back().name);
    }
  }

 private:
  // The first mangled name each kernel's launches give, looked up by its interned name's address.
  void note_mangled(const KernelLaunch& launch, std::string_view interned) {
    if (mangled_ && !launch.mangled_name.empty() && with_mangled_.insert(interned.data()).second)
      mangled_->emplace(launch.name, launch.mangled_name);
  }

  const AnalysisOptions& options_;
  const bool every_launch_;
  ComparedRun& launches_;
  std::unordered_map<std::string, std::string>* mangled_;
  detail::LaunchGroups groups_;
  std::unordered_set<const char*> with_mangled_;
};

}  // namespace

ComparedRun read_compared_run(const std::string& path, const AnalysisOptions& options, bool every_launch,
                              std::unordered_map<std::string, std::string>* mangled) {
  ComparedRun launches;
  ComparedLaunches reader(options, every_launch, launches, mangled);
  const RunRecord header = detail::analyse_in_batches(
      path, kBatchLaunches, [&](const RunRecord& batch) { return reader.analyse(batch); },
      [&](const RunRecord& batch, detail::AnalysedBatch& analysed) { reader.fold(batch, analysed); });
  ComparedRun run = compared_run(analyze_run(header, options));  // the run's fields: none of its launches
  run.names = std::move(launches.names);
  run.launches = std::move(launches.launches);
  add_record_fields(run, header);
  return run;
}

}  // namespace limiter
