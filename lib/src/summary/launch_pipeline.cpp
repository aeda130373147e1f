#include "summary/launch_pipeline.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "model/launch_parser.hpp"
#include "model/record_texts.hpp"

namespace limiter::detail {
namespace {

// Past a few analysers the reading thread is the bound (~1.5 µs a launch, against ~8 µs to parse
// and analyse one).
constexpr std::size_t kMostAnalysers = 8;

std::size_t analyser_count() { return std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, kMostAnalysers); }

// Launches as the reader cut them out of the record, one after the other in TEXT.
struct TextBatch {
  struct Launch {
    std::size_t offset, size, index, line;
  };
  std::string text;  // with simdjson's padding after the last launch
  std::vector<Launch> launches;
};

struct Batch {
  std::size_t number = 0;    // in file order
  std::size_t analyser = 0;  // whose thread built its launches and analysis
  TextBatch text;
  std::vector<KernelLaunch> launches;
  AnalysedBatch analysed;
};

// Batches from the reader to the analysers, folded by them in file order, and, used, back to the
// thread whose memory they hold.
class BatchExchange {
 public:
  struct Cancelled {};

  BatchExchange(std::size_t analysers, std::size_t in_flight) : disposal_(analysers), in_flight_(in_flight) {}

  // Reader: waits while too many batches are read and not yet folded; TEXT gets a used buffer.
  void send(TextBatch& text) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return sent_ - folded_ < in_flight_ || cancelled_; });
    if (cancelled_) throw Cancelled{};
    Batch batch;
    batch.number = sent_++;
    batch.text = std::move(text);
    to_analyse_.push_back(std::move(batch));
    text = {};
    if (!used_texts_.empty()) {
      text = std::move(used_texts_.back());
      used_texts_.pop_back();
    }
    changed_.notify_all();
  }
  // Reader: done, or failed after the batches it sent.
  void close(std::exception_ptr error) {
    std::lock_guard lock(mutex_);
    reading_done_ = true;
    if (error) keep_first(sent_, error);
    changed_.notify_all();
  }

  // Analyser: the next batch, empty when there is none left; DISPOSE gets the batches this
  // analyser built that have been folded, to be reused or freed on its thread.
  std::optional<Batch> to_analyse(std::size_t analyser, std::vector<Batch>& dispose) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return !to_analyse_.empty() || reading_done_ || cancelled_; });
    dispose.swap(disposal_[analyser]);
    if (cancelled_ || to_analyse_.empty()) return std::nullopt;
    Batch batch = std::move(to_analyse_.front());
    to_analyse_.pop_front();
    batch.analyser = analyser;
    return batch;
  }
  // Analyser: the batch's text is parsed; its buffer goes back to the reader.
  void parsed(TextBatch&& text) {
    std::lock_guard lock(mutex_);
    text.text.clear();
    text.launches.clear();
    used_texts_.push_back(std::move(text));
  }
  // Analyser: hands its analysed batch in. Whichever analyser finds the next batch in file order
  // ready folds it, and those after it that are: one thread at a time, mostly the one that
  // analysed it, whose cache still holds it.
  void analysed(Batch&& batch, const std::function<void(Batch&)>& fold) {
    std::unique_lock lock(mutex_);
    analysed_.emplace(batch.number, std::move(batch));
    if (folding_) return;  // the folding thread finds it
    folding_ = true;
    for (auto next = analysed_.find(folded_); next != analysed_.end() && !cancelled_; next = analysed_.find(folded_)) {
      Batch ready = std::move(next->second);
      analysed_.erase(next);
      lock.unlock();
      try {
        fold(ready);
      } catch (...) {
        lock.lock();
        folding_ = false;
        stop(ready.number, std::current_exception());
        return;
      }
      lock.lock();
      ++folded_;
      disposal_[ready.analyser].push_back(std::move(ready));
      changed_.notify_all();
    }
    folding_ = false;
  }

  // Any thread: ERROR at batch AT stops the others.
  void cancel(std::size_t at, std::exception_ptr error) {
    std::lock_guard lock(mutex_);
    stop(at, error);
  }
  // The error of the first batch in file order that had one, as one thread would have met it.
  void rethrow() {
    std::lock_guard lock(mutex_);
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void stop(std::size_t at, std::exception_ptr error) {
    cancelled_ = true;
    keep_first(at, error);
    changed_.notify_all();
  }
  void keep_first(std::size_t at, std::exception_ptr error) {
    if (error_ && error_at_ <= at) return;
    error_ = error;
    error_at_ = at;
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Batch> to_analyse_;
  std::map<std::size_t, Batch> analysed_;  // by number, until its turn to be folded
  std::vector<TextBatch> used_texts_;
  std::vector<std::vector<Batch>> disposal_;  // per analyser
  const std::size_t in_flight_;
  std::size_t sent_ = 0, folded_ = 0;
  bool reading_done_ = false, cancelled_ = false, folding_ = false;
  std::exception_ptr error_;
  std::size_t error_at_ = 0;
};

// HEADER is the run's fields before the launches (the analysers copy it); COMPLETED, when fields
// follow the launches, all of them.
void read_texts(const std::string& path, std::size_t batch_launches, BatchExchange& exchange, RunRecord& header,
                std::optional<RunRecord>& completed) {
  std::exception_ptr error;
  try {
    TextBatch batch;
    const auto send = [&] {
      batch.text.append(simdjson::SIMDJSON_PADDING, ' ');  // the parser reads ahead of the last launch
      exchange.send(batch);
    };
    read_run_texts(
        path, [&](const RunRecord& run) { header = run; },
        [&](std::string_view text, std::size_t index, std::size_t line) {
          batch.launches.push_back({batch.text.size(), text.size(), index, line});
          batch.text.append(text);
          if (batch.launches.size() >= batch_launches) send();
        },
        [&](const RunRecord& run) { completed = run; });  // apart: the analysers may still be copying HEADER
    if (!batch.launches.empty()) send();
  } catch (const BatchExchange::Cancelled&) {
  } catch (...) {
    error = std::current_exception();
  }
  exchange.close(error);
}

// Parses and analyses batches on this thread, so a launch is built, analysed and freed in the
// memory of one core.
void analyse_batches(std::size_t analyser, const std::string& origin, const RunRecord& header, BatchExchange& exchange,
                     const BatchAnalysis& analyse, const std::function<void(Batch&)>& fold) {
  std::optional<RunRecord> run;
  std::vector<KernelLaunch> spare;
  LaunchParser parser(origin, &spare);
  std::vector<Batch> dispose;
  std::size_t number = 0;
  try {
    while (auto batch = exchange.to_analyse(analyser, dispose)) {
      number = batch->number;
      for (auto& used : dispose)
        for (auto& launch : used.launches) spare.push_back(std::move(launch));
      dispose.clear();
      if (!run) {
        run = header;           // complete: the batch came after it, through the exchange's lock
        run->timeline.reset();  // the analysis of launches never reads it: not one copy per core
      }
      run->launches.clear();
      for (const auto& launch : batch->text.launches) {
        run->launches.emplace_back();
        parser.parse(std::string_view(batch->text.text).substr(launch.offset, launch.size), launch.index, launch.line,
                     run->launches.back());
      }
      exchange.parsed(std::move(batch->text));
      batch->analysed = analyse(*run);
      batch->launches.swap(run->launches);
      exchange.analysed(std::move(*batch), fold);
    }
  } catch (...) {
    exchange.cancel(number, std::current_exception());
  }
}

}  // namespace

