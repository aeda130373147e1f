#pragma once
// The CUDA driver functions the collector calls, resolved at run time (dlopen of libcuda.so.1
// and cuGetProcAddress), so that nothing linked with the collector needs the driver to load —
// the CLI and the tests run on machines without a GPU.
#include <cuda.h>

#include <string>

namespace limiter::detail {

struct DriverApi {
  decltype(&::cuGetErrorName) get_error_name = nullptr;
  decltype(&::cuCtxGetDevice) ctx_get_device = nullptr;
  decltype(&::cuCtxGetCurrent) ctx_get_current = nullptr;
  decltype(&::cuCtxGetId) ctx_get_id = nullptr;
  decltype(&::cuCtxSynchronize) ctx_synchronize = nullptr;
  decltype(&::cuCtxPushCurrent) ctx_push_current = nullptr;
  decltype(&::cuCtxPopCurrent) ctx_pop_current = nullptr;
  decltype(&::cuDeviceGetUuid) device_get_uuid = nullptr;
  decltype(&::cuDeviceGetName) device_get_name = nullptr;
  decltype(&::cuDeviceGetAttribute) device_get_attribute = nullptr;
  decltype(&::cuDeviceTotalMem) device_total_mem = nullptr;
  decltype(&::cuFuncGetAttribute) func_get_attribute = nullptr;
  decltype(&::cuKernelGetAttribute) kernel_get_attribute = nullptr;
  decltype(&::cuStreamIsCapturing) stream_is_capturing = nullptr;
  decltype(&::cuStreamGetId) stream_get_id = nullptr;
  decltype(&::cuGraphGetNodes) graph_get_nodes = nullptr;
  decltype(&::cuGraphNodeGetType) graph_node_get_type = nullptr;
  decltype(&::cuGraphKernelNodeGetParams) graph_kernel_node_get_params = nullptr;
  decltype(&::cuFuncGetName) func_get_name = nullptr;
  decltype(&::cuKernelGetName) kernel_get_name = nullptr;
  // A function's module loaded before its range is pushed (launch_tracking.cpp); null on a
  // driver older than CUDA 12.4, where loading stays inside the launch.
  decltype(&::cuKernelGetFunction) kernel_get_function = nullptr;
  decltype(&::cuFuncIsLoaded) func_is_loaded = nullptr;
  decltype(&::cuFuncLoad) func_load = nullptr;
  // Graph launches profiled node by node (graph_replay.cpp).
  decltype(&::cuGraphGetEdges) graph_get_edges = nullptr;
  decltype(&::cuGraphNodeGetEnabled) graph_node_get_enabled = nullptr;
  decltype(&::cuGraphNodeSetEnabled) graph_node_set_enabled = nullptr;
  decltype(&::cuGraphLaunch) graph_launch = nullptr;
  decltype(&::cuGraphLaunch) graph_launch_ptsz = nullptr;  // the app's launch used the per-thread default stream
  // The app's graphs kept alive for that (kept_graphs.cpp).
  decltype(&::cuGraphCreate) graph_create = nullptr;
  decltype(&::cuGraphDestroy) graph_destroy = nullptr;
  // The L2 flush of --cache-control all (l2_flush.cpp): our own kernel, loaded from PTX.
  decltype(&::cuModuleLoadData) module_load_data = nullptr;
  decltype(&::cuModuleGetFunction) module_get_function = nullptr;
  decltype(&::cuModuleUnload) module_unload = nullptr;
  decltype(&::cuMemAlloc) mem_alloc = nullptr;
  decltype(&::cuMemFree) mem_free = nullptr;
  decltype(&::cuMemsetD8) memset_d8 = nullptr;
  decltype(&::cuLaunchKernel) launch_kernel = nullptr;
  decltype(&::cuStreamSynchronize) stream_synchronize = nullptr;
  decltype(&::cuStreamSynchronize) stream_synchronize_ptsz = nullptr;
};

// Loads the driver once. Throws SystemError naming the fix when there is no NVIDIA driver.
const DriverApi& driver_api();

// "CUDA_ERROR_INVALID_HANDLE" for a status, for messages.
std::string driver_error_name(CUresult status);

}  // namespace limiter::detail
