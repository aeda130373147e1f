// The PC-sampling seam's real side (pc_sampling_backend.hpp): CUPTI's PC Sampling API, each
// context with its configuration buffer (CUPTI writes it at Disable) and its GetData buffer.
#include <cupti.h>
#include <cupti_pcsampling.h>

#include <cstdlib>
#include <map>
#include <mutex>

#include "collect/cupti/cupti_check.hpp"
#include "collect/cupti/device_description.hpp"
#include "collect/pc_sampling/pc_sampling_backend.hpp"

namespace limiter::detail {

namespace {

// A CUpti_PCSamplingData with room for PCS PCs of REASONS stall reasons each.
class PcBuffer {
 public:
  PcBuffer(std::size_t pcs, std::size_t reasons) : pcs_(pcs), reasons_(pcs * std::max<std::size_t>(reasons, 1)) {
    data_.size = sizeof(CUpti_PCSamplingData);
    data_.collectNumPcs = pcs;
    data_.pPcData = pcs_.data();
    for (std::size_t i = 0; i < pcs; ++i) {
      pcs_[i].size = sizeof(CUpti_PCSamplingPCData);
      pcs_[i].stallReason = &reasons_[i * std::max<std::size_t>(reasons, 1)];
    }
  }
  PcBuffer(const PcBuffer&) = delete;
  PcBuffer& operator=(const PcBuffer&) = delete;
  CUpti_PCSamplingData* get() { return &data_; }

  // Its records as plain values; emptied for the next fill. CUPTI allocates the function names
  // once per function and shares them between records: never freed here.
  PcBatch take(FunctionNames& names) {
    PcBatch batch;
    batch.total_samples = data_.totalSamples;
    batch.dropped_samples = data_.droppedSamples;
    batch.non_user_samples = data_.nonUsrKernelsTotalSamples;
    batch.remaining_pcs = data_.remainingNumPcs;
    batch.hardware_buffer_full = data_.hardwareBufferFull != 0;
    for (std::size_t i = 0; i < data_.totalNumPcs && i < pcs_.size(); ++i) {
      const CUpti_PCSamplingPCData& pc = pcs_[i];
      PcRecord record;
      record.cubin_crc = pc.cubinCrc;
      record.pc_offset = pc.pcOffset;
      record.function = names.intern(pc.functionName);
      record.samples.reserve(pc.stallReasonCount);
      for (std::size_t r = 0; r < pc.stallReasonCount; ++r) {
        const std::uint32_t index = pc.stallReason[r].pcSamplingStallReasonIndex;  // packed: copied out
        const std::uint64_t samples = pc.stallReason[r].samples;
        record.samples.emplace_back(index, samples);
      }
      batch.pcs.push_back(std::move(record));
    }
    data_.totalNumPcs = 0;
    data_.remainingNumPcs = 0;
    data_.totalSamples = data_.droppedSamples = data_.nonUsrKernelsTotalSamples = 0;
    data_.hardwareBufferFull = 0;
    return batch;
  }
  std::size_t remaining() const { return data_.remainingNumPcs; }

 private:
  CUpti_PCSamplingData data_{};
  std::vector<CUpti_PCSamplingPCData> pcs_;
  std::vector<CUpti_PCSamplingStallReason> reasons_;
};

CUpti_PCSamplingConfigurationInfo attribute(CUpti_PCSamplingConfigurationAttributeType type) {
  CUpti_PCSamplingConfigurationInfo info{};
  info.attributeType = type;
  return info;
}

class CuptiPcSamplingBackend final : public PcSamplingBackend {
 public:
  DeviceDescription describe(CUcontext context) override { return describe_device(device_of_context(context)); }

  void enable(CUcontext context) override {
    CUpti_PCSamplingEnableParams params{CUpti_PCSamplingEnableParamsSize};
    params.ctx = context;
    LIMITER_CUPTI_CHECK(cuptiPCSamplingEnable(&params));
  }

