#include "collect/cupti/driver_api.hpp"

#include <dlfcn.h>

#include "limiter/error.hpp"

namespace limiter::detail {
namespace {

// The exact symbol cuda.h binds a name to (cuDeviceTotalMem -> cuDeviceTotalMem_v2), so the
// signature matches: cuGetProcAddress would hand out the newest version instead, whose
// signature may differ (cuCtxGetDevice_v2 takes a context: a crash on an H200).
#define LIMITER_SYMBOL_NAME(function) LIMITER_STRINGIFY(function)
#define LIMITER_STRINGIFY(text) #text

template <typename Function>
void resolve(void* library, const char* symbol, Function& function) {
  function = reinterpret_cast<Function>(dlsym(library, symbol));
  if (!function) {
    throw SystemError(std::string("the NVIDIA driver lacks ") + symbol + ": update it to one that supports CUDA " +
                      std::to_string(CUDA_VERSION / 1000) + "." + std::to_string(CUDA_VERSION % 1000 / 10));
  }
}

#define LIMITER_RESOLVE(field, function) resolve(library, LIMITER_SYMBOL_NAME(function), api.field)

DriverApi load() {
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (!library) {
    throw SystemError("no NVIDIA driver: libcuda.so.1 cannot be loaded (" + std::string(dlerror()) +
                      "); install the NVIDIA driver, or run on a machine with a GPU");
  }
  DriverApi api;
  LIMITER_RESOLVE(get_error_name, cuGetErrorName);
  LIMITER_RESOLVE(ctx_get_device, cuCtxGetDevice);
  LIMITER_RESOLVE(ctx_get_current, cuCtxGetCurrent);
  LIMITER_RESOLVE(ctx_get_id, cuCtxGetId);
  LIMITER_RESOLVE(ctx_synchronize, cuCtxSynchronize);
  LIMITER_RESOLVE(ctx_push_current, cuCtxPushCurrent);
  LIMITER_RESOLVE(ctx_pop_current, cuCtxPopCurrent);
  LIMITER_RESOLVE(device_get_uuid, cuDeviceGetUuid);
  LIMITER_RESOLVE(device_get_name, cuDeviceGetName);
  LIMITER_RESOLVE(device_get_attribute, cuDeviceGetAttribute);
  LIMITER_RESOLVE(device_total_mem, cuDeviceTotalMem);
  LIMITER_RESOLVE(func_get_attribute, cuFuncGetAttribute);
  LIMITER_RESOLVE(kernel_get_attribute, cuKernelGetAttribute);
  LIMITER_RESOLVE(stream_is_capturing, cuStreamIsCapturing);
  LIMITER_RESOLVE(stream_get_id, cuStreamGetId);
  LIMITER_RESOLVE(graph_get_nodes, cuGraphGetNodes);
  LIMITER_RESOLVE(graph_node_get_type, cuGraphNodeGetType);
  LIMITER_RESOLVE(graph_kernel_node_get_params, cuGraphKernelNodeGetParams);
  LIMITER_RESOLVE(func_get_name, cuFuncGetName);
  LIMITER_RESOLVE(kernel_get_name, cuKernelGetName);
  LIMITER_RESOLVE(graph_get_edges, cuGraphGetEdges);
  LIMITER_RESOLVE(graph_node_get_enabled, cuGraphNodeGetEnabled);
  LIMITER_RESOLVE(graph_node_set_enabled, cuGraphNodeSetEnabled);
  LIMITER_RESOLVE(graph_create, cuGraphCreate);
  LIMITER_RESOLVE(graph_destroy, cuGraphDestroy);
  LIMITER_RESOLVE(kernel_get_function, cuKernelGetFunction);
  LIMITER_RESOLVE(module_load_data, cuModuleLoadData);
  LIMITER_RESOLVE(module_get_function, cuModuleGetFunction);
  LIMITER_RESOLVE(module_unload, cuModuleUnload);
  LIMITER_RESOLVE(mem_alloc, cuMemAlloc);
  LIMITER_RESOLVE(mem_free, cuMemFree);
  LIMITER_RESOLVE(memset_d8, cuMemsetD8);
  LIMITER_RESOLVE(launch_kernel, cuLaunchKernel);
  api.func_is_loaded = reinterpret_cast<decltype(api.func_is_loaded)>(dlsym(library, "cuFuncIsLoaded"));
  api.func_load = reinterpret_cast<decltype(api.func_load)>(dlsym(library, "cuFuncLoad"));
  resolve(library, "cuGraphLaunch", api.graph_launch);
  resolve(library, "cuGraphLaunch_ptsz", api.graph_launch_ptsz);
  resolve(library, "cuStreamSynchronize", api.stream_synchronize);
  resolve(library, "cuStreamSynchronize_ptsz", api.stream_synchronize_ptsz);
  return api;
}

}  // namespace

const DriverApi& driver_api() {
  static const DriverApi api = load();
  return api;
}

std::string driver_error_name(CUresult status) {
  const char* name = nullptr;
  if (driver_api().get_error_name(status, &name) != CUDA_SUCCESS || !name) return "CUresult " + std::to_string(status);
  return name;
}

}  // namespace limiter::detail
