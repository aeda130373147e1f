// The kernel behind `--cache-control all` (l2_flush.cpp), compiled to PTX at build time and
// loaded by the collector into each profiled context: it reads a buffer twice the size of L2,
// so the next kernel starts with none of the app's data in L2 and no dirty line of the app's
// left to write back (a memset would leave L2 full of dirty lines, and the profiled kernel would
// pay for writing them back: kernels/src/l2_flush.cu measured that on an H200).
extern "C" __global__ void limiter_evict_l2(const uint4* __restrict__ buffer, unsigned long long count,
                                            unsigned* never_written) {
  unsigned sum = 0;
  for (unsigned long long i = blockIdx.x * 1ull * blockDim.x + threadIdx.x; i < count;
       i += 1ull * gridDim.x * blockDim.x) {
    const uint4 v = buffer[i];
    sum += v.x ^ v.y ^ v.z ^ v.w;
  }
  if (sum == 0xFFFFFFFFu) *never_written = sum;  // never (the buffer holds zeros): a use the compiler keeps
}
