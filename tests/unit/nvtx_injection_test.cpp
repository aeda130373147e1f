// limiter's own NVTX tool without a GPU or NVTX's loader: a fake NVTX export table (function
// tables over local arrays) is handed to InitializeInjectionNvtx2, the installed functions are
// called as the app's NVTX would call them, and a registered receiver decodes each call with the
// collector's NvtxTracker into an NvtxTimeline, as the CUPTI path does. Checked: what NVTX returns
// (levels, ids, handles), paths, domains, registered strings, start/end ranges across threads,
// calls outside a registration ignored, and unregistering while another thread calls.
#include <gtest/gtest.h>

#include <generated_nvtx_meta.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "collect/nvtx/nvtx_dispatch.hpp"
#include "collect/nvtx/nvtx_timeline.hpp"
#include "collect/nvtx/nvtx_tracker.hpp"
#include "collect/own_calls.hpp"
#include "inject/nvtx_injection.hpp"

namespace limiter {
namespace {

using detail::NvtxEvent;
using Kind = NvtxEvent::Kind;

// NVTX's side: one slot per function of the two modules the tool fills.
struct FakeNvtx {
  NvtxFunctionPointer core[NVTX_CBID_CORE_SIZE] = {};
  NvtxFunctionPointer core2[NVTX_CBID_CORE2_SIZE] = {};
  NvtxFunctionPointer* core_table[NVTX_CBID_CORE_SIZE] = {};
  NvtxFunctionPointer* core2_table[NVTX_CBID_CORE2_SIZE] = {};
  FakeNvtx() {
    for (unsigned i = 0; i < NVTX_CBID_CORE_SIZE; ++i) core_table[i] = &core[i];
    for (unsigned i = 0; i < NVTX_CBID_CORE2_SIZE; ++i) core2_table[i] = &core2[i];
  }
};

FakeNvtx& fake() {
  static FakeNvtx nvtx;
  return nvtx;
}

int get_module_function_table(NvtxCallbackModule module, NvtxFunctionTable* table, unsigned int* size) {
  if (module == NVTX_CB_MODULE_CORE) {
    *table = fake().core_table;
    *size = NVTX_CBID_CORE_SIZE;
    return 1;
  }
  if (module == NVTX_CB_MODULE_CORE2) {
    *table = fake().core2_table;
    *size = NVTX_CBID_CORE2_SIZE;
    return 1;
  }
  return 0;
}

const void* get_export_table(std::uint32_t id) {
  static const NvtxExportTableCallbacks callbacks{sizeof(NvtxExportTableCallbacks), get_module_function_table};
  return id == NVTX_ETID_CALLBACKS ? &callbacks : nullptr;
}

const void* no_export_table(std::uint32_t) { return nullptr; }

// The installed functions, typed as NVTX calls them.
template <typename Function>
Function core(unsigned id) {
  return reinterpret_cast<Function>(fake().core[id]);
}
template <typename Function>
Function core2(unsigned id) {
  return reinterpret_cast<Function>(fake().core2[id]);
}
int push_a(const char* m) { return core<nvtxRangePushA_impl_fntype>(NVTX_CBID_CORE_RangePushA)(m); }
int push_w(const wchar_t* m) { return core<nvtxRangePushW_impl_fntype>(NVTX_CBID_CORE_RangePushW)(m); }
int push_ex(const nvtxEventAttributes_t* a) { return core<nvtxRangePushEx_impl_fntype>(NVTX_CBID_CORE_RangePushEx)(a); }
int pop() { return core<nvtxRangePop_impl_fntype>(NVTX_CBID_CORE_RangePop)(); }
nvtxRangeId_t start_a(const char* m) { return core<nvtxRangeStartA_impl_fntype>(NVTX_CBID_CORE_RangeStartA)(m); }
void end(nvtxRangeId_t id) { core<nvtxRangeEnd_impl_fntype>(NVTX_CBID_CORE_RangeEnd)(id); }
nvtxDomainHandle_t create_a(const char* n) {
  return core2<nvtxDomainCreateA_impl_fntype>(NVTX_CBID_CORE2_DomainCreateA)(n);
}
nvtxDomainHandle_t create_w(const wchar_t* n) {
  return core2<nvtxDomainCreateW_impl_fntype>(NVTX_CBID_CORE2_DomainCreateW)(n);
}
nvtxStringHandle_t register_a(nvtxDomainHandle_t d, const char* s) {
  return core2<nvtxDomainRegisterStringA_impl_fntype>(NVTX_CBID_CORE2_DomainRegisterStringA)(d, s);
}
nvtxStringHandle_t register_w(nvtxDomainHandle_t d, const wchar_t* s) {
  return core2<nvtxDomainRegisterStringW_impl_fntype>(NVTX_CBID_CORE2_DomainRegisterStringW)(d, s);
}
int domain_push(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  return core2<nvtxDomainRangePushEx_impl_fntype>(NVTX_CBID_CORE2_DomainRangePushEx)(d, a);
}
int domain_pop(nvtxDomainHandle_t d) {
  return core2<nvtxDomainRangePop_impl_fntype>(NVTX_CBID_CORE2_DomainRangePop)(d);
}
nvtxRangeId_t domain_start(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  return core2<nvtxDomainRangeStartEx_impl_fntype>(NVTX_CBID_CORE2_DomainRangeStartEx)(d, a);
}
void domain_end(nvtxDomainHandle_t d, nvtxRangeId_t id) {
  core2<nvtxDomainRangeEnd_impl_fntype>(NVTX_CBID_CORE2_DomainRangeEnd)(d, id);
}
void domain_destroy(nvtxDomainHandle_t d) { core2<nvtxDomainDestroy_impl_fntype>(NVTX_CBID_CORE2_DomainDestroy)(d); }

nvtxEventAttributes_t ascii(const char* message) {
  nvtxEventAttributes_t a{};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = message;
  return a;
}

nvtxEventAttributes_t registered(nvtxStringHandle_t handle) {
  nvtxEventAttributes_t a = ascii(nullptr);
  a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  a.message.registered = handle;
  return a;
}

// The collector's side: the tracker decodes, the timeline nests; a logical clock stamps.
struct Recorder {
  detail::NvtxTracker tracker;
  detail::NvtxTimeline timeline;
  std::mutex mutex;
  std::uint64_t clock = 0;
  std::vector<NvtxEvent> events;
  std::vector<CUpti_CallbackId> calls;
  std::atomic<std::uint64_t> received{0};
  Recorder() { timeline.open(0); }
};

std::uint32_t this_thread_number() {
  static std::atomic<std::uint32_t> next{1};
  thread_local const std::uint32_t number = next++;
  return number;
}

void record(void* user, CUpti_CallbackId cbid, const CUpti_NvtxData& data) noexcept {
  auto& recorder = *static_cast<Recorder*>(user);
  recorder.received.fetch_add(1);
  std::optional<NvtxEvent> event = recorder.tracker.on_call(cbid, data);
  std::lock_guard lock(recorder.mutex);
  recorder.calls.push_back(cbid);
  if (!event) return;
  event->time_ns = ++recorder.clock;
  event->thread_id = this_thread_number();
  recorder.timeline.on_event(*event);
  recorder.events.push_back(*event);
}

std::vector<std::string> closed_names(Recorder& recorder) {
  std::vector<std::string> names;
  for (const auto& range : recorder.timeline.take_closed()) names.push_back(range.name);
  return names;
}

class NvtxInjection : public testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(InitializeInjectionNvtx2(get_export_table), 1); }
  void TearDown() override { EXPECT_TRUE(detail::unregister_nvtx_receiver(&recorder_)); }
  void start_recording() { detail::register_nvtx_receiver(record, &recorder_); }
  Recorder recorder_;
};

