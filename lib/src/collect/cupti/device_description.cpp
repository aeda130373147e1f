#include "collect/cupti/device_description.hpp"

#include <cupti_target.h>

#include "collect/cupti/cupti_check.hpp"
#include "collect/cupti/driver_api.hpp"

namespace limiter::detail {

CUdevice device_of_context(CUcontext context) {
  const auto& cu = driver_api();
  CUdevice device = 0;
  CUcontext current = nullptr;
  const bool pushed = context && cu.ctx_push_current(context) == CUDA_SUCCESS;
  const CUresult status = cu.ctx_get_device(&device);
  if (pushed) cu.ctx_pop_current(&current);
  if (status != CUDA_SUCCESS) throw SystemError("cuCtxGetDevice failed for a profiled context");
  return device;
}

std::string device_uuid_text(CUdevice device) {
  CUuuid uuid{};
  if (driver_api().device_get_uuid(&uuid, device) != CUDA_SUCCESS) return "device-" + std::to_string(device);
  static const char* digits = "0123456789abcdef";
  std::string text = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text += '-';
    const auto byte = static_cast<unsigned char>(uuid.bytes[i]);
    text += digits[byte >> 4];
    text += digits[byte & 15];
  }
  return text;
}

DeviceDescription describe_device(CUdevice device) {
  const DriverApi& cu = driver_api();
  DeviceDescription d;
  char name[256] = {};
  cu.device_get_name(name, sizeof name, device);
  d.name = name;
  auto attribute = [&](CUdevice_attribute which) {
    int value = 0;
    cu.device_get_attribute(&value, which, device);
    return value;
  };
  d.arch = "sm_" + std::to_string(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)) +
           std::to_string(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
  d.sm_count = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  d.memory_bus_width_bits = attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  d.l2_bytes = static_cast<std::uint64_t>(attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE));
  std::size_t total = 0;
  if (cu.device_total_mem(&total, device) == CUDA_SUCCESS) d.global_memory_bytes = total;
  if (const std::string uuid = device_uuid_text(device); uuid.starts_with("GPU-")) d.uuid = uuid;
  CUpti_Device_GetChipName_Params chip{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  chip.deviceIndex = static_cast<std::size_t>(device);
  LIMITER_CUPTI_CHECK(cuptiDeviceGetChipName(&chip));
  d.chip = chip.pChipName;
  return d;
}

}  // namespace limiter::detail
