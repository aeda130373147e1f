#include "summary/launch_pipeline.hpp"

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include "limiter/record_stream.hpp"

namespace limiter::detail {
namespace {

constexpr std::size_t kBatchesInFlight = 4;

// Batches from the reader to the analyser and, used, back again.
class BatchExchange {
 public:
  struct Cancelled {};

  void send(std::vector<KernelLaunch>&& batch) {  // reader: waits while the analyser is behind
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return full_.size() < kBatchesInFlight || cancelled_; });
    if (cancelled_) throw Cancelled{};
    full_.push_back(std::move(batch));
    changed_.notify_all();
  }
  std::optional<std::vector<KernelLaunch>> receive() {  // analyser: empty when the reader is done
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return !full_.empty() || done_; });
    if (full_.empty()) return std::nullopt;
    auto batch = std::move(full_.front());
    full_.pop_front();
    changed_.notify_all();
    return batch;
  }
  void give_back(std::vector<KernelLaunch>&& batch) {  // analyser: the reader frees it
    std::lock_guard lock(mutex_);
    used_.push_back(std::move(batch));
  }
  // Reader: the used launches, to be built again in (or freed) on this thread.
  void take_used(std::vector<KernelLaunch>& spare) {
    std::deque<std::vector<KernelLaunch>> used;
    {
      std::lock_guard lock(mutex_);
      used.swap(used_);
    }
    for (auto& batch : used)
      for (auto& launch : batch) spare.push_back(std::move(launch));
  }
  void close(std::exception_ptr error) {
    std::lock_guard lock(mutex_);
    done_ = true;
    error_ = error;
    changed_.notify_all();
  }
  void cancel() {
    std::lock_guard lock(mutex_);
    cancelled_ = true;
    changed_.notify_all();
  }
  void rethrow() {
    std::lock_guard lock(mutex_);
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::vector<KernelLaunch>> full_, used_;
  bool done_ = false, cancelled_ = false;
  std::exception_ptr error_;
};

}  // namespace

RunRecord read_in_batches(const std::string& path, std::size_t batch_launches, const BatchConsumer& consume) {
  BatchExchange exchange;
  RunRecord header;  // written by the reader before its first batch is sent
  std::thread reader([&] {
    std::exception_ptr error;
    std::vector<KernelLaunch> spare;
    try {
      std::vector<KernelLaunch> batch;
      read_run_stream(
          path, [&](const RunRecord& run) { header = run; },
          [&](KernelLaunch&& launch) {
            batch.push_back(std::move(launch));
            if (batch.size() < batch_launches) return;
            exchange.take_used(spare);
            exchange.send(std::move(batch));
            batch = {};
            batch.reserve(batch_launches);
          },
          &spare);
      if (!batch.empty()) exchange.send(std::move(batch));
    } catch (const BatchExchange::Cancelled&) {
    } catch (...) {
      error = std::current_exception();
    }
    exchange.close(error);
  });
  try {
    while (auto batch = exchange.receive()) {
      consume(header, *batch);
      exchange.give_back(std::move(*batch));
    }
  } catch (...) {
    exchange.cancel();
    reader.join();
    throw;
  }
  reader.join();
  exchange.rethrow();
  return header;
}

}  // namespace limiter::detail
