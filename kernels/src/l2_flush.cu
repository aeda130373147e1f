// Evicting L2 between runs by reading a buffer twice its size. Reading rather than writing
// (cudaMemset) matters: a memset leaves L2 full of dirty lines, and the next kernel pays for
// writing them back to DRAM. With a memset flush, the event time of reduce7 on 2^25 ints was
// 51 us on an H200 against Nsight Compute's 40 us (which flushes and invalidates).
#include "suite_context.hpp"

namespace limiter::kernels::detail {
namespace {

__device__ unsigned never_written;  // the loads need a use the compiler cannot drop

__global__ void read_to_evict(const uint4* __restrict__ buffer, std::size_t count) {
  unsigned sum = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const uint4 v = buffer[i];
    sum += v.x ^ v.y ^ v.z ^ v.w;
  }
  if (sum == 0xFFFFFFFFu) never_written = sum;  // never: the buffer holds zeros
}

}  // namespace

void launch_l2_eviction(const unsigned char* buffer, std::size_t bytes, const cudaDeviceProp& device) {
  const unsigned blocks = one_wave(device, 4);
  read_to_evict<<<blocks, 256>>>(reinterpret_cast<const uint4*>(buffer), bytes / sizeof(uint4));
  LIMITER_CUDA_CHECK_LAUNCH();
}

}  // namespace limiter::kernels::detail
