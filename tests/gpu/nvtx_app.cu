// NVTX ranges of every kind around known kernels, for the NVTX GPU test: push/pop ranges
// (nested), a domain with a registered string, and a start/end range. The first NVTX call comes
// before CUDA is initialised (NVTX then loads its injection, before limiter's collector exists).
// Each kernel adds 1 to a counter; the app checks the total.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <thread>

__global__ void in_outer(int* counter) { atomicAdd(counter, 1); }
__global__ void in_inner(int* counter) { atomicAdd(counter, 1); }
__global__ void in_domain(int* counter) { atomicAdd(counter, 1); }
__global__ void in_registered(int* counter) { atomicAdd(counter, 1); }
__global__ void in_phase(int* counter) { atomicAdd(counter, 1); }
__global__ void outside(int* counter) { atomicAdd(counter, 1); }
__global__ void from_thread(int* counter) { atomicAdd(counter, 1); }

nvtxEventAttributes_t attributes() {
  nvtxEventAttributes_t a{};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  return a;
}

int main() {
  nvtxMarkA("before CUDA");  // NVTX initialises here: limiter run set NVTX_INJECTION64_PATH already
  int* counter = nullptr;
  if (cudaMalloc(&counter, sizeof(int)) != cudaSuccess) return 2;
  nvtxRangePushA("outer");
  cudaMemset(counter, 0, sizeof(int));
  in_outer<<<1, 32>>>(counter);
  nvtxRangePushA("inner");
  in_inner<<<1, 32>>>(counter);
  nvtxRangePop();
  nvtxRangePop();

  nvtxDomainHandle_t domain = nvtxDomainCreateA("lib");
  nvtxEventAttributes_t work = attributes();
  work.messageType = NVTX_MESSAGE_TYPE_ASCII;
  work.message.ascii = "work";
  nvtxDomainRangePushEx(domain, &work);
  in_domain<<<1, 32>>>(counter);
  nvtxDomainRangePop(domain);
  nvtxEventAttributes_t registered = attributes();
  registered.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  registered.message.registered = nvtxDomainRegisterStringA(domain, "registered");
  nvtxDomainRangePushEx(domain, &registered);
  in_registered<<<1, 32>>>(counter);
  nvtxDomainRangePop(domain);

  const nvtxRangeId_t phase = nvtxRangeStartA("phase");
  in_phase<<<1, 32>>>(counter);
  nvtxRangeEnd(phase);
  outside<<<1, 32>>>(counter);

  // Pushed here, launched by another thread (as PyTorch's backward): inside "waiting" only
  // with --nvtx-push-pop-scope process.
  nvtxRangePushA("waiting");
  std::thread([counter] {
    from_thread<<<1, 32>>>(counter);
    cudaDeviceSynchronize();
  }).join();
  nvtxRangePop();

  int total = 0;
  cudaMemcpy(&total, counter, sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(counter);
  if (total != 7 * 32) {
    std::fprintf(stderr, "nvtx_app: counter %d, expected %d\n", total, 7 * 32);
    return 1;
  }
  std::printf("nvtx_app: 7 kernels in NVTX ranges, counter %d\n", total);
  return 0;
}
