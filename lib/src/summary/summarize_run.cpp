// Summaries of an analysis in memory, and of a run record read as a stream: its launches cut
// into batches on one thread, the batches parsed and analysed on every core and folded into the
// summary one at a time in launch order (launch_pipeline.hpp), a few batches in memory at a time.

#include <atomic>
#include <optional>

#include "limiter/record_stream.hpp"
#include "limiter/run_summary.hpp"
#include "summary/launch_pipeline.hpp"
#include "summary/stalled_kernels.hpp"
#include "summary/timeline_kernels.hpp"

namespace limiter {

RunSummary summarize(const RunAnalysis& analysis, const SummaryOptions& options) {
  SummaryBuilder builder(options);
  builder.start(analysis);
  for (const auto& kernel : analysis.kernels) builder.add(KernelAnalysis(kernel));
  RunSummary summary = builder.finish();
  detail::add_stalled_kernels_of_groups(summary);
  return summary;
}

namespace {

// Launches analysed together: few enough that a batch parsed is still in the core's cache when it
// is analysed (300,000 launches on the 2-core build machine: 2.6 s by 512, 1.9-2.2 s by 128).
constexpr std::size_t kBatchLaunches = 128;

// Folds batches of launches into the summary: each analysed together (on any thread), then its
// launches added one by one (one batch at a time, in launch order).
class BatchAnalyzer {
 public:
  BatchAnalyzer(const AnalysisOptions& analysis_options, const SummaryOptions& options, const BatchSink& on_batch)
      : analysis_options_(analysis_options), builder_(options), on_batch_(on_batch) {
    builder_.explain_longest_with([this](const KernelLaunch& launch) {
      RunRecord one = run_header_;
      one.launches = {launch};
      return std::move(analyze_run(one, analysis_options_).kernels.front());
    });
    words_needed_ = on_batch_ || builder_.keeps_launches();
  }
  void set_header(const RunRecord& header) {
    run_header_ = header;
    run_header_.launches.clear();
    run_header_.timeline.reset();  // judged once (judged_program); copied for every launch explained again
  }
  // Launches that are neither kept nor exported are analysed without words (a fifth of the time);
  // the builder explains each group's longest at the end. Once the builder has stopped keeping
  // launches it never starts again, so a batch analysed ahead of its turn needs no words either.
  detail::AnalysedBatch analyse(const RunRecord& batch) const {
    const bool words = words_needed_;
    AnalysisOptions options = analysis_options_;
    options.explain = analysis_options_.explain && words;
    return {analyze_run(batch, options), words};
  }
  // BATCH's launches, analysed by analyse(), in launch order.
  void fold(const RunRecord& batch, detail::AnalysedBatch& analysed) {
    RunAnalysis& analysis = analysed.analysis;
    if (!started_) builder_.start(analysis);
    started_ = true;
    if (on_batch_) on_batch_(batch, analysis);
    const bool wordless = !analysed.explained;
    for (std::size_t i = 0; i < analysis.kernels.size(); ++i)
      builder_.add(std::move(analysis.kernels[i]), batch.launches[i].mangled_name,
                   wordless ? &batch.launches[i] : nullptr);
    words_needed_ = on_batch_ || builder_.keeps_launches();
  }
  // The run's fields from the header as set last: complete, with any that came after the launches.
  RunSummary finish() {
    builder_.start(analyze_run(run_header_, analysis_options_));
    return builder_.finish();
  }

 private:
  AnalysisOptions analysis_options_;
  SummaryBuilder builder_;
  const BatchSink& on_batch_;
  RunRecord run_header_;  // the run's fields without launches: to explain one launch again
  bool started_ = false;
  std::atomic<bool> words_needed_;  // read by the analysing threads, written by the one folding
};

// The program verdict of the record's timeline, when it has one (program_verdict.hpp: a default
// run's on its timeline phase), the groups' time on that timeline (timeline_kernels.hpp), and the
// kernels of its PC samples, when it has them (stalled_kernels.hpp), joined to the groups last.
RunSummary judged_program(RunSummary summary, const RunRecord& header, const AnalysisOptions& options,
                          const SummaryOptions& summary_options) {
  summary.program = judge_run_program(header);
  detail::add_timeline_kernels(summary, header, summary_options.fix_first_limit);
  if (header.stalls) detail::add_stalled_kernels(summary, *header.stalls, options.stalls);
  return summary;
}

}  // namespace

RunSummary summarize_record(const RunRecord& run, const AnalysisOptions& analysis_options,
                            const SummaryOptions& options, const BatchSink& on_batch) {
  BatchAnalyzer analyzer(analysis_options, options, on_batch);
  analyzer.set_header(run);
  if (!run.launches.empty()) {
    detail::AnalysedBatch analysed = analyzer.analyse(run);
    analyzer.fold(run, analysed);
  }
  return judged_program(analyzer.finish(), run, analysis_options, options);
}

RunSummary summarize_run_file(const std::string& path, const AnalysisOptions& analysis_options,
                              const SummaryOptions& options, const BatchSink& on_batch) {
  BatchAnalyzer analyzer(analysis_options, options, on_batch);
  bool started = false;
  const RunRecord header = detail::analyse_in_batches(
      path, kBatchLaunches, [&](const RunRecord& batch) { return analyzer.analyse(batch); },
      [&](const RunRecord& batch, detail::AnalysedBatch& analysed) {
        if (!started) analyzer.set_header(batch);
        started = true;
        analyzer.fold(batch, analysed);
      },
      options.analysers);
  analyzer.set_header(header);  // complete: with the fields after the launches, if any
  return judged_program(analyzer.finish(), header, analysis_options, options);
}

void for_each_analysed_launch(const std::string& path, const AnalysisOptions& analysis_options,
                              const std::string& kernel_regex, const std::function<void(const KernelAnalysis&)>& row) {
  KernelSelection selection(kernel_regex);  // as the summary selects: the rows are its launches
  detail::analyse_in_batches(
      path, kBatchLaunches,
      [&](const RunRecord& batch) { return detail::AnalysedBatch{analyze_run(batch, analysis_options)}; },
      [&](const RunRecord& batch, detail::AnalysedBatch& analysed) {
        const auto& kernels = analysed.analysis.kernels;
        for (std::size_t i = 0; i < kernels.size(); ++i)
          if (selection.selects(kernels[i].name, batch.launches[i].mangled_name)) row(kernels[i]);
      });
}

}  // namespace limiter