  std::vector<PcStallReason> stall_reasons(CUcontext context) override {
    std::size_t count = 0;
    CUpti_PCSamplingGetNumStallReasonsParams number{CUpti_PCSamplingGetNumStallReasonsParamsSize};
    number.ctx = context;
    number.numStallReasons = &count;
    LIMITER_CUPTI_CHECK(cuptiPCSamplingGetNumStallReasons(&number));
    std::vector<std::uint32_t> indices(count);
    std::vector<std::vector<char>> names(count, std::vector<char>(CUPTI_STALL_REASON_STRING_SIZE));
    std::vector<char*> name_pointers(count);
    for (std::size_t i = 0; i < count; ++i) name_pointers[i] = names[i].data();
    CUpti_PCSamplingGetStallReasonsParams reasons{CUpti_PCSamplingGetStallReasonsParamsSize};
    reasons.ctx = context;
    reasons.numStallReasons = count;
    reasons.stallReasonIndex = indices.data();
    reasons.stallReasons = name_pointers.data();
    LIMITER_CUPTI_CHECK(cuptiPCSamplingGetStallReasons(&reasons));
    std::vector<PcStallReason> out;
    for (std::size_t i = 0; i < count; ++i) out.push_back({indices[i], std::string(names[i].data())});
    return out;
  }

