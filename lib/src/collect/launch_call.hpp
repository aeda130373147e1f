#pragma once
// The driver calls the sessions see, as plain values: decoded once from CUPTI's callback data
// (callback_decoding.cpp), so that no session casts a CUPTI structure and unit tests can make
// them by hand. The handles are the driver's, opaque; a symbol name lives as long as the call.
#include <cuda.h>

#include <cstddef>
#include <cstdint>

#include "limiter/record.hpp"

namespace limiter::detail {

// A kernel or graph launch, at its ENTER (and again at its EXIT, with `failed`).
struct LaunchCall {
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  bool per_thread_stream = false;  // the *_ptsz entry points: the per-thread default stream
  // A kernel launch (cuLaunchKernel, cuLaunchKernelEx, cuLaunchCooperativeKernel):
  CUfunction function = nullptr;
  const char* symbol_name = nullptr;  // CUPTI's mangled name, or null
  Dim3 grid, block;
  unsigned dynamic_shared_bytes = 0;
  // A graph launch (cuGraphLaunch): the executable graph, and no function.
  CUgraphExec graph = nullptr;
  std::uint32_t correlation_id = 0;
  bool failed = false;  // EXIT: the driver returned an error (the launch ran nothing)
  bool is_graph() const { return graph != nullptr; }
};

// Where the app waited for the GPU (sync_points.hpp), at the call's EXIT.
enum class SyncKind : std::uint8_t {
  wait,   // a synchronise, or a blocking copy: the GPU's work so far is done
  query,  // a successful cuStreamQuery/cuEventQuery: polled, maybe all the time
};

// The app's graphs and executable graphs coming and going (resource callbacks, cuGraphDestroy).
struct GraphEvent {
  enum class Kind : std::uint8_t {
    exec_created,        // an executable graph instantiated from `graph`
    exec_destroying,     // `exec` is about to be destroyed
    exec_destroyed,      // cuGraphExecDestroy returned
    graph_destroying,    // the driver destroys `graph` (resource callback)
    graph_destroy_call,  // the app's cuGraphDestroy, ENTER (`enter`) and EXIT; `destroy_target` is its parameter
  };
  Kind kind = Kind::exec_created;
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  std::uint32_t graph_exec_id = 0;  // CUPTI's ID of `exec`, at exec_created
  bool enter = false;
  CUgraph* destroy_target = nullptr;  // graph_destroy_call: the driver reads the graph to destroy here
};

// A module loaded into a context (resource callback): its cubin, valid only during the call.
struct ModuleLoad {
  CUcontext context = nullptr;
  std::uint32_t module_id = 0;
  const void* cubin = nullptr;
  std::size_t cubin_size = 0;
};

}  // namespace limiter::detail
