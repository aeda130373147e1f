#pragma once
// A device as a record describes it (name, architecture, SMs, memory, UUID, chip), read once
// per context through the driver and CUPTI; the exact mode and the sampler share it.
#include <cuda.h>

#include <string>

#include "limiter/record.hpp"

namespace limiter::detail {

// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" as nvidia-smi prints it, or "device-N" when the
// driver cannot tell (the counter lock's name needs one either way).
std::string device_uuid_text(CUdevice device);

// CONTEXT's device (made current for the call, then popped); throws SystemError when the driver cannot tell.
CUdevice device_of_context(CUcontext context);

// Throws SystemError when CUPTI cannot name the chip.
DeviceDescription describe_device(CUdevice device);

}  // namespace limiter::detail
