#pragma once
// The seam between the PcSamplingSession and CUPTI's PC Sampling API (cupti_pcsampling.h): every
// call the session makes, in plain values. cupti_pc_sampling_backend.cpp makes the real calls;
// unit tests give a fake (tests/unit/fake_pc_sampling_backend.hpp) and so drive the session's
// logic — configuration, drains, contexts, cubins, what is lost — without a GPU.
#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "limiter/record.hpp"

namespace limiter::detail {

// A stall reason as CUPTI names it on this device ("smsp__pcsamp_warps_issue_stalled_barrier").
struct PcStallReason {
  std::uint32_t index = 0;
  std::string name;
};

// What the session asks for; zero leaves CUPTI's default.
struct PcSamplingRequest {
  std::uint32_t period_log2 = 0;       // one sample per SM every 2^N cycles
  std::size_t scratch_bytes = 0;       // CUPTI's buffer of decoded PCs
  std::size_t hardware_bytes = 0;      // the device buffer the SMs write samples to
  std::size_t buffer_pcs = 0;          // PCs per GetData (and in the buffer CUPTI fills at Disable)
  std::vector<std::uint32_t> reasons;  // stall reason indices to count (all of them)
};

// What CUPTI configured (GetConfigurationAttribute): the period in force, for the record.
struct PcSamplingSettings {
  std::uint32_t period_log2 = 0;
  std::size_t scratch_bytes = 0, hardware_bytes = 0;
};

// Function names, each stored once: a GetData hands over thousands of PCs of a few dozen
// functions whose mangled names run to hundreds of characters (PyTorch's), and copying one per
// PC cost more than the sampling itself (2.5x on a PyTorch loop, H100, 2026-11-26).
class FunctionNames {
 public:
  // The one stored copy of NAME; CUPTI's own pointers are remembered, so a name it shares
  // between records is found by its address (and one compare) after the first time.
  const std::string* intern(const char* name) {
    if (!name) name = "";
    // Checked, not trusted: an address CUPTI freed (a module unloaded) may come back with another name.
    if (const auto known = by_address_.find(name); known != by_address_.end() && *known->second == name)
      return known->second;
    const std::string* stored = &*names_.insert(name).first;
    by_address_[name] = stored;
    return stored;
  }
  const std::string* intern(const std::string& name) { return &*names_.insert(name).first; }

 private:
  std::unordered_set<std::string> names_;  // node-based: the pointers handed out stay valid
  std::unordered_map<const char*, const std::string*> by_address_;
};

// One sampled PC: its function, module and samples by stall reason index.
struct PcRecord {
  std::uint64_t cubin_crc = 0;
  std::uint64_t pc_offset = 0;
  const std::string* function = nullptr;  // mangled; stored by the backend (FunctionNames), lives as long as it
  std::vector<std::pair<std::uint32_t, std::uint64_t>> samples;  // (reason index, samples)
};

// One GetData (or what Disable left): PCs and CUPTI's tallies of the same interval.
struct PcBatch {
  std::vector<PcRecord> pcs;
  std::uint64_t total_samples = 0;     // all samples, user kernels or not, dropped included
  std::uint64_t dropped_samples = 0;   // lost by the hardware (backpressure, overflow)
  std::uint64_t non_user_samples = 0;  // samples of kernels without PC records (the driver's own)
  std::size_t remaining_pcs = 0;       // PCs CUPTI still holds: another GetData gets them
  bool hardware_buffer_full = false;   // GetData failed with the hardware buffer full
};

// A PC's place in the source (cuptiGetSassToSourceCorrelation, modules built with -lineinfo).
struct SourceLine {
  std::string file;
  std::uint32_t line = 0;
};

// Failures throw CuptiError (cupti_check.hpp).
class PcSamplingBackend {
 public:
  virtual ~PcSamplingBackend() = default;

  virtual DeviceDescription describe(CUcontext context) = 0;
  virtual void enable(CUcontext context) = 0;
  virtual std::vector<PcStallReason> stall_reasons(CUcontext context) = 0;  // after enable
  // Configures continuous collection with start/stop control; the settings in force.
  virtual PcSamplingSettings configure(CUcontext context, const PcSamplingRequest& request) = 0;
  virtual void start(CUcontext context) = 0;
  virtual void stop(CUcontext context) = 0;
  virtual PcBatch get_data(CUcontext context) = 0;
  // PCs CUPTI holds for the next GetData (the configuration buffer's count; no CUPTI call).
  virtual std::size_t pending_pcs(CUcontext context) = 0;
  // Disables sampling; the records CUPTI put in the configuration buffer as it tore down.
  virtual PcBatch disable(CUcontext context) noexcept = 0;

  virtual std::uint64_t cubin_crc(const void* cubin, std::size_t size) = 0;
  virtual std::optional<SourceLine> source_line(const std::vector<std::uint8_t>& cubin, const std::string& function,
                                                std::uint64_t pc_offset) = 0;
};

// The real one: CUPTI and the driver.
std::unique_ptr<PcSamplingBackend> cupti_pc_sampling_backend();

}  // namespace limiter::detail
