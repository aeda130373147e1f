#pragma once
// The PC-sampling session (`limiter run --stalls`, docs/design.md §7): CUPTI's PC Sampling API in
// continuous mode on every context that launches in a profiled region — warp samples by stall
// reason per PC, summed per kernel (pc_sampling_aggregate.hpp) into the record's stalls
// (limiter/stalls.hpp). Per context: Enable, its stall reasons, configure, Start (at its first
// module load or launch in a region); GetData at syncs and launch exits (at most every
// kDrainPeriod), when CUPTI holds a buffer's worth of PCs after a launch, at module loads (a
// module loaded again must be flushed), at region ends and context teardown; Stop, GetData and Disable at the end.
// Every module's cubin is kept (by CRC) for the hot PCs' source lines, and written under --save-raw's folder
// (cubins/<crc>.cubin) for their SASS, which `limiter run` disassembles after the app (limiter/stall_sass.hpp): never
// inside the profiled process. Samples lost to full buffers are counted in the record, never dropped silently.
#include <cuda.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <functional>
#include <set>
#include <string_view>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "collect/clock.hpp"
#include "collect/counter_lock.hpp"
#include "collect/collector_internal.hpp"
#include "collect/pc_sampling/pc_sampling_aggregate.hpp"
#include "collect/pc_sampling/pc_sampling_backend.hpp"
#include "collect/session.hpp"
#include "limiter/collector_options.hpp"
#include "limiter/error.hpp"
#include "limiter/stalls.hpp"

