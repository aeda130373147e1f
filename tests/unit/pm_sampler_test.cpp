// The PM sampler's decode and evaluate threads without a GPU, on a fake PM Sampling API
// (fake_pm_sampling_backend.hpp): samples decoded across several images in order, holes between
// samples and an overflowed hardware buffer counted as lost, a fresh image said full with no
// sample tried again (a few times), a plan of two passes refused.
#include <gtest/gtest.h>

#include <mutex>

#include "collect/pm_sampling/pm_sampling.hpp"
#include "fake_pm_sampling_backend.hpp"
#include "limiter/error.hpp"
#include "wait_until.hpp"

namespace limiter {
namespace {

using detail::PmSampler;
using detail::PmSamplerOptions;
using test::wait_until;

struct Received {
  std::mutex mutex;
  std::vector<PmSample> samples;
  std::size_t batches = 0;
  void add(std::vector<PmSample>&& batch) {
    std::lock_guard lock(mutex);
    ++batches;
    for (auto& s : batch) samples.push_back(std::move(s));
  }
};

PmSamplerOptions options(std::uint32_t samples_per_image = 1000) {
  PmSamplerOptions o;
  o.metrics = {"smsp__inst_issued.sum", "sm__cycles_elapsed.avg"};
  o.interval_ns = 100;
  o.samples_per_image = samples_per_image;
  return o;
}

DeviceDescription gh100() {
  DeviceDescription d;
  d.chip = "GH100";
  return d;
}

TEST(PmSampler, DecodesAcrossSeveralImagesInOrder) {
  test::FakePmSamplingBackend backend;
  for (std::uint64_t i = 0; i < 10; ++i) backend.take_sample(i * 100, (i + 1) * 100, {static_cast<double>(i), 1});
  Received received;
  PmSampler sampler(backend, options(/*samples_per_image=*/4), 0, gh100(),
                    [&](std::vector<PmSample>&& batch) { received.add(std::move(batch)); });
  sampler.stop();
  ASSERT_EQ(received.samples.size(), 10u);
  for (std::size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(received.samples[i].start_ns, i * 100);
    EXPECT_EQ(received.samples[i].values, (std::vector<double>{static_cast<double>(i), 1}));
  }
  EXPECT_EQ(received.batches, 3u);  // images of 4, 4 and 2 samples
  EXPECT_EQ(sampler.times().images, 3u);
  EXPECT_EQ(sampler.samples(), 10u);
  EXPECT_EQ(sampler.samples_lost(), 0u);
  EXPECT_EQ(sampler.error(), "");
  EXPECT_EQ(backend.stops, 1);
  EXPECT_EQ(backend.disables, 1);
  sampler.stop();  // idempotent
  EXPECT_EQ(backend.stops, 1);
}

TEST(PmSampler, SamplesMissingBetweenTwoAreCountedAsLost) {
  test::FakePmSamplingBackend backend;
  backend.take_sample(0, 100, {1, 1});
  backend.take_sample(100, 200, {1, 1});
  backend.take_sample(500, 600, {1, 1});  // 200..500: three samples of 100 ns never arrived
  backend.take_sample(600, 700, {1, 1});
  Received received;
  PmSampler sampler(backend, options(), 0, gh100(),
                    [&](std::vector<PmSample>&& batch) { received.add(std::move(batch)); });
  sampler.stop();
  EXPECT_EQ(sampler.samples(), 4u);
  EXPECT_EQ(sampler.samples_lost(), 3u);
  EXPECT_EQ(sampler.error(), "");  // a hole is counted, not an error
}

TEST(PmSampler, AnOverflowEndsSamplingCountsWhatNeverArrivedAndNamesTheFix) {
  test::FakePmSamplingBackend backend;
  backend.take_sample(0, 100, {1, 1});
  backend.take_sample(100, 200, {1, 1});
  Received received;
  PmSampler sampler(backend, options(), 0, gh100(),
                    [&](std::vector<PmSample>&& batch) { received.add(std::move(batch)); });
  ASSERT_TRUE(wait_until([&] { return backend.samples_waiting() == 0; }));  // decoded while it runs
  backend.now_ns = 1200;
  backend.overflow = true;
  ASSERT_TRUE(wait_until([&] { return !sampler.error().empty(); }));
  backend.take_sample(1200, 1300, {1, 1});  // after the overflow: never decoded
  sampler.stop();
  EXPECT_NE(sampler.error().find("overflowed"), std::string::npos);
  EXPECT_NE(sampler.error().find("--sampling-interval"), std::string::npos);
  EXPECT_EQ(sampler.samples(), 2u);
  EXPECT_EQ(sampler.samples_lost(), 10u);  // 200..1200 at 100 ns, up to the stop
  EXPECT_EQ(backend.disables, 0);          // not disabled after a failure: CUPTI may still read its images
}

TEST(PmSampler, AFreshImageSaidFullWithNoSampleIsMadeAgainAndDecodedAgain) {
  test::FakePmSamplingBackend backend;
  backend.spurious_full = 10;  // fewer than the retries (the GPU met 4 in a row): nothing lost
  backend.take_sample(0, 100, {1, 1});
  backend.take_sample(100, 200, {1, 1});
  Received received;
  PmSampler sampler(backend, options(), 0, gh100(),
                    [&](std::vector<PmSample>&& batch) { received.add(std::move(batch)); });
  sampler.stop();
  EXPECT_EQ(sampler.error(), "");
  EXPECT_EQ(sampler.samples(), 2u);
  EXPECT_EQ(sampler.samples_lost(), 0u);
  EXPECT_EQ(sampler.times().empty_full_retries, 10u);
}

TEST(PmSampler, AnImageAlwaysSaidFullWithNoSampleEndsSamplingWithAMessage) {
  test::FakePmSamplingBackend backend;
  backend.spurious_full = 1000;
  backend.take_sample(0, 100, {1, 1});
  PmSampler sampler(backend, options(), 0, gh100(), nullptr);
  ASSERT_TRUE(wait_until([&] { return !sampler.error().empty(); }));
  sampler.stop();
  EXPECT_NE(sampler.error().find("65 empty images full in a row"), std::string::npos);
  EXPECT_NE(sampler.error().find("--sampling-interval"), std::string::npos);
  EXPECT_EQ(sampler.samples(), 0u);
  EXPECT_EQ(sampler.times().empty_full_retries, 64u);  // the retries, then the message
}

TEST(PmSampler, APlanOfTwoPassesIsRefusedBeforeTheHardwareIsTouched) {
  test::FakePmSamplingBackend backend;
  backend.passes = 2;
  try {
    PmSampler sampler(backend, options(), 0, gh100(), nullptr);
    FAIL() << "a two-pass plan started sampling";
  } catch (const SystemError& e) {
    EXPECT_NE(std::string(e.what()).find("2 passes"), std::string::npos);
  }
  EXPECT_EQ(backend.enables, 0);
}

}  // namespace
}  // namespace limiter