TEST_F(NvtxInjection, InstallsTheRangeFunctionsAndLeavesTheRestToNvtx) {
  for (unsigned id :
       {NVTX_CBID_CORE_RangePushA, NVTX_CBID_CORE_RangePushW, NVTX_CBID_CORE_RangePushEx, NVTX_CBID_CORE_RangePop,
        NVTX_CBID_CORE_RangeStartA, NVTX_CBID_CORE_RangeStartW, NVTX_CBID_CORE_RangeStartEx, NVTX_CBID_CORE_RangeEnd})
    EXPECT_TRUE(fake().core[id]) << id;
  for (unsigned id :
       {NVTX_CBID_CORE2_DomainRangePushEx, NVTX_CBID_CORE2_DomainRangePop, NVTX_CBID_CORE2_DomainRangeStartEx,
        NVTX_CBID_CORE2_DomainRangeEnd, NVTX_CBID_CORE2_DomainCreateA, NVTX_CBID_CORE2_DomainCreateW,
        NVTX_CBID_CORE2_DomainDestroy, NVTX_CBID_CORE2_DomainRegisterStringA, NVTX_CBID_CORE2_DomainRegisterStringW})
    EXPECT_TRUE(fake().core2[id]) << id;
  // Marks and names stay unset: NVTX makes them no-ops.
  EXPECT_FALSE(fake().core[NVTX_CBID_CORE_MarkA]);
  EXPECT_FALSE(fake().core[NVTX_CBID_CORE_NameOsThreadA]);
  EXPECT_FALSE(fake().core2[NVTX_CBID_CORE2_DomainMarkEx]);
  // No function tables offered: nothing to install, NVTX is told so.
  EXPECT_EQ(InitializeInjectionNvtx2(no_export_table), 0);
  EXPECT_EQ(InitializeInjectionNvtx2(nullptr), 0);
}