namespace limiter::detail {

// PCs per GetData: CUPTI holds more than this after a launch → drained at once. 4,096 drained
// every ~8 ms on a PyTorch loop (H100); each call has its own cost.
constexpr std::size_t kPcsPerBuffer = 16384;
// At most one drain per this at syncs (GetData never synchronises; an app that syncs after
// every launch would otherwise pay it every time).
constexpr auto kDrainPeriod = std::chrono::milliseconds(100);
// The default run's window samples the whole GPU at most this often a second (at 2 GHz), unless
// --stall-period says otherwise: CUPTI hands its samples over only at Stop and decodes them there,
// on the app's thread, ~0.12 us each, so a window over a busy GPU at CUPTI's 2^11 cycles (115M
// samples a second on an H200) cost ~1.4 s at its end for 0.1 s of sampling (2026-11-29).
constexpr double kWindowSamplesPerSecond = 40e6;
// Its period for SM_COUNT SMs: 2^13 cycles on an H100 or H200 (132 SMs); 0 (CUPTI's) when unknown.
std::uint32_t window_period_log2(int sm_count);
// Cubins kept in memory for source lines and SASS: beyond this, later modules are counted, not kept.
constexpr std::size_t kCubinBytesKept = std::size_t(512) << 20;

// PC sampling as a phase of the default run (phases.hpp): it begins when the phase before hands
// over (until then a module load only keeps its cubin), and its window ends at WINDOW after its
// first sampled context started, or at WINDOW_SAMPLES samples. Zero: no bound (--stalls alone).
// It ends sooner once QUIET_LAUNCHES launches in a row brought no kernel not launched before in it, after
// MIN_WINDOW at least: a loop's kernels have all been sampled by then, in several steps each.
struct PcSamplingPhase {
  bool follows_another = false;
  std::chrono::milliseconds window{0};
  std::uint64_t window_samples = 0;
  std::uint64_t quiet_launches = 0;  // zero: the window's time or samples alone
  std::chrono::milliseconds min_window{0};
};

class PcSamplingSession final : public Session,
                                public LaunchExits,
                                public SyncPoints,
                                public ModuleLoads,
                                public PendingWork,
                                public PhaseEnd,
                                public SlowCompletion {
 public:
  PcSamplingSession(const CollectorOptions& options, std::unique_ptr<PcSamplingBackend> backend,
                    PcSamplingPhase phase = {});
  ~PcSamplingSession() override;
  PcSamplingSession(const PcSamplingSession&) = delete;
  PcSamplingSession& operator=(const PcSamplingSession&) = delete;

  const char* name() const override { return "PC sampling"; }
  SessionCapabilities capabilities() override;
  void begin_region() override;                          // started contexts start again
  void end_region() override;                            // the last region closed: stopped and drained
  void on_launch(const LaunchCall& call) override;       // in a region: its context sampled
  void on_launch_exit(const LaunchCall& call) override;  // a buffer's worth of PCs pending: drained
  void on_sync(SyncKind kind) override;
  void on_module_loaded(const ModuleLoad& module) override;
  void on_context_destroy(CUcontext context) override;  // finished while it exists
  void flush() override;
  bool flush_before_exit(std::chrono::milliseconds wait) noexcept override;
  void begin_after(RunRecord before, bool follows) override;
  bool phase_over() const override;  // its window is over (PcSamplingPhase)
  std::string phase_over_reason() const override;
  bool quiet() const;  // PcSamplingPhase::quiet_launches reached
  enum class WindowEnd { open, failed, samples, quiet, time };
  WindowEnd window_end() const;  // what ends the window now, if anything
  // Every context finished; the record with its stalls, or (the default run's window) without
  // them: complete_record() adds them (source lines, cubin files: ~0.2 s), off the app's thread.
  RunRecord finish() noexcept override;
  void complete_record(RunRecord& record) noexcept override;
  std::vector<MissedLaunches> missed() const override;
  std::uint64_t launches_seen() const override { return launches_seen_; }
  std::string timings() const override;

  // The stalls so far (finish() puts them in the record).
  StallInfo stalls() const;

 private:
  struct Context {
    StallKeys keys;
    bool started = false;
    std::optional<std::string> failed;  // Enable or configure failed: why
  };
  bool active() const { return options_.always_active || active_depth_ > 0; }
  // The context's sampling, enabled and configured once; started when in a region. Under mutex_.
  Context& sample(CUcontext context);
  void start(CUcontext context, Context& state);
  void drain(CUcontext context, Context& state);  // GetData until CUPTI holds nothing
  void drain_all();
  void finish_context(CUcontext context) noexcept;  // Stop, drain, Disable
  void finish_all() noexcept;
  void take(const PcBatch& batch, const StallKeys& keys);
  std::optional<SourceLine> line_of(const std::string& function, std::uint64_t crc, std::uint64_t pc) const;
  void write_cubins(const StallInfo& info) const;  // --save-raw: cubins/<crc>.cubin
  void add_stalls(RunRecord& run) noexcept;        // the stalls with their lines; the cubins written
  void release_cubins() noexcept;                  // the default run's window: its cubins freed
  // Another process samples the GPU (take_sampling_turn throws it): its own fix, not the generic one.
  struct TurnTaken : SystemError {
    using SystemError::SystemError;
  };
  void take_sampling_turn(const std::string& device_uuid);  // or throws TurnTaken
  void first_failure(const std::exception& error);          // said once, with its fix for the record

  CollectorOptions options_;
  PcSamplingPhase phase_;
  std::atomic<bool> began_{true};             // false until the phase before hands over (phase_.follows_another)
  std::atomic<Clock::rep> window_start_{0};   // the first start (Clock ticks since its epoch); 0: none yet
  std::atomic<std::uint64_t> samples_{0};     // the aggregator's, as of its last batch
  std::atomic<bool> ever_started_{false};     // a context's sampling started
  std::atomic<bool> sampling_failed_{false};  // a launch found sampling failed before any start
  std::unique_ptr<PcSamplingBackend> owned_backend_;
  PcSamplingBackend& backend_;
  mutable std::mutex mutex_;
  std::map<CUcontext, Context> contexts_;
  std::map<std::string, std::unique_ptr<CounterLock>> sampling_turns_;  // by device UUID, held until finish
  StallAggregator aggregator_;
  std::map<std::uint64_t, std::vector<std::uint8_t>> cubins_;  // by CRC
  std::size_t cubin_bytes_ = 0, cubins_not_kept_ = 0;
  std::set<std::uint64_t> crcs_not_kept_;  // modules seen loading, over kCubinBytesKept
  std::size_t modules_unread_ = 0;         // loads without a cubin, or whose CRC failed
  std::size_t cubins_kept_ = 0;            // the default run: how many were kept until the window's end freed them
  std::optional<DeviceDescription> device_;
  PcSamplingSettings settings_;
  std::string first_error_, first_fix_;
  std::uint64_t launches_unsampled_ = 0;  // in a region, on a context whose sampling failed
  std::atomic<int> active_depth_{0};
  std::atomic<std::uint64_t> launches_seen_{0};
  std::set<std::string, std::less<>> kernels_sampled_;       // launched in the window, by CUPTI's name: the quiet rule
  std::atomic<std::uint64_t> launches_since_new_{0};         // launches in a row with no new kernel
  mutable std::atomic<WindowEnd> over_by_{WindowEnd::open};  // the first reason phase_over() found
  Clock::time_point last_drain_{};
  std::atomic<bool> finished_{false};
  std::atomic<bool> stalls_due_{false};  // finish() left them to complete()
  RunRecord before_;
  // --timing
  double setup_s_ = 0, get_data_s_ = 0, lines_s_ = 0;
  double modules_s_ = 0, finish_s_ = 0;  // module loads (CRC, copy, flush); Stop, flush and Disable at the end
  std::size_t modules_ = 0;
  std::uint64_t get_data_calls_ = 0;
};

}  // namespace limiter::detail
