// The known-answer programs without a GPU: their catalog, and the check on synthetic
// timelines shaped like each program's (launch, GPU, sync, copy, host): judge_program gives the
// intended verdict on the program's own span, and the check fails where it should.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "limiter/error.hpp"
#include "limiter/kernels/programs.hpp"

namespace limiter::kernels {
namespace {

constexpr std::uint64_t us = 1000;

TimelineEvent event(ActivityKind kind, std::string name, std::uint64_t start, std::uint64_t end) {
  TimelineEvent e;
  e.kind = kind;
  e.name = std::move(name);
  e.start_ns = start;
  e.end_ns = end;
  return e;
}

// Events given, window from the first to the last plus TAIL (the collector's own flush).
RunRecord record_of(std::vector<TimelineEvent> events, std::uint64_t tail = 0) {
  Timeline timeline;
  timeline.events = std::move(events);
  normalize_timeline(timeline);
  timeline.end_ns += tail;
  RunRecord record;
  record.timeline = timeline;
  return record;
}

using K = ActivityKind;

// 1,000 tiny kernels: a 5 us launch call each, the kernel 1.5 us from its end.
RunRecord launch_bound() {
  std::vector<TimelineEvent> e;
  for (std::uint64_t i = 0, t = 1000 * us; i < 1000; ++i, t += 5 * us + 100) {
    e.push_back(event(K::api_call, "cudaLaunchKernel_v7000", t, t + 5 * us));
    e.push_back(event(K::kernel, "tiny_step", t + 4 * us, t + 5 * us + 500));
  }
  return record_of(e);
}

RunRecord gpu_bound() {
  std::vector<TimelineEvent> e;
  for (std::uint64_t i = 0, t = 1000 * us; i < 100; ++i, t += 5 * us)
    e.push_back(event(K::api_call, "cudaLaunchKernel_v7000", t, t + 4 * us));
  for (std::uint64_t i = 0, t = 1006 * us; i < 100; ++i, t += 160 * us + 900)
    e.push_back(event(K::kernel, "stream_axpy", t, t + 160 * us));
  e.push_back(
      event(K::api_call, "cudaDeviceSynchronize_v3020", 1600 * us, 1006 * us + 100 * (160 * us + 900) + 2 * us));
  return record_of(e);
}

// Launch, kernel, a blocking event sync that returns 20 us after the kernel, 1 us of host work.
RunRecord sync_bound() {
  std::vector<TimelineEvent> e;
  for (std::uint64_t i = 0, t = 1000 * us; i < 500; ++i, t += 32 * us) {
    e.push_back(event(K::api_call, "cudaLaunchKernel_v7000", t, t + 5 * us));
    e.push_back(event(K::kernel, "tiny_step", t + 4 * us, t + 6 * us));
    e.push_back(event(K::api_call, "cudaEventSynchronize_v3020", t + 5 * us + 200, t + 26 * us));
    e.push_back(event(K::synchronization, "event", t + 5 * us + 300, t + 26 * us));
  }
  return record_of(e);
}

// A pageable 16 MiB copy: four chunks on the copy engine inside a 2 ms call, then a 20 us kernel.
RunRecord copy_bound() {
  std::vector<TimelineEvent> e;
  for (std::uint64_t i = 0, t = 1000 * us; i < 24; ++i, t += 2100 * us) {
    e.push_back(event(K::api_call, "cudaMemcpy_v3020", t, t + 2000 * us));
    for (std::uint64_t c = 0; c < 4; ++c) {
      auto chunk = event(K::memcpy, "HtoD", t + (c * 500 + 350) * us, t + (c * 500 + 500) * us);
      chunk.bytes = 4u << 20;
      chunk.pageable = true;
      e.push_back(chunk);
    }
    e.push_back(event(K::api_call, "cudaLaunchKernel_v7000", t + 2001 * us, t + 2005 * us));
    e.push_back(event(K::kernel, "add_into", t + 2005 * us, t + 2025 * us));
  }
  return record_of(e);
}

// 200 us of host work, then a 5 us launch of a 15 us kernel.
RunRecord host_bound() {
  std::vector<TimelineEvent> e;
  for (std::uint64_t i = 0, t = 1000 * us; i < 500; ++i, t += 205 * us) {
    e.push_back(event(K::api_call, "cudaLaunchKernel_v7000", t + 200 * us, t + 205 * us));
    e.push_back(event(K::kernel, "host_step", t + 204 * us, t + 219 * us));
  }
  return record_of(e);
}

TEST(KernelPrograms, CatalogHasOneProgramPerVerdict) {
  std::set<ProgramBound> intended;
  for (const auto& entry : program_catalog()) {
    EXPECT_TRUE(intended.insert(entry.intended).second) << entry.name;
    EXPECT_EQ(find_program(entry.name), &entry);
    EXPECT_GT(entry.claim.size(), 60u) << entry.name;
    EXPECT_FALSE(entry.problem.empty()) << entry.name;
  }
  EXPECT_EQ(intended, (std::set<ProgramBound>{ProgramBound::launch, ProgramBound::gpu, ProgramBound::sync,
                                              ProgramBound::copy, ProgramBound::host}));
  EXPECT_EQ(find_program("launch_bound")->intended, ProgramBound::launch);
  EXPECT_EQ(find_program("no_such_program"), nullptr);
}

TEST(KernelPrograms, OnlySelectsInCatalogOrderAndRejectsUnknownNames) {
  EXPECT_EQ(select_programs({}).size(), 5u);
  const auto two = select_programs({"host_bound", "launch_bound"});
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0]->name, "launch_bound");
  try {
    select_programs({"reduction"});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown program 'reduction'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--list --programs"), std::string::npos) << e.what();
  }
}

