// Summaries of an analysis in memory, and of a run record read as a stream: launches are
// parsed into batches on a second thread, each batch analysed here and folded into the
// summary, so a few batches are in memory at a time.

#include <optional>
#include <regex>

#include "limiter/record_stream.hpp"
#include "limiter/run_summary.hpp"
#include "summary/launch_pipeline.hpp"

namespace limiter {

RunSummary summarize(const RunAnalysis& analysis, const SummaryOptions& options) {
  SummaryBuilder builder(options);
  builder.start(analysis);
  for (const auto& kernel : analysis.kernels) builder.add(KernelAnalysis(kernel));
  return builder.finish();
}

namespace {

constexpr std::size_t kBatchLaunches = 512;

}  // namespace

namespace {

// Folds a batch of launches into the summary: analysed together, then added one by one.
class BatchAnalyzer {
 public:
  BatchAnalyzer(const AnalysisOptions& analysis_options, const SummaryOptions& options, const BatchSink& on_batch)
      : analysis_options_(analysis_options), builder_(options), on_batch_(on_batch) {
    builder_.explain_longest_with([this](const KernelLaunch& launch) {
      RunRecord one = run_header_;
      one.launches = {launch};
      return std::move(analyze_run(one, analysis_options_).kernels.front());
    });
  }
  void set_header(const RunRecord& header) {
    run_ = header;
    run_header_ = header;
    run_header_.launches.clear();
  }
  // The batch is swapped in and back out, so its launches are freed by whoever owns it. Launches
  // that are neither kept nor exported are analysed without words (a fifth of the time); the
  // builder explains each group's longest at the end.
  void add(std::vector<KernelLaunch>& batch) {
    run_.launches.swap(batch);
    AnalysisOptions options = analysis_options_;
    const bool wordless = !on_batch_ && !builder_.keeps_launches();
    options.explain = analysis_options_.explain && !wordless;
    RunAnalysis analysis = analyze_run(run_, options);
    start(analysis);
    if (on_batch_) on_batch_(run_, analysis);
    for (std::size_t i = 0; i < analysis.kernels.size(); ++i)
      builder_.add(std::move(analysis.kernels[i]), run_.launches[i].mangled_name,
                   wordless ? &run_.launches[i] : nullptr);
    run_.launches.swap(batch);
  }
  RunSummary finish() {
    run_.launches.clear();
    start(analyze_run(run_, analysis_options_));  // a run without launches still has its header
    return builder_.finish();
  }

 private:
  void start(const RunAnalysis& analysis) {
    if (started_) return;
    builder_.start(analysis);
    started_ = true;
  }
  AnalysisOptions analysis_options_;
  SummaryBuilder builder_;
  const BatchSink& on_batch_;
  RunRecord run_;
  RunRecord run_header_;  // the run's fields without launches: to explain one launch again
  bool started_ = false;
};

}  // namespace

RunSummary summarize_record(const RunRecord& run, const AnalysisOptions& analysis_options,
                            const SummaryOptions& options, const BatchSink& on_batch) {
  BatchAnalyzer analyzer(analysis_options, options, on_batch);
  RunRecord header = run;
  header.launches.clear();
  analyzer.set_header(header);
  std::vector<KernelLaunch> launches = run.launches;
  if (!launches.empty()) analyzer.add(launches);
  return analyzer.finish();
}

RunSummary summarize_run_file(const std::string& path, const AnalysisOptions& analysis_options,
                              const SummaryOptions& options, const BatchSink& on_batch) {
  BatchAnalyzer analyzer(analysis_options, options, on_batch);
  bool started = false;
  const RunRecord header = detail::read_in_batches(path, kBatchLaunches, [&](const RunRecord& run, auto& batch) {
    if (!started) analyzer.set_header(run);
    started = true;
    analyzer.add(batch);
  });
  if (!started) analyzer.set_header(header);  // a run without launches
  return analyzer.finish();
}
void for_each_analysed_launch(const std::string& path, const AnalysisOptions& analysis_options,
                              const std::string& kernel_regex, const std::function<void(const KernelAnalysis&)>& row) {
  const std::optional<std::regex> selected =
      kernel_regex.empty() ? std::nullopt : std::optional<std::regex>(kernel_name_regex(kernel_regex));
  RunRecord batch_run;
  bool started = false;
  detail::read_in_batches(path, kBatchLaunches, [&](const RunRecord& header, std::vector<KernelLaunch>& batch) {
    if (!started) batch_run = header;
    started = true;
    batch_run.launches.swap(batch);
    const RunAnalysis analysis = analyze_run(batch_run, analysis_options);
    batch_run.launches.swap(batch);
    for (const auto& kernel : analysis.kernels)
      if (!selected || std::regex_search(kernel.name, *selected)) row(kernel);
  });
}

}  // namespace limiter