TEST_F(NvtxInjection, PushPopNestIntoPathsAndReturnNvtxLevels) {
  start_recording();
  EXPECT_EQ(push_a("outer"), 0);  // NVTX: the 0-based level of the range begun
  EXPECT_EQ(push_w(L"inner"), 1);
  const nvtxEventAttributes_t leaf = ascii("leaf");
  EXPECT_EQ(push_ex(&leaf), 2);
  const NvtxRanges inside = recorder_.tracker.current();  // what a launch here would carry
  ASSERT_EQ(inside.push_pop.size(), 1u);
  EXPECT_EQ(inside.push_pop[0].ranges, (std::vector<std::string>{"outer", "inner", "leaf"}));
  EXPECT_EQ(pop(), 2);  // the level of the range ended
  EXPECT_EQ(pop(), 1);
  EXPECT_EQ(pop(), 0);
  EXPECT_LT(pop(), 0);  // nothing left to pop
  EXPECT_EQ(closed_names(recorder_), (std::vector<std::string>{"outer/inner/leaf/", "outer/inner/", "outer/"}));
  EXPECT_EQ(recorder_.timeline.unmatched(), 1u);
  EXPECT_EQ(recorder_.calls,
            (std::vector<CUpti_CallbackId>{CUPTI_CBID_NVTX_nvtxRangePushA, CUPTI_CBID_NVTX_nvtxRangePushW,
                                           CUPTI_CBID_NVTX_nvtxRangePushEx, CUPTI_CBID_NVTX_nvtxRangePop,
                                           CUPTI_CBID_NVTX_nvtxRangePop, CUPTI_CBID_NVTX_nvtxRangePop,
                                           CUPTI_CBID_NVTX_nvtxRangePop}));
}

