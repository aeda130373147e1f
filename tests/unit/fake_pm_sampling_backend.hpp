#pragma once
// A PmSamplingBackend without a GPU (collect/pm_sampling/pm_sampling_backend.hpp), for the PM sampler's and
// the PM-sampling session's unit tests. It plays the GPU and CUPTI as the sampler uses them:
// samples the hardware took (take_sample) wait in its buffer until a decode moves them into the
// counter-data image being filled, as many as the image holds (one decode then says the image
// is full, and the rest wait for the next); each sample evaluates to the values it was taken
// with. Kernels that ran (run_kernel) reach the kernel-timestamp sink at the next flush, as the
// Activity API's records do. Calls are counted; the sampler's threads and the test's share it.
#include <atomic>
#include <deque>
#include <map>
#include <mutex>

#include "collect/cupti/cupti_check.hpp"
#include "collect/pm_sampling/pm_sampling_backend.hpp"
#include "limiter/error.hpp"

namespace limiter::test {

// A kernel's record as the Activity API gives it: its name, times, configuration and GPU.
inline KernelSpan kernel_span(const std::string& name, std::uint64_t start_ns, std::uint64_t end_ns, int device = 0) {
  KernelSpan span;
  span.start_ns = start_ns;
  span.end_ns = end_ns;
  span.launch.name = span.launch.mangled_name = name;
  span.launch.grid = {132, 1, 1};
  span.launch.block = {256, 1, 1};
  span.launch.device = device;
  return span;
}

class FakePmSamplingBackend final : public detail::PmSamplingBackend {
 public:
  // What an image holds (0: as many samples as the sampler asked room for).
  std::size_t image_capacity = 0;
  std::size_t passes = 1;                // the sampling metrics' passes (more: refused)
  int device = 0;                        // the device of every context
  std::atomic<std::uint64_t> now_ns{0};  // the GPU clock
  std::atomic<bool> overflow{false};     // the next decode finds the hardware buffer overflowed
  std::atomic<int> spurious_full{0};     // the next decodes say the image is full and move nothing

  // The hardware took a sample.
  void take_sample(std::uint64_t start_ns, std::uint64_t end_ns, std::vector<double> values) {
    std::lock_guard lock(mutex_);
    hardware_.push_back({start_ns, end_ns, std::move(values)});
  }
  // A kernel ran: its record comes at the next flush.
  void run_kernel(KernelSpan span) {
    std::lock_guard lock(mutex_);
    kernels_.push_back(std::move(span));
  }
  std::size_t samples_waiting() const {
    std::lock_guard lock(mutex_);
    return hardware_.size();
  }

  // Calls, for the tests to count.
  std::atomic<int> preloads{0}, enables{0}, starts{0}, stops{0}, disables{0}, decodes{0};
  std::atomic<int> host_sides{0};  // counter availability asked: a host side prepared
  std::atomic<int> timestamps_made{0}, timestamps_live{0}, forced_flushes{0};

  void preload_evaluator() override { ++preloads; }
  std::string library_text() override { return "fake libcupti"; }
  std::uint64_t timestamp() override { return now_ns; }

  int device_of(CUcontext) override { return device; }
  DeviceDescription describe(int index) override {
    DeviceDescription d;
    d.name = "Fake H100 " + std::to_string(index);
    d.chip = "GH100";
    d.sm_count = 132;
    return d;
  }
  std::vector<std::uint8_t> counter_availability(int) override {
    ++host_sides;
    return {1, 2, 3};
  }

  class Host final : public detail::PmSampleHost {
   public:
    explicit Host(FakePmSamplingBackend& backend) : backend_(backend) {}
    std::vector<std::uint8_t> config_image(const std::vector<std::string>& metrics) override {
      return std::vector<std::uint8_t>(metrics.size(), 1);
    }
    std::size_t pass_count(std::vector<std::uint8_t>&) override { return backend_.passes; }
    std::vector<double> evaluate(const std::vector<std::uint8_t>& image, std::size_t sample,
                                 const std::vector<std::string>& metrics) override {
      std::vector<double> values = backend_.in_image(image, sample).values;
      values.resize(metrics.size(), 0.0);
      return values;
    }

