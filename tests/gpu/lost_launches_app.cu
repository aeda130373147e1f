// A CUDA program that ends at a known point, for the "nothing lost" GPU tests: N launches of a
// tiny kernel, then a synchronisation of some kind and a kill, a crash, an abort, a signal or
// an exit. Every launch completes on the GPU before the end, so each must be in the record.
//   lost_launches_app MODE N [PROCESSES]
// MODE: sync-kill, memcpy-kill, event-kill, query-kill, age-kill, segv, abort, term, exit,
//       processes (PROCESSES children, forked before CUDA starts, each N launches then exit 0),
//       phases-term / phases-exit N MS (N launches, then launches for MS ms, then SIGTERM or exit 0)
#include <cuda_runtime.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

__global__ void kill_point_kernel(int* marks, int index) {
  if (threadIdx.x == 0 && blockIdx.x == 0) marks[index] = index + 1;
}

namespace {

#define CHECK(call)                                                               \
  do {                                                                            \
    const cudaError_t error_ = (call);                                            \
    if (error_ != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(error_)); \
      std::exit(2);                                                               \
    }                                                                             \
  } while (0)

int* marks = nullptr;

void launch(int count, int first = 0) {
  for (int i = first; i < first + count; ++i) kill_point_kernel<<<1, 32>>>(marks, i);
  CHECK(cudaGetLastError());
}

// Sync every few launches, as a training step would; the last ones wait for the end.
int child_process(int launches) {
  CHECK(cudaMalloc(&marks, sizeof(int) * static_cast<std::size_t>(launches + 1)));
  for (int i = 0; i < launches; ++i) {
    launch(1, i);
    if (i % 16 == 15) CHECK(cudaDeviceSynchronize());
  }
  CHECK(cudaDeviceSynchronize());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s MODE LAUNCHES [PROCESSES]\n", argv[0]);
    return 2;
  }
  const std::string mode = argv[1];
  const int n = std::atoi(argv[2]);
  if (mode == "processes") {
    const int processes = argc > 3 ? std::atoi(argv[3]) : 2;
    const auto started = std::chrono::steady_clock::now();
    for (int p = 0; p < processes; ++p)
      if (fork() == 0) std::exit(child_process(n));  // exit(): the child's exit handlers write its record
    int failures = 0;
    for (int p = 0; p < processes; ++p) {
      int status = 0;
      wait(&status);
      failures += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::printf("%d processes x %d launches: %.3f s, %d failed\n", processes, n, seconds, failures);
    return failures ? 1 : 0;
  }
  if (mode == "phases-term" || mode == "phases-exit") {
    // The default run's phases: N launches, then more for MS milliseconds (a sync every 16), then
    // SIGTERM or exit(0): the test picks the phase the app ends in with --stall-window.
    const int ms = argc > 3 ? std::atoi(argv[3]) : 0;
    CHECK(cudaMalloc(&marks, sizeof(int) * 16));
    // 97 launch configurations (grids 1..97): the counters phase profiles 3 of each, ~0.5 s.
    int launched = 0;
    for (int i = 0; i < n; ++i, ++launched) kill_point_kernel<<<1 + launched % 97, 32>>>(marks, i % 16);
    CHECK(cudaDeviceSynchronize());
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (std::chrono::steady_clock::now() < until) {
      for (int i = 0; i < 16; ++i, ++launched) kill_point_kernel<<<1 + launched % 97, 32>>>(marks, i);
      CHECK(cudaDeviceSynchronize());
    }
    if (mode == "phases-term") raise(SIGTERM);
    std::exit(0);
  }
  CHECK(cudaMalloc(&marks, sizeof(int) * static_cast<std::size_t>(n + 2)));
  CHECK(cudaMemset(marks, 0, sizeof(int) * static_cast<std::size_t>(n + 2)));
  launch(n);
  int host_mark = 0;
  if (mode == "sync-kill") {
    CHECK(cudaDeviceSynchronize());
    raise(SIGKILL);
  } else if (mode == "memcpy-kill") {
    CHECK(cudaMemcpy(&host_mark, marks + n - 1, sizeof(int), cudaMemcpyDeviceToHost));
    raise(SIGKILL);
  } else if (mode == "event-kill") {
    cudaEvent_t done;
    CHECK(cudaEventCreate(&done));
    CHECK(cudaEventRecord(done));
    CHECK(cudaEventSynchronize(done));
    raise(SIGKILL);
  } else if (mode == "query-kill") {
    cudaEvent_t done;
    CHECK(cudaEventCreate(&done));
    CHECK(cudaEventRecord(done));
    while (cudaEventQuery(done) != cudaSuccess) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // queries decode batches a second old
    if (cudaEventQuery(done) != cudaSuccess) return 3;
    raise(SIGKILL);
  } else if (mode == "age-kill") {
    std::this_thread::sleep_for(std::chrono::milliseconds(1200));  // no synchronisation at all
    launch(1, n);  // a launch after a second: the batch before it is decoded
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    raise(SIGKILL);
  } else if (mode == "segv") {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the kernels complete; nobody synchronises
    volatile int* null_pointer = nullptr;
    *null_pointer = 1;
  } else if (mode == "abort") {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::abort();
  } else if (mode == "term") {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    raise(SIGTERM);
  } else if (mode == "exit") {
    std::exit(3);  // no synchronisation: the exit handler decodes
  }
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}