TEST_F(NvtxInjection, DomainsAndRegisteredStringsNameTheRanges) {
  start_recording();
  const nvtxDomainHandle_t lib = create_a("lib");
  ASSERT_NE(lib, nullptr);
  EXPECT_EQ(create_a("lib"), lib);  // one handle per name
  const nvtxDomainHandle_t other = create_w(L"other");
  ASSERT_NE(other, nullptr);
  EXPECT_NE(other, lib);
  const nvtxStringHandle_t gemm = register_a(lib, "gemm");
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(register_a(lib, "gemm"), gemm);
  const nvtxStringHandle_t wide = register_w(lib, L"wide");
  ASSERT_NE(wide, nullptr);
  EXPECT_NE(wide, gemm);

  // Each domain has its own stack: its levels start at 0.
  const nvtxEventAttributes_t by_handle = registered(gemm), by_wide = registered(wide), x = ascii("x");
  EXPECT_EQ(push_a("outer"), 0);
  EXPECT_EQ(domain_push(lib, &by_handle), 0);
  EXPECT_EQ(domain_push(lib, &by_wide), 1);
  EXPECT_EQ(domain_push(other, &x), 0);
  EXPECT_EQ(domain_pop(other), 0);
  EXPECT_EQ(domain_pop(lib), 1);
  EXPECT_EQ(domain_pop(lib), 0);
  EXPECT_LT(domain_pop(lib), 0);
  EXPECT_EQ(pop(), 0);
  domain_destroy(other);
  EXPECT_EQ(closed_names(recorder_), (std::vector<std::string>{"other@x/", "lib@gemm/wide/", "lib@gemm/", "outer/"}));
  EXPECT_EQ(recorder_.calls.back(), CUPTI_CBID_NVTX_nvtxDomainDestroy);
}

TEST_F(NvtxInjection, StartEndRangesCrossThreadsWithProcessUniqueIds) {
  start_recording();
  const nvtxDomainHandle_t data = create_a("data");
  const nvtxEventAttributes_t load = ascii("load");
  const nvtxRangeId_t epoch = start_a("epoch");
  nvtxRangeId_t loading = 0;
  std::thread([&] {
    loading = domain_start(data, &load);
    end(epoch);  // ended on another thread than it began
  }).join();
  domain_end(data, loading);
  EXPECT_NE(epoch, 0u);
  EXPECT_NE(loading, 0u);
  EXPECT_NE(loading, epoch);
  EXPECT_EQ(closed_names(recorder_), (std::vector<std::string>{"epoch", "data@load"}));
  EXPECT_EQ(recorder_.timeline.unmatched(), 0u);
  EXPECT_TRUE(recorder_.tracker.current().start_end.empty());

  // Started on several threads at once: every id different.
  std::vector<std::vector<nvtxRangeId_t>> ids(4);
  std::vector<std::thread> threads;
  for (auto& mine : ids)
    threads.emplace_back([&mine] {
      for (int i = 0; i < 500; ++i) mine.push_back(start_a("many"));
      for (nvtxRangeId_t id : mine) end(id);
    });
  for (auto& thread : threads) thread.join();
  std::set<nvtxRangeId_t> unique;
  for (const auto& mine : ids) unique.insert(mine.begin(), mine.end());
  EXPECT_EQ(unique.size(), 2000u);
  EXPECT_EQ(unique.count(0), 0u);
}

TEST_F(NvtxInjection, CallsOutsideARegistrationAreIgnored) {
  EXPECT_EQ(push_a("before"), 0);  // NVTX still gets its levels
  EXPECT_EQ(pop(), 0);
  EXPECT_EQ(recorder_.received.load(), 0u);
  start_recording();
  const std::uint64_t replayed = recorder_.received.load();  // the other tests' domains and strings
  EXPECT_EQ(push_a("during"), 0);
  EXPECT_EQ(pop(), 0);
  EXPECT_EQ(recorder_.received.load(), replayed + 2);
  {
    detail::OwnCalls ours;  // the collector's own calls are not the app's
    push_a("ours");
    pop();
  }
  EXPECT_EQ(recorder_.received.load(), replayed + 2);
  EXPECT_TRUE(detail::unregister_nvtx_receiver(&recorder_));
  EXPECT_EQ(push_a("after"), 0);
  EXPECT_EQ(pop(), 0);
  EXPECT_EQ(recorder_.received.load(), replayed + 2);
  EXPECT_EQ(closed_names(recorder_), (std::vector<std::string>{"during/"}));
}

