// libcupti loads libnvperf_host.so with RTLD_DEEPBIND, which AddressSanitizer refuses (it
// would bypass its malloc: google/sanitizers#611) by aborting the process. Sanitized builds
// that use the CUPTI host API link this: dlopen without that flag, through ASan's own dlopen.
#include <dlfcn.h>

extern "C" void* __interceptor_dlopen(const char* filename, int flags);

extern "C" void* dlopen(const char* filename, int flags) {
  return __interceptor_dlopen(filename, flags & ~RTLD_DEEPBIND);
}
