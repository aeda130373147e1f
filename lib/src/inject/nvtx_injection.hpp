#pragma once
// limiter's own NVTX tool, in liblimiter_inject.so: `limiter run` names the library in
// NVTX_INJECTION64_PATH, so the app's NVTX (v3 headers, or libnvToolsExt v2) loads it at its
// first call and calls InitializeInjectionNvtx2, which installs limiter's range functions in
// NVTX's function tables. Each answers as NVTX documents (a push returns its 0-based level in
// this thread's stack of that domain, a pop the level it ends or -1 when that stack is empty, a
// start a process-unique non-zero id, a domain or registered string a non-null handle kept for
// the process's life) and hands the call to the collector (collect/nvtx/nvtx_dispatch.hpp).
//
// Why not CUPTI's NVTX callbacks (NVTX_INJECTION64_PATH=libcupti): CUPTI's NVTX dispatch cost
// ~9 us a range (JAX on an H100, 2026-11-26: 19,000 ranges, a loop of 0.045 s took 0.23 s with
// an empty CUPTI NVTX callback); limiter's own handling of a range costs ~0.5 us.
#include <cstdint>

// NVTX's entry point (NvtxInitializeInjectionNvtxFunc_t): 1 once the functions are installed, 0
// when NVTX offers no function tables (NVTX then makes every call a no-op).
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    const void* (*get_export_table)(std::uint32_t export_table_id));