// NVTX starts at the app's first call, often before CUDA and the collector: a domain and a
// string made then are made again for the collector as it registers, so its ranges keep names.
TEST_F(NvtxInjection, DomainsAndStringsMadeBeforeTheCollectorKeepTheirNames) {
  const nvtxDomainHandle_t early = create_a("early_domain");
  const nvtxStringHandle_t step = register_a(early, "early_step");
  const nvtxDomainHandle_t wide = create_w(L"\u00e9t\u00e9");  // UTF-8, not '?': its own handle
  EXPECT_NE(wide, create_w(L"\u00e0t\u00e0"));
  EXPECT_EQ(recorder_.received.load(), 0u);
  start_recording();
  const nvtxEventAttributes_t by_handle = registered(step), x = ascii("x");
  EXPECT_EQ(domain_push(early, &by_handle), 0);
  EXPECT_EQ(domain_pop(early), 0);
  EXPECT_EQ(domain_push(wide, &x), 0);
  EXPECT_EQ(domain_pop(wide), 0);
  EXPECT_EQ(closed_names(recorder_), (std::vector<std::string>{"early_domain@early_step/", "\xc3\xa9t\xc3\xa9@x/"}));
}

// A thread's domain levels after its thread-local list is gone (thread exit, or the main
// thread's static destructors): NVTX's error value, no freed memory touched.
TEST_F(NvtxInjection, DomainCallsAfterTheThreadsListIsGoneGetNvtxsError) {
  const nvtxDomainHandle_t lib = create_a("late");
  int pushed_at_exit = 0, popped_at_exit = 0;
  std::thread([&] {
    struct AtExit {  // made before the thread's list, so destroyed after it (thread-locals go last made, first)
      nvtxDomainHandle_t domain;
      int* pushed;
      int* popped;
      ~AtExit() {
        const nvtxEventAttributes_t a = ascii("at exit");
        *pushed = domain_push(domain, &a);
        *popped = domain_pop(domain);
      }
    };
    thread_local AtExit at_exit{lib, &pushed_at_exit, &popped_at_exit};
    (void)at_exit;
    const nvtxEventAttributes_t a = ascii("first");
    EXPECT_EQ(domain_push(lib, &a), 0);  // the list exists from here
  }).join();
  EXPECT_EQ(pushed_at_exit, -1);
  EXPECT_EQ(popped_at_exit, -1);
}

// A receiver still inside a call when it is unregistered: unregister waits for it, and says so
// when its bound passes first (the collector then must not go).
struct Blocking {
  std::atomic<bool> inside{false}, release{false};
};
void block(void* user, CUpti_CallbackId cbid, const CUpti_NvtxData&) noexcept {
  if (cbid != CUPTI_CBID_NVTX_nvtxRangePushA) return;  // the replayed domains and strings pass
  auto& b = *static_cast<Blocking*>(user);
  b.inside = true;
  while (!b.release) std::this_thread::yield();
}

TEST_F(NvtxInjection, UnregisterWaitsForACallInsideTheReceiverUpToItsBound) {
  for (const bool released_in_time : {false, true}) {
    Blocking blocking;
    detail::register_nvtx_receiver(block, &blocking);
    std::thread app([] { push_a("blocked"); });
    while (!blocking.inside) std::this_thread::yield();
    std::thread releaser;
    if (released_in_time) {
      releaser = std::thread([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        blocking.release = true;
      });
      EXPECT_TRUE(detail::unregister_nvtx_receiver(&blocking, std::chrono::seconds(10)));
      EXPECT_TRUE(blocking.release);  // it returned only once the call was out
    } else {
      EXPECT_FALSE(detail::unregister_nvtx_receiver(&blocking, std::chrono::milliseconds(20)));
      blocking.release = true;
    }
    app.join();
    if (releaser.joinable()) releaser.join();
    pop();
  }
}