  PcSamplingSettings configure(CUcontext context, const PcSamplingRequest& request) override {
    std::lock_guard lock(mutex_);
    auto& buffers = buffers_[context];
    const std::size_t reasons = request.reasons.size();
    buffers.config = std::make_unique<PcBuffer>(request.buffer_pcs, reasons);
    buffers.data = std::make_unique<PcBuffer>(request.buffer_pcs, reasons);
    std::vector<std::uint32_t> indices = request.reasons;
    std::vector<CUpti_PCSamplingConfigurationInfo> infos;
    auto add = [&](CUpti_PCSamplingConfigurationAttributeType type) -> CUpti_PCSamplingConfigurationInfo& {
      return infos.emplace_back(attribute(type));
    };
    add(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE).attributeData.collectionModeData.collectionMode =
        CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS;
    add(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL)
        .attributeData.enableStartStopControlData.enableStartStopControl = 1;
    auto& stall = add(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON).attributeData.stallReasonData;
    stall.stallReasonCount = indices.size();
    stall.pStallReasonIndex = indices.data();
    add(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT)
        .attributeData.outputDataFormatData.outputDataFormat = CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED;
    add(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER)
        .attributeData.samplingDataBufferData.samplingDataBuffer = buffers.config->get();
    if (request.period_log2)
      add(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD).attributeData.samplingPeriodData.samplingPeriod =
          request.period_log2;
    if (request.scratch_bytes)
      add(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SCRATCH_BUFFER_SIZE)
          .attributeData.scratchBufferSizeData.scratchBufferSize = request.scratch_bytes;
    if (request.hardware_bytes)
      add(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_HARDWARE_BUFFER_SIZE)
          .attributeData.hardwareBufferSizeData.hardwareBufferSize = request.hardware_bytes;
    CUpti_PCSamplingConfigurationInfoParams params{CUpti_PCSamplingConfigurationInfoParamsSize};
    params.ctx = context;
    params.numAttributes = infos.size();
    params.pPCSamplingConfigurationInfo = infos.data();
    LIMITER_CUPTI_CHECK(cuptiPCSamplingSetConfigurationAttribute(&params));

    std::vector<CUpti_PCSamplingConfigurationInfo> asked = {
        attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD),
        attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SCRATCH_BUFFER_SIZE),
        attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_HARDWARE_BUFFER_SIZE)};
    params.numAttributes = asked.size();
    params.pPCSamplingConfigurationInfo = asked.data();
    PcSamplingSettings settings;
    settings.period_log2 = request.period_log2;
    if (cuptiPCSamplingGetConfigurationAttribute(&params) == CUPTI_SUCCESS) {
      settings.period_log2 = asked[0].attributeData.samplingPeriodData.samplingPeriod;
      settings.scratch_bytes = asked[1].attributeData.scratchBufferSizeData.scratchBufferSize;
      settings.hardware_bytes = asked[2].attributeData.hardwareBufferSizeData.hardwareBufferSize;
    }
    return settings;
  }

  void start(CUcontext context) override {
    CUpti_PCSamplingStartParams params{CUpti_PCSamplingStartParamsSize};
    params.ctx = context;
    LIMITER_CUPTI_CHECK(cuptiPCSamplingStart(&params));
  }

  void stop(CUcontext context) override {
    CUpti_PCSamplingStopParams params{CUpti_PCSamplingStopParamsSize};
    params.ctx = context;
    LIMITER_CUPTI_CHECK(cuptiPCSamplingStop(&params));
  }

  PcBatch get_data(CUcontext context) override {
    PcBuffer& buffer = *buffers_of(context).data;
    CUpti_PCSamplingGetDataParams params{CUpti_PCSamplingGetDataParamsSize};
    params.ctx = context;
    params.pcSamplingData = buffer.get();
    const CUptiResult status = cuptiPCSamplingGetData(&params);
    // A full hardware buffer fails the call: its samples are lost, and counted.
    if (status == CUPTI_ERROR_OUT_OF_MEMORY) {
      PcBatch batch = buffer.take(names_);
      batch.hardware_buffer_full = true;
      return batch;
    }
    if (status != CUPTI_SUCCESS) throw_cupti_error(status, "cuptiPCSamplingGetData");
    return buffer.take(names_);
  }

  std::size_t pending_pcs(CUcontext context) override { return buffers_of(context).config->remaining(); }

  PcBatch disable(CUcontext context) noexcept override {
    CUpti_PCSamplingDisableParams params{CUpti_PCSamplingDisableParamsSize};
    params.ctx = context;
    cuptiPCSamplingDisable(&params);
    std::lock_guard lock(mutex_);
    const auto it = buffers_.find(context);
    if (it == buffers_.end() || !it->second.config) return {};
    PcBatch batch = it->second.config->take(names_);
    batch.remaining_pcs = 0;
    buffers_.erase(it);
    return batch;
  }

  std::uint64_t cubin_crc(const void* cubin, std::size_t size) override {
    CUpti_GetCubinCrcParams params{CUpti_GetCubinCrcParamsSize};
    params.cubin = cubin;
    params.cubinSize = size;
    LIMITER_CUPTI_CHECK(cuptiGetCubinCrc(&params));
    return params.cubinCrc;
  }

  std::optional<SourceLine> source_line(const std::vector<std::uint8_t>& cubin, const std::string& function,
                                        std::uint64_t pc_offset) override {
    CUpti_GetSassToSourceCorrelationParams params{CUpti_GetSassToSourceCorrelationParamsSize};
    params.cubin = cubin.data();
    params.cubinSize = cubin.size();
    params.functionName = function.c_str();
    params.pcOffset = pc_offset;
    if (cuptiGetSassToSourceCorrelation(&params) != CUPTI_SUCCESS) return std::nullopt;  // no -lineinfo
    std::optional<SourceLine> line;
    if (params.fileName && params.fileName[0] && params.lineNumber > 0) {
      std::string dir = params.dirName ? params.dirName : "";
      std::string file = params.fileName;
      if (!dir.empty() && file.front() != '/') file = dir + (dir.back() == '/' ? "" : "/") + file;
      line = SourceLine{file, params.lineNumber};
    }
    std::free(params.fileName);
    std::free(params.dirName);
    return line;
  }

 private:
  struct Buffers {
    std::unique_ptr<PcBuffer> config, data;
  };
  Buffers& buffers_of(CUcontext context) {
    std::lock_guard lock(mutex_);
    return buffers_.at(context);  // configured first
  }

  std::mutex mutex_;
  std::map<CUcontext, Buffers> buffers_;
  FunctionNames names_;  // GetData and Disable run under the session's lock: one at a time
};

}  // namespace

std::unique_ptr<PcSamplingBackend> cupti_pc_sampling_backend() { return std::make_unique<CuptiPcSamplingBackend>(); }

}  // namespace limiter::detail
