// The RangeSession's calls made for real: the Range Profiler, the Profiler Host API and the
// driver (range_backend.hpp).
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include "collect/clock.hpp"
#include "collect/cupti/cupti_check.hpp"
#include "collect/cupti/device_description.hpp"
#include "collect/cupti/driver_api.hpp"
#include "collect/range/l2_flush.hpp"
#include "collect/cupti/profiler_host.hpp"
#include "collect/range/range_backend.hpp"
#include "collect/trace.hpp"
#include "limiter/error.hpp"

namespace limiter::detail {

namespace {

CUpti_RangeProfiler_Object* cupti_object(RangeObject* object) {
  return reinterpret_cast<CUpti_RangeProfiler_Object*>(object);
}

class ProfilerCounterHost final : public CounterHost {
 public:
  ProfilerCounterHost(const std::string& chip, const std::vector<std::uint8_t>& availability)
      : host_(chip, availability) {}
  std::vector<std::uint8_t> config_image(const std::vector<std::string>& metrics) override {
    return host_.config_image(metrics);
  }
  std::size_t pass_count(std::vector<std::uint8_t>& config) override { return ProfilerHost::pass_count(config); }
  std::size_t range_count(const std::vector<std::uint8_t>& image) override { return ProfilerHost::range_count(image); }
  std::optional<std::string> range_name(const std::vector<std::uint8_t>& image, std::size_t range) override {
    CUpti_RangeProfiler_CounterData_GetRangeInfo_Params info{
        CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE};
    info.pCounterDataImage = image.data();
    info.counterDataImageSize = image.size();
    info.rangeIndex = range;
    info.rangeDelimiter = "/";
    if (cuptiRangeProfilerCounterDataGetRangeInfo(&info) != CUPTI_SUCCESS || !info.rangeName) return std::nullopt;
    return std::string(info.rangeName);
  }
  std::vector<double> evaluate(const std::vector<std::uint8_t>& image, std::size_t range,
                               const std::vector<std::string>& metrics) override {
    return host_.evaluate(image, range, metrics);
  }

 private:
  ProfilerHost host_;
};

class CuptiRangeBackend final : public RangeBackend {
 public:
  CUdevice device_of(CUcontext context) override { return device_of_context(context); }

  std::string device_uuid(CUdevice device) override { return device_uuid_text(device); }