   private:
    FakePmSamplingBackend& backend_;
  };
  std::shared_ptr<detail::PmSampleHost> sample_host(const std::string&, const std::vector<std::uint8_t>&) override {
    return std::make_shared<Host>(*this);
  }

  detail::PmSamplingObject* enable(int) override {
    ++enables;
    return reinterpret_cast<detail::PmSamplingObject*>(std::uintptr_t{0x50});
  }
  std::size_t counter_data_size(detail::PmSamplingObject*, const std::vector<const char*>&,
                                std::size_t max_samples) override {
    std::lock_guard lock(mutex_);
    if (image_capacity == 0) image_capacity = max_samples;
    return 16;
  }
  void initialize_image(detail::PmSamplingObject*, std::vector<std::uint8_t>& image) override {
    std::lock_guard lock(mutex_);
    images_[image.data()].clear();
  }
  void set_config(detail::PmSamplingObject*, const std::vector<std::uint8_t>&, std::size_t, std::uint64_t) override {}
  void start(detail::PmSamplingObject*) override { ++starts; }
  detail::PmDecode decode(detail::PmSamplingObject*, std::vector<std::uint8_t>& image) noexcept override {
    ++decodes;
    std::lock_guard lock(mutex_);
    detail::PmDecode result;
    if (overflow.exchange(false)) {
      result.overflow = true;
      hardware_.clear();  // KEEP_OLDEST: what did not fit never arrives
      return result;
    }
    auto& filled = images_[image.data()];
    if (spurious_full > 0 && !hardware_.empty()) {
      --spurious_full;
      result.image_full = true;
      return result;
    }
    while (!hardware_.empty() && filled.size() < image_capacity) {
      filled.push_back(std::move(hardware_.front()));
      hardware_.pop_front();
    }
    result.image_full = filled.size() >= image_capacity;
    return result;
  }
  std::size_t completed_samples(const std::vector<std::uint8_t>& image) override {
    std::lock_guard lock(mutex_);
    return images_[image.data()].size();
  }
  detail::PmSampleTimes sample_times(detail::PmSamplingObject*, const std::vector<std::uint8_t>& image,
                                     std::size_t sample) override {
    const Sample s = in_image(image, sample);
    return {s.start_ns, s.end_ns};
  }
  CUptiResult stop(detail::PmSamplingObject*) noexcept override {
    ++stops;
    return CUPTI_SUCCESS;
  }
  void disable(detail::PmSamplingObject*) noexcept override { ++disables; }

  class Timestamps final : public detail::KernelTimestamps {
   public:
    Timestamps(FakePmSamplingBackend& backend, KernelSink sink) : backend_(backend), sink_(std::move(sink)) {}
    ~Timestamps() override { --backend_.timestamps_live; }
    void flush(bool forced) override {
      if (forced) ++backend_.forced_flushes;
      std::vector<KernelSpan> ran;
      {
        std::lock_guard lock(backend_.mutex_);
        ran.assign(backend_.kernels_.begin(), backend_.kernels_.end());
        backend_.kernels_.clear();
      }
      for (auto& span : ran) {
        ++kernels_;
        sink_(std::move(span));
      }
    }
    std::uint64_t kernels() const override { return kernels_; }
    std::uint64_t dropped() const override { return 0; }

   private:
    FakePmSamplingBackend& backend_;
    KernelSink sink_;
    std::atomic<std::uint64_t> kernels_{0};
  };
  std::unique_ptr<detail::KernelTimestamps> kernel_timestamps(detail::KernelTimestamps::KernelSink sink) override {
    if (timestamps_live > 0) throw SystemError("one kernel-timestamp collector per process");
    ++timestamps_made;
    ++timestamps_live;
    return std::make_unique<Timestamps>(*this, std::move(sink));
  }

 private:
  struct Sample {
    std::uint64_t start_ns = 0, end_ns = 0;
    std::vector<double> values;
  };
  Sample in_image(const std::vector<std::uint8_t>& image, std::size_t sample) {
    std::lock_guard lock(mutex_);
    return images_[image.data()].at(sample);
  }

  mutable std::mutex mutex_;
  std::deque<Sample> hardware_;
  std::deque<KernelSpan> kernels_;
  std::map<const std::uint8_t*, std::vector<Sample>> images_;
};

}  // namespace limiter::test
