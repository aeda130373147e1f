#pragma once
// A PcSamplingBackend without a GPU (collect/pc_sampling/pc_sampling_backend.hpp), for the PcSamplingSession's
// unit tests. It plays CUPTI's PC Sampling API as the session uses it: a test queues the batches
// each context's GetData returns (queue) and what Disable leaves in the configuration buffer
// (at_disable); GetData says how many PCs it still holds, as CUPTI does. A cubin's CRC is its
// first byte plus its size; source lines are looked up by (CRC, function, PC). Calls are counted.
#include <cupti.h>

#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "collect/cupti/cupti_check.hpp"
#include "collect/pc_sampling/pc_sampling_backend.hpp"

namespace limiter::test {

class FakePcSamplingBackend final : public detail::PcSamplingBackend {
 public:
  // CUPTI's names on sm_90, in part: a reason, its _not_issued twin, "selected", and a name
  // that is not a warp state.
  std::vector<detail::PcStallReason> reasons = {{3, "smsp__pcsamp_warps_issue_stalled_long_scoreboard"},
                                                {4, "smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued"},
                                                {7, "smsp__pcsamp_warps_issue_stalled_barrier"},
                                                {9, "smsp__pcsamp_warps_issue_stalled_selected"},
                                                {12, "smsp__pcsamp_sample_count"}};
  bool unsupported = false;  // Enable fails as on a GPU without PC sampling
  bool busy = false;         // Start fails as when another process samples the GPU
  std::uint32_t default_period_log2 = 12;
  std::map<CUcontext, std::deque<detail::PcBatch>> queue;
  std::map<CUcontext, detail::PcBatch> at_disable;
  std::map<std::tuple<std::uint64_t, std::string, std::uint64_t>, detail::SourceLine> lines;
  std::size_t pending = 0;  // what pending_pcs says (the configuration buffer's count)

  // Calls, for the tests to see.
  std::vector<CUcontext> enabled, disabled;
  std::vector<detail::PcSamplingRequest> requests;
  int starts = 0, stops = 0, get_data_calls = 0, crc_calls = 0;
  std::set<CUcontext> running;

  DeviceDescription describe(CUcontext) override {
    DeviceDescription device;
    device.name = "Fake H100";
    device.chip = "GH100";
    device.sm_count = 132;
    return device;
  }
  void enable(CUcontext context) override {
    if (unsupported) throw detail::CuptiError("cuptiPCSamplingEnable: not supported", CUPTI_ERROR_NOT_SUPPORTED);
    enabled.push_back(context);
  }
  std::vector<detail::PcStallReason> stall_reasons(CUcontext) override { return reasons; }
  detail::PcSamplingSettings configure(CUcontext, const detail::PcSamplingRequest& request) override {
    requests.push_back(request);
    detail::PcSamplingSettings settings;
    settings.period_log2 = request.period_log2 ? request.period_log2 : default_period_log2;
    return settings;
  }
  void start(CUcontext context) override {
    if (busy) throw detail::CuptiError("cuptiPCSamplingStart: busy", CUPTI_ERROR_HARDWARE_BUSY);
    ++starts;
    running.insert(context);
  }
  void stop(CUcontext context) override {
    ++stops;
    running.erase(context);
  }
  detail::PcBatch get_data(CUcontext context) override {
    ++get_data_calls;
    auto& batches = queue[context];
    if (batches.empty()) return {};
    detail::PcBatch batch = batches.front();
    batches.pop_front();
    for (const auto& later : batches) batch.remaining_pcs += later.pcs.size();
    if (batch.remaining_pcs == 0 && !batches.empty()) batch.remaining_pcs = 1;  // empty batches still pending
    pending = 0;
    return batch;
  }
  std::size_t pending_pcs(CUcontext) override { return pending; }
  detail::PcBatch disable(CUcontext context) noexcept override {
    disabled.push_back(context);
    running.erase(context);
    detail::PcBatch batch = at_disable[context];
    at_disable.erase(context);
    return batch;
  }
  std::uint64_t cubin_crc(const void* cubin, std::size_t size) override {
    ++crc_calls;
    return crc_of(cubin, size);
  }
  std::optional<detail::SourceLine> source_line(const std::vector<std::uint8_t>& cubin, const std::string& function,
                                                std::uint64_t pc) override {
    if (on_source_line) on_source_line();
    const auto it = lines.find({crc_of(cubin.data(), cubin.size()), function, pc});
    if (it == lines.end()) return std::nullopt;
    return it->second;
  }

  std::function<void()> on_source_line;  // called at each lookup (on the thread that reads the lines)

  static std::uint64_t crc_of(const void* cubin, std::size_t size) {
    return size ? static_cast<const std::uint8_t*>(cubin)[0] * 1000ull + size : 0;
  }
};

// One sampled PC of FUNCTION (module CRC) with SAMPLES by reason index.
inline detail::PcRecord pc_record(const std::string& function, std::uint64_t crc, std::uint64_t pc,
                                  std::vector<std::pair<std::uint32_t, std::uint64_t>> samples) {
  detail::PcRecord record;
  static detail::FunctionNames names;  // as the real backend, one stored copy per name
  record.function = names.intern(function);
  record.cubin_crc = crc;
  record.pc_offset = pc;
  record.samples = std::move(samples);
  return record;
}

}  // namespace limiter::test
