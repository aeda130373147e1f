#pragma once
// A run record analysed on every core: one thread cuts the launches' text out of the record
// (record_texts.hpp) into batches; one analyser per core (the calling thread is one) parses and
// analyses a batch at a time, and the batches are folded one at a time in file order, each by the
// analyser that finds it next in line (mostly its own, still in its cache), so the result is the
// one a single thread gives. A launch is built, analysed and freed on one thread: in the memory of
// the core that analyses it, and where glibc's allocator frees fastest (freed on another thread,
// it made two threads slower than one: 5.7 s against 3.6 s for 123,250 launches on the 2-core
// build machine). Batches in flight are bounded, so memory stays flat.
#include <cstddef>
#include <functional>
#include <string>

#include "limiter/analysis.hpp"
#include "limiter/record.hpp"

namespace limiter::detail {

// A batch's launches analysed; EXPLAINED false where they were analysed without words, to be
// explained later where one is a group's longest (SummaryBuilder).
struct AnalysedBatch {
  RunAnalysis analysis;
  bool explained = true;
};
// RUN: the record's fields with one batch as its launches. Called on several threads at once,
// each with its own RUN.
using BatchAnalysis = std::function<AnalysedBatch(const RunRecord& run)>;
// Called for each batch in file order, one batch at a time (on any of the analysing threads),
// with what ANALYSE gave.
using BatchFold = std::function<void(const RunRecord& run, AnalysedBatch& analysed)>;

// Reads the record at PATH in batches of BATCH_LAUNCHES, analyses and folds them, and returns the
// record's header (its fields but the launches). Throws the first error of any thread: what
// reading throws (InputError), what ANALYSE or FOLD throws.
// ANALYSERS threads parse and analyse (0: one per core, at most 8).
RunRecord analyse_in_batches(const std::string& path, std::size_t batch_launches, const BatchAnalysis& analyse,
                             const BatchFold& fold, std::size_t analysers = 0);

}  // namespace limiter::detail
