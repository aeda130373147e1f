// The PC-sampling session's record (pc_sampling_session.hpp): the stalls with their source
// lines, the cubin files, and the default run's window's cubins freed; and the GPU's sampling turn.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "collect/pc_sampling/pc_sampling_session.hpp"
#include "collect/trace.hpp"
#include "limiter/error.hpp"
#include "limiter/stall_sass.hpp"

namespace limiter::detail {

void PcSamplingSession::write_cubins(const StallInfo& info) const {
  const std::string& root = options_.cubin_dir.empty() ? options_.raw_dir : options_.cubin_dir;
  if (root.empty()) return;
  const std::filesystem::path dir = std::filesystem::path(root) / "cubins";
  std::filesystem::create_directories(dir);
  for (const auto& kernel : info.kernels) {
    const auto cubin = cubins_.find(kernel.cubin_crc);
    const std::filesystem::path path = dir / cubin_file_name(kernel.cubin_crc);
    if (cubin == cubins_.end() || std::filesystem::exists(path)) continue;
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(cubin->second.data()), static_cast<std::streamsize>(cubin->second.size()));
  }
}

void PcSamplingSession::complete_record(RunRecord& run) noexcept {
  if (!stalls_due_.exchange(false)) return;
  add_stalls(run);
  release_cubins();
}

void PcSamplingSession::add_stalls(RunRecord& run) noexcept {
  try {
    const auto t0 = Clock::now();
    const StallInfo info = stalls();
    lines_s_ = seconds_since(t0);
    if (tracing()) {
      std::string split;
      for (const auto& [index, samples] : aggregator_.samples_by_index())
        split += " " + std::to_string(index) + ":" + std::to_string(samples);
      LIMITER_TRACE("PC samples by CUPTI's reason index:%s", split.c_str());
    }
    write_cubins(info);
    run.stalls = info;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "limiter: the PC samples were lost: %s\n", e.what());
  }
}

// The default run's window is over: once its lines and cubin files are out (or could not be),
// its cubins (up to kCubinBytesKept) are not held to the app's end.
void PcSamplingSession::release_cubins() noexcept {
  if (phase_.window.count() == 0) return;
  std::lock_guard lock(mutex_);
  cubins_kept_ = std::max(cubins_kept_, cubins_.size());
  cubins_.clear();
}

// One process samples a GPU's PCs at a time. A Start refused as HARDWARE_BUSY (another process
// samples) left the process's later launches without a callback on an H200 (a fork + exec'd
// program: 1 of its 40 launches seen, 2026-11-28), so a limiter process never tries while another
// holds the GPU's sampling lock (counter_lock.hpp, a file of its own beside the counters' turn).
void PcSamplingSession::take_sampling_turn(const std::string& device_uuid) {
  auto& turn = sampling_turns_[device_uuid];
  if (!turn) turn = std::make_unique<CounterLock>(options_.lock_dir, "pc-sampling-" + device_uuid);
  if (!turn->acquire(std::chrono::milliseconds(0)))
    throw TurnTaken(
        "another limiter process samples this GPU's PCs now (its PC-sampling window or --stalls): "
        "this process is not sampled");
}

}  // namespace limiter::detail
