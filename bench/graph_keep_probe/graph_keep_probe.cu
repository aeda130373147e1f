// Probe: can a profiler keep an app's CUDA graph alive after the app destroys it, so
// that the exec's nodes stay addressable by cuGraphNodeSetEnabled? PyTorch destroys the graph
// right after instantiation. Variants:
//   A: cudaGraphDestroy (runtime, as PyTorch) with a CUPTI driver ENTER callback that swaps the
//      cuGraphDestroy_params' hGraph for a dummy empty graph;
//   B: the same through cuGraphDestroy (driver);
//   C: no swap: clone before destroy, cuGraphExecUpdate(exec, clone), then the clone's nodes.
// Each prints whether the original graph is alive, whether SetEnabled accepts a node, and
// whether disabling it really kept its kernel from running.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <cstdio>
#include <vector>

__global__ void bump(int* slots, int slot) { atomicAdd(&slots[slot], 1); }

static bool swap_on = false;
static CUgraph dummy = nullptr;
static int swaps = 0;
static thread_local bool inside = false;

static void CUPTIAPI on_call(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API || cbid != CUPTI_DRIVER_TRACE_CBID_cuGraphDestroy) return;
  const auto* call = static_cast<const CUpti_CallbackData*>(data);
  if (call->callbackSite != CUPTI_API_ENTER || !swap_on || inside) return;
  auto* params = const_cast<cuGraphDestroy_params*>(static_cast<const cuGraphDestroy_params*>(call->functionParams));
  inside = true;
  CUgraph fresh = nullptr;
  cuGraphCreate(&fresh, 0);
  inside = false;
  dummy = fresh;
  params->hGraph = fresh;  // the driver destroys the dummy, if it reads the struct
  ++swaps;
}

static int variant(char which) {
  int* slots = nullptr;
  cudaMalloc(&slots, 3 * sizeof(int));
  cudaMemset(slots, 0, 3 * sizeof(int));
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cudaGraph_t graph;
  cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
  for (int s = 0; s < 3; ++s) bump<<<1, 1, 0, stream>>>(slots, s);
  cudaStreamEndCapture(stream, &graph);
  cudaGraphExec_t exec;
  cudaGraphInstantiate(&exec, graph, 0);
  size_t count = 3;
  std::vector<CUgraphNode> nodes(3);
  cuGraphGetNodes(graph, nodes.data(), &count);
  CUgraph clone = nullptr;
  std::vector<CUgraphNode> clone_nodes(3);
  if (which == 'C') {
    cuGraphClone(&clone, graph);
    for (int i = 0; i < 3; ++i) cuGraphNodeFindInClone(&clone_nodes[i], nodes[i], clone);
  }
  swaps = 0;
  swap_on = which != 'C';
  cudaError_t destroyed = which == 'B' ? (cudaError_t)cuGraphDestroy(graph) : cudaGraphDestroy(graph);
  swap_on = false;
  size_t alive_count = 0;
  CUresult alive = cuGraphGetNodes(graph, nullptr, &alive_count);
  CUresult update = CUDA_SUCCESS;
  CUgraphNode target = nodes[1];
  if (which == 'C') {
    CUgraphExecUpdateResultInfo info{};
    update = cuGraphExecUpdate(exec, clone, &info);
    target = clone_nodes[1];
  }
  CUresult off = cuGraphNodeSetEnabled(exec, target, 0);
  cudaGraphLaunch(exec, stream);
  cudaStreamSynchronize(stream);
  int host[3];
  cudaMemcpy(host, slots, sizeof host, cudaMemcpyDeviceToHost);
  CUresult on = cuGraphNodeSetEnabled(exec, target, 1);
  cudaGraphLaunch(exec, stream);
  cudaStreamSynchronize(stream);
  int after[3];
  cudaMemcpy(after, slots, sizeof after, cudaMemcpyDeviceToHost);
  std::printf(
      "variant %c: destroy=%d swaps=%d graph alive after destroy: %s (nodes %zu) update=%d set_enabled off=%d on=%d"
      " slots after off-launch %d %d %d, after on-launch %d %d %d -> %s\n",
      which, (int)destroyed, swaps, alive == CUDA_SUCCESS ? "yes" : "no", alive_count, (int)update, (int)off, (int)on,
      host[0], host[1], host[2], after[0], after[1], after[2],
      (off == CUDA_SUCCESS && host[1] == 0 && after[1] == 1 && host[0] == 1) ? "NODE CONTROL WORKS" : "no control");
  if (which != 'C' && alive == CUDA_SUCCESS) {
    inside = true;
    std::printf("  our own destroy of the kept graph: %d\n", (int)cuGraphDestroy(graph));
    inside = false;
  }
  cudaGraphExecDestroy(exec);
  cudaFree(slots);
  cudaStreamDestroy(stream);
  return 0;
}

int main() {
  cudaFree(nullptr);
  CUpti_SubscriberHandle subscriber;
  if (cuptiSubscribe(&subscriber, on_call, nullptr) != CUPTI_SUCCESS) {
    std::printf("subscribe failed\n");
    return 1;
  }
  cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphDestroy);
  variant('A');
  variant('B');
  variant('C');
  return 0;
}
