#include "collect/range/l2_flush.hpp"

#include <algorithm>
#include <string>

#include "collect/cupti/driver_api.hpp"
#include "collect/own_calls.hpp"
#include "limiter/error.hpp"

extern const char limiter_l2_flush_ptx[];  // l2_flush_kernel.cu, embedded at build time

namespace limiter::detail {
namespace {

thread_local bool own_calls = false;

void check(CUresult status, const char* what) {
  if (status != CUDA_SUCCESS)
    throw SystemError(std::string("--cache-control all: ") + what + " failed (" + driver_error_name(status) +
                      "); run with --cache-control none to measure in the app's own cache state");
}

}  // namespace

bool inside_own_calls() { return own_calls; }
OwnCalls::OwnCalls() : outer_(!own_calls) { own_calls = true; }
OwnCalls::~OwnCalls() {
  if (outer_) own_calls = false;
}

L2Flush::PerContext& L2Flush::prepared(CUcontext context) {
  auto it = contexts_.find(context);
  if (it != contexts_.end()) return it->second;
  const auto& cu = driver_api();
  CUdevice device = 0;
  check(cu.ctx_get_device(&device), "cuCtxGetDevice");
  int l2_bytes = 0, sms = 0;
  check(cu.device_get_attribute(&l2_bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device), "reading the L2 size");
  check(cu.device_get_attribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device), "reading the SM count");
  PerContext state;
  check(cu.module_load_data(&state.module, limiter_l2_flush_ptx), "loading the flush kernel (PTX JIT)");
  check(cu.module_get_function(&state.kernel, state.module, "limiter_evict_l2"), "finding the flush kernel");
  // Twice L2: the H100's L2 is two partitions, and a line may be held in both.
  const std::size_t bytes = 2 * static_cast<std::size_t>(std::max(l2_bytes, 1 << 20));
  check(cu.mem_alloc(&state.buffer, bytes + 256), "allocating the flush buffer");
  state.never_written = state.buffer + bytes;
  check(cu.memset_d8(state.buffer, 0, bytes + 256), "clearing the flush buffer");
  state.words = bytes / 16;
  state.blocks = static_cast<unsigned>(std::max(sms, 1)) * 4;  // one wave of 4 x 256 threads per SM
  return contexts_.emplace(context, state).first->second;
}

void L2Flush::before_launch(CUcontext context, CUstream stream, bool per_thread_stream) {
  const OwnCalls ours;
  std::lock_guard lock(mutex_);
  PerContext& state = prepared(context);
  const auto& cu = driver_api();
  if (!stream && per_thread_stream) stream = CU_STREAM_PER_THREAD;
  unsigned long long words = state.words;
  void* arguments[] = {&state.buffer, &words, &state.never_written};
  check(cu.launch_kernel(state.kernel, state.blocks, 1, 1, 256, 1, 1, 0, stream, arguments, nullptr),
        "launching the flush kernel");
  check(cu.stream_synchronize(stream), "waiting for the flush kernel");
}

void L2Flush::release(CUcontext context) noexcept {
  const OwnCalls ours;
  std::lock_guard lock(mutex_);
  auto it = contexts_.find(context);
  if (it == contexts_.end()) return;
  const auto& cu = driver_api();
  (void)cu.mem_free(it->second.buffer);
  (void)cu.module_unload(it->second.module);
  contexts_.erase(it);
}

}  // namespace limiter::detail