TEST(KernelPrograms, EachShapeGetsItsIntendedVerdict) {
  const std::pair<const char*, RunRecord> shapes[] = {{"launch_bound", launch_bound()},
                                                      {"gpu_bound", gpu_bound()},
                                                      {"sync_bound", sync_bound()},
                                                      {"copy_bound", copy_bound()},
                                                      {"host_bound", host_bound()}};
  for (const auto& [name, record] : shapes) {
    const ProgramResult result = check_program(*find_program(name), record, true);
    ASSERT_TRUE(result.judged.has_value()) << name;
    EXPECT_EQ(result.judged->verdict, find_program(name)->intended)
        << name << ": " << to_string(result.judged->verdict) << " - " << result.judged->reason;
    EXPECT_TRUE(result.passed()) << name;
    EXPECT_TRUE(result.detail.empty()) << name << ": " << result.detail;
  }
}

TEST(KernelPrograms, TheCheckFailsOnAnotherVerdictAWrongOutputOrNoTimeline) {
  const ProgramResult other = check_program(*find_program("sync_bound"), launch_bound(), true);
  ASSERT_TRUE(other.judged.has_value());
  EXPECT_EQ(other.judged->verdict, ProgramBound::launch);
  EXPECT_FALSE(other.passed());
  EXPECT_EQ(other.detail, other.judged->reason) << "the failure says what judge_program saw";

  const ProgramResult wrong = check_program(*find_program("launch_bound"), launch_bound(), false);
  EXPECT_FALSE(wrong.passed());
  EXPECT_NE(wrong.detail.find("output differs"), std::string::npos);

  const ProgramResult none = check_program(*find_program("launch_bound"), RunRecord{}, true);
  EXPECT_FALSE(none.judged.has_value());
  EXPECT_FALSE(none.passed());
  EXPECT_NE(none.detail.find("no timeline"), std::string::npos);
}

TEST(KernelPrograms, TheSpanLeavesOutTheCollectorsOwnTail) {
  // 50 ms of forced flush after a 5 ms launch-bound program: host time that is not the program's.
  const RunRecord flushed = record_of(launch_bound().timeline->events, 50'000 * us);
  EXPECT_EQ(judge_program(*flushed.timeline).verdict, ProgramBound::host) << "why the check takes the span";
  const Timeline span = program_span(*flushed.timeline);
  EXPECT_EQ(span.start_ns, 1000 * us);
  EXPECT_EQ(span.end_ns, flushed.timeline->events.back().end_ns);
  EXPECT_TRUE(check_program(*find_program("launch_bound"), flushed, true).passed());
  EXPECT_EQ(program_span(Timeline{}).duration_ns(), 0u);
}

TEST(KernelPrograms, TableShowsSharesAndWhyAProgramFailed) {
  std::vector<ProgramResult> results = {check_program(*find_program("copy_bound"), copy_bound(), true),
                                        check_program(*find_program("gpu_bound"), host_bound(), true)};
  std::ostringstream out;
  write_program_results(results, out);
  const std::string text = out.str();
  EXPECT_NE(text.find("copy_bound"), std::string::npos) << text;
  EXPECT_NE(text.find("copy-bound"), std::string::npos) << text;
  EXPECT_NE(text.find("NO"), std::string::npos) << text;
  EXPECT_NE(text.find("gpu_bound: " + results[1].judged->reason), std::string::npos) << text;
  std::ostringstream list;
  write_program_catalog(select_programs({}), list);
  EXPECT_NE(list.str().find("sync-bound"), std::string::npos) << list.str();
  EXPECT_NE(list.str().find("5 programs"), std::string::npos) << list.str();
}

}  // namespace
}  // namespace limiter::kernels
