// A CUDA application with known answers for the collector's GPU tests and the ncu
// comparison: plain launches, cudaLaunchKernelEx, two threads on their own streams, and a
// captured 3-kernel graph launched twice, a memset + 2-kernel graph destroyed after its
// instantiation (as PyTorch does) launched twice, an eager launch after them; with
// COLLECTOR_APP_THREADS_AFTER_GRAPHS=1, the two threads once more after that (user ranges
// after the first graph launch). Every `increment` adds 1 to one buffer, so the app's own result
// (printed, and its exit code) shows whether profiling disturbed it.
//   copy_floats       reads and writes exactly 64 MiB: 2,097,152 L1 sectors each way
//   local_store_only  stores 16 words per thread to a local array: 16 x 4 sectors per warp
//   fixed_loop        a loop of known length (instruction counts compared with ncu)
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#define CHECK(call)                                                                \
  do {                                                                             \
    cudaError_t status_ = (call);                                                  \
    if (status_ != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(status_)); \
      return 2;                                                                    \
    }                                                                              \
  } while (0)

constexpr int kCopyFloats = 16 << 20;  // 64 MiB
constexpr int kThreads = 256;

__global__ void copy_floats(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

__global__ void increment(float* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1.0f;
}

// Indexed by a value known only at run time, the array must live in local memory: 16
// four-byte stores per thread, then one load.
__global__ void local_store_only(int* out, int seed) {
  int scratch[16];
  for (int k = 0; k < 16; ++k) scratch[(k + seed) & 15] = seed + k + threadIdx.x;
  out[blockIdx.x * blockDim.x + threadIdx.x] = scratch[(seed + threadIdx.x) & 15];
}

__global__ void fixed_loop(float* out, int iterations) {
  float a = threadIdx.x;
  for (int i = 0; i < iterations; ++i) a = a * 0.999f + 0.5f;
  out[blockIdx.x * blockDim.x + threadIdx.x] = a;
}

// Two threads, three launches each, on their own streams (serialised on one buffer by events
// would cost the test its concurrency; separate halves keep it race-free).
void two_threads(float* counter, int n, int blocks) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([=] {
      cudaStream_t stream;
      cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
      for (int k = 0; k < 3; ++k) increment<<<blocks / 2, kThreads, 0, stream>>>(counter + t * (n / 2), n / 2);
      cudaStreamSynchronize(stream);
      cudaStreamDestroy(stream);
    });
  }
  for (auto& thread : threads) thread.join();
}

int main() {
  const int n = 1 << 20, blocks = n / kThreads;
  float *counter, *in, *out;
  int* local_out;
  CHECK(cudaMalloc(&counter, n * sizeof(float)));
  CHECK(cudaMemset(counter, 0, n * sizeof(float)));
  CHECK(cudaMalloc(&in, kCopyFloats * sizeof(float)));
  CHECK(cudaMalloc(&out, kCopyFloats * sizeof(float)));
  CHECK(cudaMemset(in, 0, kCopyFloats * sizeof(float)));
  CHECK(cudaMalloc(&local_out, 132 * 4 * kThreads * sizeof(int)));
  int expected = 0;

  copy_floats<<<kCopyFloats / kThreads, kThreads>>>(in, out, kCopyFloats);
  local_store_only<<<132 * 4, kThreads>>>(local_out, 7);
  fixed_loop<<<132, kThreads>>>(out, 1000);

  increment<<<blocks, kThreads>>>(counter, n);  // 1: <<<>>>
  ++expected;
  cudaLaunchConfig_t config = {};
  config.gridDim = blocks;
  config.blockDim = kThreads;
  CHECK(cudaLaunchKernelEx(&config, increment, counter, n));  // 2: cudaLaunchKernelEx
  ++expected;
  CHECK(cudaDeviceSynchronize());

  two_threads(counter, n, blocks);  // 3-8
  expected += 3;

  // A graph of three increments, captured (nothing may run during capture) and launched twice.
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph;
  cudaGraphExec_t graph_exec;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  for (int k = 0; k < 3; ++k) increment<<<blocks, kThreads, 0, stream>>>(counter, n);
  CHECK(cudaStreamEndCapture(stream, &graph));
  CHECK(cudaGraphInstantiate(&graph_exec, graph, 0));
  for (int launch = 0; launch < 2; ++launch) CHECK(cudaGraphLaunch(graph_exec, stream));
  CHECK(cudaStreamSynchronize(stream));
  expected += 6;

  // As PyTorch does: a graph (a memset node, then two increments) destroyed right after its
  // instantiation, its exec launched twice; then an eager launch after the graphs.
  float* scratch = nullptr;
  CHECK(cudaMalloc(&scratch, 1024));
  cudaGraph_t torch_like;
  cudaGraphExec_t torch_like_exec;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  CHECK(cudaMemsetAsync(scratch, 0, 1024, stream));
  for (int k = 0; k < 2; ++k) increment<<<blocks, kThreads, 0, stream>>>(counter, n);
  CHECK(cudaStreamEndCapture(stream, &torch_like));
  CHECK(cudaGraphInstantiate(&torch_like_exec, torch_like, 0));
  CHECK(cudaGraphDestroy(torch_like));
  for (int launch = 0; launch < 2; ++launch) CHECK(cudaGraphLaunch(torch_like_exec, stream));
  CHECK(cudaStreamSynchronize(stream));
  expected += 4;
  increment<<<blocks, kThreads>>>(counter, n);
  CHECK(cudaDeviceSynchronize());
  expected += 1;
  const char* again = std::getenv("COLLECTOR_APP_THREADS_AFTER_GRAPHS");
  if (again && std::strcmp(again, "1") == 0) {
    two_threads(counter, n, blocks);
    expected += 3;
  }

  std::vector<float> host(n);
  CHECK(cudaMemcpy(host.data(), counter, n * sizeof(float), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (float value : host) wrong += value != float(expected);
  std::printf("collector_app: counter %s (expected %d everywhere, %d wrong)\n", wrong ? "WRONG" : "ok", expected,
              wrong);
  CHECK(cudaGraphExecDestroy(graph_exec));
  CHECK(cudaGraphExecDestroy(torch_like_exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaFree(scratch));
  return wrong ? 1 : 0;
}
