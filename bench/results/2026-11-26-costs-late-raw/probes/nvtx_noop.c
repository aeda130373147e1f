/* A do-nothing NVTX tool: the app sees a tool attached (its NVTX calls reach these functions), no work is done.
   Used to split JAX's cost under `limiter run --trace` into XLA's own (any tool) and limiter's. */
#include <nvtx3/nvToolsExt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
static unsigned long pushes, pops, bytes;
static void count(const nvtxEventAttributes_t* a) {
  __atomic_add_fetch(&pushes, 1, __ATOMIC_RELAXED);
  if (a && a->messageType == NVTX_MESSAGE_TYPE_ASCII && a->message.ascii) __atomic_add_fetch(&bytes, strlen(a->message.ascii), __ATOMIC_RELAXED);
}
__attribute__((destructor)) static void report(void) { fprintf(stderr, "nvtx_noop: %lu pushes, %lu pops, %lu ascii message bytes\n", pushes, pops, bytes); }
static int push_a(const char* m) { __atomic_add_fetch(&pushes, 1, __ATOMIC_RELAXED); if (m) __atomic_add_fetch(&bytes, strlen(m), __ATOMIC_RELAXED); return 0; }
static int push_ex(const nvtxEventAttributes_t* a) { count(a); return 0; }
static int pop(void) { __atomic_add_fetch(&pops, 1, __ATOMIC_RELAXED); return 0; }
static void mark(const void* a) { (void)a; }
static int dpush(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) { (void)d; count(a); return 0; }
static int dpop(nvtxDomainHandle_t d) { (void)d; __atomic_add_fetch(&pops, 1, __ATOMIC_RELAXED); return 0; }
static void dmark(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) { (void)d; (void)a; }
static nvtxDomainHandle_t dcreate(const char* n) { (void)n; return (nvtxDomainHandle_t)(uintptr_t)0x1; }
static nvtxStringHandle_t dreg(nvtxDomainHandle_t d, const char* s) { (void)d; (void)s; return (nvtxStringHandle_t)(uintptr_t)0x1; }
static void ddestroy(nvtxDomainHandle_t d) { (void)d; }
static void dinit(const void* r) { (void)r; }
static void set(NvtxGetExportTableFunc_t get, NvtxCallbackModule module, int id, NvtxFunctionPointer fn) {
  const NvtxExportTableCallbacks* cb = (const NvtxExportTableCallbacks*)get(NVTX_ETID_CALLBACKS);
  NvtxFunctionTable table = 0; unsigned int size = 0;
  if (!cb || !cb->GetModuleFunctionTable(module, &table, &size) || (unsigned)id >= size) return;
  *table[id] = fn;
}
int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get) {
  set(get, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushA, (NvtxFunctionPointer)push_a);
  set(get, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushEx, (NvtxFunctionPointer)push_ex);
  set(get, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePop, (NvtxFunctionPointer)pop);
  set(get, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_MarkA, (NvtxFunctionPointer)mark);
  set(get, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePushEx, (NvtxFunctionPointer)dpush);
  set(get, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePop, (NvtxFunctionPointer)dpop);
  set(get, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainMarkEx, (NvtxFunctionPointer)dmark);
  set(get, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainCreateA, (NvtxFunctionPointer)dcreate);
  set(get, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRegisterStringA, (NvtxFunctionPointer)dreg);
  set(get, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainDestroy, (NvtxFunctionPointer)ddestroy);
  set(get, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_Initialize, (NvtxFunctionPointer)dinit);
  return 1;
}
