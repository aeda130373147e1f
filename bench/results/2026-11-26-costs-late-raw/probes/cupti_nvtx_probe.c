/* CUPTI's own NVTX dispatch cost, apart from limiter's: LD_PRELOAD this with NVTX_INJECTION64_PATH=<libcupti>;
   it subscribes and enables CUPTI's NVTX callback domain with a callback that does nothing. */
#include <cupti.h>
#include <stdio.h>
static CUpti_SubscriberHandle subscriber;
static unsigned long calls;
static void CUPTIAPI callback(void* u, CUpti_CallbackDomain d, CUpti_CallbackId id, const void* data) {
  (void)u; (void)d; (void)id; (void)data; __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
}
__attribute__((constructor)) static void start(void) {
  CUptiResult r = cuptiSubscribe(&subscriber, callback, NULL);
  if (r == CUPTI_SUCCESS) r = cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_NVTX);
  fprintf(stderr, "cupti_nvtx_probe: subscribe+NVTX domain %d\n", (int)r);
}
__attribute__((destructor)) static void stop(void) { fprintf(stderr, "cupti_nvtx_probe: %lu NVTX callbacks\n", calls); }