RunRecord analyse_in_batches(const std::string& path, std::size_t batch_launches, const BatchAnalysis& analyse,
                             const BatchFold& fold, std::size_t analysers) {
  if (analysers == 0) analysers = analyser_count();
  BatchExchange exchange(analysers, 2 * analysers + 2);
  RunRecord header;  // written by the reader before it sends its first batch
  const std::string origin = "'" + path + "'";
  std::optional<RunRecord> run;  // the header with a batch swapped in, as the fold takes it
  const auto fold_batch = [&](Batch& batch) {
    if (!run) {
      run = header;
      run->timeline.reset();  // the returned header keeps it
    }
    run->launches.swap(batch.launches);
    fold(*run, batch.analysed);
    run->launches.swap(batch.launches);
  };
  std::optional<RunRecord> completed;
  std::thread reader([&] { read_texts(path, batch_launches, exchange, header, completed); });
  std::vector<std::thread> others;  // this thread is the first analyser
  for (std::size_t analyser = 1; analyser < analysers; ++analyser)
    others.emplace_back([&, analyser] { analyse_batches(analyser, origin, header, exchange, analyse, fold_batch); });
  analyse_batches(0, origin, header, exchange, analyse, fold_batch);
  reader.join();
  for (auto& thread : others) thread.join();
  exchange.rethrow();
  return completed ? std::move(*completed) : header;
}

}  // namespace limiter::detail
