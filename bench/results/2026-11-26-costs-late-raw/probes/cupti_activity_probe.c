/* CUPTI's own Activity cost, apart from limiter's: LD_PRELOAD this into an app. PROBE_KINDS (comma list):
   kernel (CONCURRENT_KERNEL records), runtime (every runtime API record), sync (SYNCHRONIZATION), memcpy.
   Buffers of 4 MiB, records counted and thrown away on CUPTI's thread; flushed at exit. */
#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static unsigned long records, buffers;
static void CUPTIAPI requested(uint8_t** buffer, size_t* size, size_t* max) {
  *buffer = aligned_alloc(8, 4u << 20); *size = *buffer ? 4u << 20 : 0; *max = 0;
}
static void CUPTIAPI completed(CUcontext c, uint32_t s, uint8_t* buffer, size_t size, size_t valid) {
  (void)c; (void)s; (void)size;
  CUpti_Activity* r = NULL;
  while (cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS) __atomic_add_fetch(&records, 1, __ATOMIC_RELAXED);
  __atomic_add_fetch(&buffers, 1, __ATOMIC_RELAXED);
  free(buffer);
}
__attribute__((constructor)) static void start(void) {
  const char* kinds = getenv("PROBE_KINDS"); if (!kinds) kinds = "kernel";
  int r = cuptiActivityRegisterCallbacks(requested, completed);
  if (strstr(kinds, "kernel")) r |= cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (strstr(kinds, "runtime")) r |= cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME);
  if (strstr(kinds, "sync")) r |= cuptiActivityEnable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
  if (strstr(kinds, "memcpy")) r |= cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
  fprintf(stderr, "cupti_activity_probe: %s (%d)\n", kinds, r);
}
__attribute__((destructor)) static void stop(void) {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  fprintf(stderr, "cupti_activity_probe: %lu records in %lu buffers\n", records, buffers);
}
