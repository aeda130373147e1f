#pragma once
// The app's NVTX calls as limiter's own NVTX tool receives them (inject/nvtx_injection.cpp, the
// NVTX_INJECTION64_PATH of `limiter run`), handed to the collector that registered for them. Each
// call comes as the CUPTI NVTX callback id and data CUPTI's NVTX callback would carry, so one
// decoder (NvtxTracker::on_call) serves both paths.
//
// NVTX calls come on any thread at any time: before a collector exists and after it is torn down
// they are dropped (as CUPTI's callback drops those outside its subscription), as are those of a
// forked child and those made inside the collector's own CUDA calls (forked_child.hpp,
// own_calls.hpp).
#include <cupti.h>

#include <chrono>

namespace limiter::detail {

// Receives one NVTX call; must not throw. USER is what register_nvtx_receiver was given.
using NvtxReceiver = void (*)(void* user, CUpti_CallbackId cbid, const CUpti_NvtxData& data) noexcept;

// From now on the calls go to RECEIVER (one at a time: a later registration replaces it).
void register_nvtx_receiver(NvtxReceiver receiver, void* user);

// Stops the calls to USER's receiver (nothing when another one is registered) and waits, up to
// WAIT, for those already inside it. True when none is left inside: USER may then go.
bool unregister_nvtx_receiver(void* user, std::chrono::milliseconds wait = std::chrono::seconds(2)) noexcept;

// What the NVTX tool made before a receiver registered (domains, registered strings: created
// once, often before CUDA and the collector start), made again through dispatch_nvtx for each
// receiver as it registers: a range in such a domain keeps the domain's name. The tool sets it.
using NvtxReplay = void (*)() noexcept;
void set_nvtx_replay(NvtxReplay replay) noexcept;

// One NVTX call, from the injection: to the receiver, if any.
void dispatch_nvtx(CUpti_CallbackId cbid, const CUpti_NvtxData& data) noexcept;

}  // namespace limiter::detail
