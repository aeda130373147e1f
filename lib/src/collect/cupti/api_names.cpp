// CUPTI's API function names by callback id (api_names.hpp).
#include "collect/cupti/api_names.hpp"

#include <cupti.h>

namespace limiter::detail {

namespace {

std::vector<std::string> names_of(CUpti_CallbackDomain domain, std::size_t size) {
  std::vector<std::string> out(size);
  for (std::size_t id = 0; id < out.size(); ++id) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(domain, static_cast<std::uint32_t>(id), &name) == CUPTI_SUCCESS && name) out[id] = name;
  }
  return out;
}

}  // namespace

const std::vector<std::string>& driver_api_names() {
  static const std::vector<std::string> names = names_of(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE);
  return names;
}

const std::vector<std::string>& runtime_api_names() {
  static const std::vector<std::string> names = names_of(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE);
  return names;
}

}  // namespace limiter::detail