TEST_F(NvtxInjection, UnregisteringWhileAnotherThreadCallsIsSafe) {
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> made{0};
  std::thread app([&] {
    while (!stop.load()) {
      push_a("busy");
      pop();
      made.fetch_add(1);
    }
  });
  for (int round = 0; round < 20; ++round) {
    const std::uint64_t before = recorder_.received.load();
    start_recording();
    while (recorder_.received.load() == before) std::this_thread::yield();  // the app's calls arrive
    ASSERT_TRUE(detail::unregister_nvtx_receiver(&recorder_));
    // Once unregistered, nothing more arrives, however many calls the app makes.
    const std::uint64_t received = recorder_.received.load(), target = made.load() + 100;
    while (made.load() < target) std::this_thread::yield();
    EXPECT_EQ(recorder_.received.load(), received) << "round " << round;
  }
  stop = true;
  app.join();
}

// The same calls through CUPTI's NVTX callback data, made by hand, give the same events.
TEST_F(NvtxInjection, TheSameEventsAsCuptisNvtxCallbacks) {
  start_recording();
  const nvtxDomainHandle_t lib = create_a("lib");
  const nvtxStringHandle_t name = register_a(lib, "registered");
  const nvtxEventAttributes_t attributes = registered(name);
  push_a("step");
  domain_push(lib, &attributes);
  const nvtxRangeId_t id = start_a("phase");
  end(id);
  domain_pop(lib);
  pop();

  detail::NvtxTracker cupti;
  std::vector<NvtxEvent> expected;
  auto call = [&](CUpti_CallbackId cbid, const void* params, const void* returned = nullptr) {
    CUpti_NvtxData data{};
    data.functionParams = params;
    data.functionReturnValue = returned;
    if (auto event = cupti.on_call(cbid, data)) expected.push_back(*event);
  };
  const nvtxDomainCreateA_params create{"lib"};
  call(CUPTI_CBID_NVTX_nvtxDomainCreateA, &create, &lib);
  const nvtxDomainRegisterStringA_params reg{lib, "registered"};
  call(CUPTI_CBID_NVTX_nvtxDomainRegisterStringA, &reg, &name);
  const nvtxRangePushA_params push{"step"};
  call(CUPTI_CBID_NVTX_nvtxRangePushA, &push);
  const nvtxDomainRangePushEx_params domain_push_params{lib, {&attributes}};
  call(CUPTI_CBID_NVTX_nvtxDomainRangePushEx, &domain_push_params);
  const nvtxRangeStartA_params start{"phase"};
  call(CUPTI_CBID_NVTX_nvtxRangeStartA, &start, &id);
  const nvtxRangeEnd_params end_params{id};
  call(CUPTI_CBID_NVTX_nvtxRangeEnd, &end_params);
  const nvtxDomainRangePop_params domain_pop_params{lib};
  call(CUPTI_CBID_NVTX_nvtxDomainRangePop, &domain_pop_params);
  call(CUPTI_CBID_NVTX_nvtxRangePop, nullptr);

  ASSERT_EQ(recorder_.events.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(recorder_.events[i].kind, expected[i].kind) << i;
    EXPECT_EQ(recorder_.events[i].domain, expected[i].domain) << i;
    EXPECT_EQ(recorder_.events[i].name, expected[i].name) << i;
    EXPECT_EQ(recorder_.events[i].id, expected[i].id) << i;
  }
  EXPECT_EQ(expected[1].domain, "lib");
  EXPECT_EQ(expected[1].name, "registered");
}

}  // namespace
}  // namespace limiter
