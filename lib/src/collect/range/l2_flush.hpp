#pragma once
// `--cache-control all` (ncu's default, `--cache-control all`): before each exactly profiled
// launch, L2 is emptied of the app's data, so a kernel is measured from a cold L2 as Nsight
// Compute measures it. A kernel of ours (l2_flush_kernel.cu, loaded from PTX once per context)
// reads a buffer twice the size of L2 on the launch's stream, and the stream is waited for, so
// the kernel's range (a user range, pushed after this) holds none of it.
#include <cuda.h>

#include <cstddef>
#include <map>
#include <mutex>

namespace limiter::detail {

class L2Flush {
 public:
  L2Flush() = default;
  L2Flush(const L2Flush&) = delete;
  L2Flush& operator=(const L2Flush&) = delete;

  // Empties L2 before the next work on STREAM of CONTEXT (current on this thread). Throws
  // SystemError when the flush kernel cannot be loaded or run.
  void before_launch(CUcontext context, CUstream stream, bool per_thread_stream);
  // The context is being destroyed: its module and buffer go with it (freed while it exists).
  void release(CUcontext context) noexcept;

 private:
  struct PerContext {
    CUmodule module = nullptr;
    CUfunction kernel = nullptr;
    CUdeviceptr buffer = 0, never_written = 0;
    std::size_t words = 0;  // 16-byte words in the buffer
    unsigned blocks = 0;
  };
  PerContext& prepared(CUcontext context);

  std::mutex mutex_;
  std::map<CUcontext, PerContext> contexts_;
};

}  // namespace limiter::detail