  void check_supported(CUdevice device) override {
    // Not at subscription: inside InitializeInjection the driver is still initialising, and
    // cuptiProfilerInitialize fails there with CUPTI_ERROR_UNKNOWN (seen on an H200).
    // Off the app's thread where the device was prepared ahead (device_preparer.hpp).
    static const bool initialized = [] {
      const auto started = Clock::now();
      CUpti_Profiler_Initialize_Params initialize{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
      LIMITER_CUPTI_CHECK(cuptiProfilerInitialize(&initialize));
      LIMITER_TRACE("cuptiProfilerInitialize: %.1f ms", seconds_since(started) * 1e3);
      return true;
    }();
    (void)initialized;
    CUpti_Profiler_DeviceSupported_Params supported{CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE};
    supported.cuDevice = device;
    supported.api = CUPTI_PROFILER_RANGE_PROFILING;
    LIMITER_CUPTI_CHECK(cuptiProfilerDeviceSupported(&supported));
    if (supported.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return;
    std::string why;
    if (supported.architecture != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
      why += " the architecture (needs Volta or newer);";
    if (supported.vGpu != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) why += " vGPU without profiling enabled;";
    if (supported.confidentialCompute != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) why += " confidential computing;";
    if (supported.cmp != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) why += " a CMP device;";
    if (supported.sli != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) why += " SLI;";
    if (supported.wsl != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) why += " WSL;";
    throw SystemError("this GPU cannot be profiled with the range profiler because of" + why +
                      " run on a supported, non-virtualised GPU");
  }

  DeviceDescription describe(CUdevice device) override { return describe_device(device); }

  // Best effort: seen to fail with CUPTI_ERROR_HARDWARE_BUSY inside a launch callback, and
  // profiling works without it (CUPTI's documentation).
  std::vector<std::uint8_t> counter_availability(CUcontext context) override {
    CUpti_Profiler_GetCounterAvailability_Params params{CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
    params.ctx = context;
    if (cuptiProfilerGetCounterAvailability(&params) != CUPTI_SUCCESS) return {};
    std::vector<std::uint8_t> image(params.counterAvailabilityImageSize);
    params.pCounterAvailabilityImage = image.data();
    if (const CUptiResult status = cuptiProfilerGetCounterAvailability(&params); status != CUPTI_SUCCESS) {
      LIMITER_TRACE("no counter availability image: %s", cupti_error_text(status).c_str());
      return {};
    }
    return image;
  }

  std::unique_ptr<CounterHost> counter_host(const std::string& chip,
                                            const std::vector<std::uint8_t>& availability) override {
    return std::make_unique<ProfilerCounterHost>(chip, availability);
  }

  RangeObject* enable(CUcontext context) override {
    CUpti_RangeProfiler_Enable_Params enable{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    enable.ctx = context;
    LIMITER_CUPTI_CHECK(cuptiRangeProfilerEnable(&enable));
    return reinterpret_cast<RangeObject*>(enable.pRangeProfilerObject);
  }

  std::size_t counter_data_size(RangeObject* object, const std::vector<std::string>& metrics,
                                std::size_t ranges) override {
    std::vector<const char*> names;
    for (const auto& metric : metrics) names.push_back(metric.c_str());
    CUpti_RangeProfiler_GetCounterDataSize_Params size{CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    size.pRangeProfilerObject = cupti_object(object);
    size.pMetricNames = names.data();
    size.numMetrics = names.size();
    size.maxNumOfRanges = ranges;
    size.maxNumRangeTreeNodes = static_cast<std::uint32_t>(ranges);
    LIMITER_CUPTI_CHECK(cuptiRangeProfilerGetCounterDataSize(&size));
    return size.counterDataSize;
  }

  void initialize_image(RangeObject* object, std::vector<std::uint8_t>& image) override {
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params init{
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    init.pRangeProfilerObject = cupti_object(object);
    init.counterDataSize = image.size();
    init.pCounterData = image.data();
    LIMITER_CUPTI_CHECK(cuptiRangeProfilerCounterDataImageInitialize(&init));
  }

  void set_config(RangeObject* object, const RangeConfig& c) override {
    CUpti_RangeProfiler_SetConfig_Params config{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    config.pRangeProfilerObject = cupti_object(object);
    config.configSize = c.config->size();
    config.pConfig = c.config->data();
    config.counterDataImageSize = c.image->size();
    config.pCounterDataImage = c.image->data();
    config.range = c.user_range ? CUPTI_UserRange : CUPTI_AutoRange;
    config.replayMode = c.user_replay ? CUPTI_UserReplay : CUPTI_KernelReplay;
    config.maxRangesPerPass = c.ranges_per_pass;
    config.numNestingLevels = 1;
    config.minNestingLevel = 1;
    config.passIndex = 0;
    config.targetNestingLevel = 1;
    LIMITER_CUPTI_CHECK(cuptiRangeProfilerSetConfig(&config));
  }

  void start(RangeObject* object) override {
    CUpti_RangeProfiler_Start_Params start{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    start.pRangeProfilerObject = cupti_object(object);
    LIMITER_CUPTI_CHECK(cuptiRangeProfilerStart(&start));
  }

  void stop(RangeObject* object) override {
    CUpti_RangeProfiler_Stop_Params stop{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    stop.pRangeProfilerObject = cupti_object(object);
    LIMITER_CUPTI_CHECK(cuptiRangeProfilerStop(&stop));
  }

  void push_range(RangeObject* object, const std::string& name) override {
    CUpti_RangeProfiler_PushRange_Params push{CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
    push.pRangeProfilerObject = cupti_object(object);
    push.pRangeName = name.c_str();
    LIMITER_CUPTI_CHECK(cuptiRangeProfilerPushRange(&push));
  }

  void pop_range(RangeObject* object) override {
    CUpti_RangeProfiler_PopRange_Params pop{CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
    pop.pRangeProfilerObject = cupti_object(object);
    LIMITER_CUPTI_CHECK(cuptiRangeProfilerPopRange(&pop));
  }

  std::size_t decode(RangeObject* object) override {
    CUpti_RangeProfiler_DecodeData_Params params{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    params.pRangeProfilerObject = cupti_object(object);
    LIMITER_CUPTI_CHECK(cuptiRangeProfilerDecodeData(&params));
    return params.numOfRangeDropped;
  }

  void disable(RangeObject* object) noexcept override {
    CUpti_RangeProfiler_Disable_Params disable{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    disable.pRangeProfilerObject = cupti_object(object);
    if (const CUptiResult status = cuptiRangeProfilerDisable(&disable); status != CUPTI_SUCCESS)
      LIMITER_TRACE("Disable: %s", cupti_error_text(status).c_str());
  }

  KernelAttributes kernel_attributes(CUfunction function) override {
    const auto& cu = driver_api();
    CUdevice device = 0;
    cu.ctx_get_device(&device);
    KernelAttributes result;
    auto get = [&](CUfunction_attribute attribute, int& value) {
      // Runtime launches pass a context-less CUkernel: cuFuncGetAttribute refuses it (400).
      if (cu.func_get_attribute(&value, attribute, function) != CUDA_SUCCESS)
        cu.kernel_get_attribute(&value, attribute, reinterpret_cast<CUkernel>(function), device);
    };
    get(CU_FUNC_ATTRIBUTE_NUM_REGS, result.registers);
    get(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, result.static_shared);
    get(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, result.local);
    return result;
  }

  void load_function(CUfunction function) override {
    const auto& cu = driver_api();
    // Lazy loading puts a kernel's module load (milliseconds, with DRAM writes) inside its first
    // launch: inside its user range, a GELU's first range read 74 us instead of 4 and its DRAM
    // throughput 92 % (H100, PyTorch). Loaded here, before any range is pushed.
    CUfunction in_context = function;
    int ignored = 0;
    if (cu.func_get_attribute(&ignored, CU_FUNC_ATTRIBUTE_NUM_REGS, function) != CUDA_SUCCESS &&
        cu.kernel_get_function(&in_context, reinterpret_cast<CUkernel>(function)) != CUDA_SUCCESS)
      in_context = nullptr;  // a runtime CUkernel (context-less) not resolved: left to the launch
    CUfunctionLoadingState state = CU_FUNCTION_LOADING_STATE_LOADED;
    if (in_context && cu.func_is_loaded && cu.func_load && cu.func_is_loaded(&state, in_context) == CUDA_SUCCESS &&
        state != CU_FUNCTION_LOADING_STATE_LOADED)
      cu.func_load(in_context);
  }

  bool stream_capturing(CUstream stream) override {
    CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
    return driver_api().stream_is_capturing(stream, &capture) == CUDA_SUCCESS &&
           capture != CU_STREAM_CAPTURE_STATUS_NONE;
  }

  std::uint64_t stream_id(CUstream stream) override {
    unsigned long long id = 0;
    driver_api().stream_get_id(stream, &id);
    return id;
  }

  std::uint64_t context_id(CUcontext context) override {
    unsigned long long id = 0;
    driver_api().ctx_get_id(context, &id);
    return id;
  }

  CUcontext current_context() override {
    CUcontext context = nullptr;
    return driver_api().ctx_get_current(&context) == CUDA_SUCCESS ? context : nullptr;
  }
  void push_context(CUcontext context) override { driver_api().ctx_push_current(context); }
  void pop_context() override {
    CUcontext popped = nullptr;
    driver_api().ctx_pop_current(&popped);
  }

  void synchronize_context(CUcontext context) override {
    const auto& cu = driver_api();
    const bool pushed = cu.ctx_push_current(context) == CUDA_SUCCESS;
    cu.ctx_synchronize();
    CUcontext popped = nullptr;
    if (pushed) cu.ctx_pop_current(&popped);
  }

  void synchronize_stream(CUstream stream, bool per_thread_stream) override {
    const auto& cu = driver_api();
    (per_thread_stream ? cu.stream_synchronize_ptsz : cu.stream_synchronize)(stream);
  }

  std::optional<GraphTopology> graph_topology(CUgraph graph) override {
    const auto& cu = driver_api();
    std::size_t count = 0;
    if (cu.graph_get_nodes(graph, nullptr, &count) != CUDA_SUCCESS) return std::nullopt;
    GraphTopology topology;
    topology.nodes.resize(count);
    if (cu.graph_get_nodes(graph, topology.nodes.data(), &count) != CUDA_SUCCESS) return std::nullopt;
    topology.nodes.resize(count);
    std::size_t edges = 0;
    if (cu.graph_get_edges(graph, nullptr, nullptr, nullptr, &edges) != CUDA_SUCCESS) return std::nullopt;
    std::vector<CUgraphNode> from(edges), to(edges);
    if (edges && cu.graph_get_edges(graph, from.data(), to.data(), nullptr, &edges) != CUDA_SUCCESS)
      return std::nullopt;
    for (std::size_t e = 0; e < edges; ++e) topology.edges.emplace_back(from[e], to[e]);
    return topology;
  }
  CUgraphNodeType node_type(CUgraphNode node) override {
    CUgraphNodeType type{};
    driver_api().graph_node_get_type(node, &type);
    return type;
  }
  std::optional<GraphKernelNode> kernel_node(CUgraphNode node) override {
    const auto& cu = driver_api();
    CUDA_KERNEL_NODE_PARAMS params{};
    if (cu.graph_kernel_node_get_params(node, &params) != CUDA_SUCCESS) return std::nullopt;
    GraphKernelNode kernel;
    const char* name = nullptr;
    if (params.func && cu.func_get_name(&name, params.func) == CUDA_SUCCESS)
      kernel.mangled_name = name;
    else if (params.kern && cu.kernel_get_name(&name, params.kern) == CUDA_SUCCESS)
      kernel.mangled_name = name;
    kernel.grid = {params.gridDimX, params.gridDimY, params.gridDimZ};
    kernel.block = {params.blockDimX, params.blockDimY, params.blockDimZ};
    kernel.dynamic_shared_bytes = params.sharedMemBytes;
    kernel.function = params.func ? params.func : reinterpret_cast<CUfunction>(params.kern);
    return kernel;
  }
  bool exec_knows_node(CUgraphExec exec, CUgraphNode node) override {
    unsigned enabled = 0;
    return driver_api().graph_node_get_enabled(exec, node, &enabled) == CUDA_SUCCESS;
  }
  CUresult set_node_enabled(CUgraphExec exec, CUgraphNode node, bool enabled) override {
    return driver_api().graph_node_set_enabled(exec, node, enabled ? 1 : 0);
  }
  CUresult launch_graph(CUgraphExec exec, CUstream stream, bool per_thread_stream) override {
    const auto& cu = driver_api();
    return (per_thread_stream ? cu.graph_launch_ptsz : cu.graph_launch)(exec, stream);
  }
  CUgraph create_empty_graph() override {
    CUgraph graph = nullptr;
    return driver_api().graph_create(&graph, 0) == CUDA_SUCCESS ? graph : nullptr;
  }
  void destroy_graph(CUgraph graph) override { driver_api().graph_destroy(graph); }

  void flush_l2(CUcontext context, CUstream stream, bool per_thread_stream) override {
    l2_flush_.before_launch(context, stream, per_thread_stream);
  }
  void release_l2_flush(CUcontext context) noexcept override { l2_flush_.release(context); }

 private:
  L2Flush l2_flush_;
};

}  // namespace

std::unique_ptr<RangeBackend> cupti_range_backend() { return std::make_unique<CuptiRangeBackend>(); }

}  // namespace limiter::detail
