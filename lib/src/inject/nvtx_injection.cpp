// limiter's own NVTX tool (nvtx_injection.hpp): one function per NVTX range call, each building
// the params struct CUPTI's NVTX callback would carry (generated_nvtx_meta.h) and its return value.
#define NVTX_NO_IMPL  // a tool: NVTX's types and ids, not its implementation
#include "inject/nvtx_injection.hpp"

#include <generated_nvtx_meta.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "collect/nvtx/nvtx_dispatch.hpp"

namespace {

void deliver(CUpti_CallbackId cbid, const char* function, const void* params, const void* returned) noexcept {
  const CUpti_NvtxData data{function, params, returned};
  limiter::detail::dispatch_nvtx(cbid, data);
}

// This thread's push/pop depth per domain (nullptr: the default domain, kept apart: most calls).
// The list is destroyed with its thread, and the main thread's before the atexit handlers and
// static destructors, whose NVTX calls (a library's scoped range) would write freed memory:
// once it is gone, the flag (trivial, never destroyed) says so and the calls get NVTX's error.
thread_local int default_depth = 0;
thread_local bool domain_depths_gone = false;
struct DomainDepths {
  std::vector<std::pair<const void*, int>> list;
  ~DomainDepths() { domain_depths_gone = true; }
};
thread_local DomainDepths domain_depths;

int* depth_of(const void* domain) noexcept {
  if (!domain) return &default_depth;
  if (domain_depths_gone) return nullptr;
  for (auto& [handle, depth] : domain_depths.list)
    if (handle == domain) return &depth;
  try {
    return &domain_depths.list.emplace_back(domain, 0).second;
  } catch (...) {
    return nullptr;  // out of memory: NVTX's error value
  }
}

int pushed(const void* domain) noexcept {
  int* depth = depth_of(domain);
  return depth ? (*depth)++ : -1;  // the 0-based level of the range begun
}

int popped(const void* domain) noexcept {
  int* depth = depth_of(domain);
  if (!depth || *depth == 0) return -1;  // nothing to pop
  return --*depth;                       // the level of the range ended
}

std::atomic<nvtxRangeId_t> next_range_id{1};

nvtxRangeId_t new_range_id() noexcept { return next_range_id.fetch_add(1, std::memory_order_relaxed); }

// Domain and registered-string handles: the address of a name kept for the process's life, one
// per domain name and per string of a domain. Never destroyed: NVTX calls go on during exit.
struct Handles {
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<std::string>> domains;
  std::map<std::pair<const void*, std::string>, std::unique_ptr<std::string>> strings;
};
Handles& handles() {
  static auto* kept = new Handles;
  return *kept;
}

std::string* kept_name(std::unique_ptr<std::string>& slot, const std::string& name) {
  if (!slot) slot = std::make_unique<std::string>(name);
  return slot.get();
}

// NVTX's wide strings in UTF-8 (CUPTI has no params struct for the W forms of DomainCreate and
// DomainRegisterString, so they go on as the A forms): two names that differ stay two handles.
std::string utf8(const wchar_t* text) {
  std::string out;
  for (; text && *text; ++text) {
    auto c = static_cast<std::uint32_t>(*text);
    if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) c = 0xFFFD;  // not a code point: the replacement
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

// A push in DOMAIN (nullptr: the default one): its level first, then the call as CUPTI's.
template <typename Params>
int push(CUpti_CallbackId cbid, const char* function, const void* domain, const Params& params) noexcept {
  const int level = pushed(domain);
  deliver(cbid, function, &params, &level);
  return level;
}

// A pop in DOMAIN: the level it ends (or NVTX's error value), then the call.
template <typename Params>
int pop(CUpti_CallbackId cbid, const char* function, const void* domain, const Params& params) noexcept {
  const int level = popped(domain);
  deliver(cbid, function, &params, &level);
  return level;
}

// A start/end range: a new process-unique id, then the call.
template <typename Params>
nvtxRangeId_t start(CUpti_CallbackId cbid, const char* function, const Params& params) noexcept {
  const nvtxRangeId_t id = new_range_id();
  deliver(cbid, function, &params, &id);
  return id;
}

int range_push_a(const char* message) noexcept {
  return push(CUPTI_CBID_NVTX_nvtxRangePushA, "nvtxRangePushA", nullptr, nvtxRangePushA_params{message});
}

int range_push_w(const wchar_t* message) noexcept {
  return push(CUPTI_CBID_NVTX_nvtxRangePushW, "nvtxRangePushW", nullptr, nvtxRangePushW_params{message});
}

int range_push_ex(const nvtxEventAttributes_t* attributes) noexcept {
  return push(CUPTI_CBID_NVTX_nvtxRangePushEx, "nvtxRangePushEx", nullptr, nvtxRangePushEx_params{attributes});
}

int range_pop() noexcept { return pop(CUPTI_CBID_NVTX_nvtxRangePop, "nvtxRangePop", nullptr, nvtxRangePop_params{}); }

nvtxRangeId_t range_start_a(const char* message) noexcept {
  return start(CUPTI_CBID_NVTX_nvtxRangeStartA, "nvtxRangeStartA", nvtxRangeStartA_params{message});
}

nvtxRangeId_t range_start_w(const wchar_t* message) noexcept {
  return start(CUPTI_CBID_NVTX_nvtxRangeStartW, "nvtxRangeStartW", nvtxRangeStartW_params{message});
}

nvtxRangeId_t range_start_ex(const nvtxEventAttributes_t* attributes) noexcept {
  return start(CUPTI_CBID_NVTX_nvtxRangeStartEx, "nvtxRangeStartEx", nvtxRangeStartEx_params{attributes});
}

void range_end(nvtxRangeId_t id) noexcept {
  const nvtxRangeEnd_params params{id};
  deliver(CUPTI_CBID_NVTX_nvtxRangeEnd, "nvtxRangeEnd", &params, nullptr);
}

int domain_range_push_ex(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes) noexcept {
  return push(CUPTI_CBID_NVTX_nvtxDomainRangePushEx, "nvtxDomainRangePushEx", domain,
              nvtxDomainRangePushEx_params{domain, {attributes}});
}

int domain_range_pop(nvtxDomainHandle_t domain) noexcept {
  return pop(CUPTI_CBID_NVTX_nvtxDomainRangePop, "nvtxDomainRangePop", domain, nvtxDomainRangePop_params{domain});
}

nvtxRangeId_t domain_range_start_ex(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes) noexcept {
  return start(CUPTI_CBID_NVTX_nvtxDomainRangeStartEx, "nvtxDomainRangeStartEx",
               nvtxDomainRangeStartEx_params{domain, {attributes}});
}

void domain_range_end(nvtxDomainHandle_t domain, nvtxRangeId_t id) noexcept {
  const nvtxDomainRangeEnd_params params{domain, {id}};
  deliver(CUPTI_CBID_NVTX_nvtxDomainRangeEnd, "nvtxDomainRangeEnd", &params, nullptr);
}

nvtxDomainHandle_t create_domain(const std::string& name) noexcept {
  nvtxDomainHandle_t domain = nullptr;
  try {
    auto& all = handles();
    std::lock_guard lock(all.mutex);
    // The handle is opaque to NVTX and the app: ours is the address of the kept name.
    domain = reinterpret_cast<nvtxDomainHandle_t>(kept_name(all.domains[name], name));
  } catch (...) {
    return nullptr;  // out of memory: an unnamed domain
  }
  const nvtxDomainCreateA_params params{name.c_str()};
  deliver(CUPTI_CBID_NVTX_nvtxDomainCreateA, "nvtxDomainCreateA", &params, &domain);
  return domain;
}

nvtxDomainHandle_t domain_create_a(const char* name) noexcept {
  try {
    return create_domain(name ? name : "");
  } catch (...) {
    return nullptr;
  }
}

nvtxDomainHandle_t domain_create_w(const wchar_t* name) noexcept {
  try {
    return create_domain(utf8(name));
  } catch (...) {
    return nullptr;
  }
}

void domain_destroy(nvtxDomainHandle_t domain) noexcept {
  const nvtxDomainDestroy_params params{domain};  // the handle stays valid: never reused
  deliver(CUPTI_CBID_NVTX_nvtxDomainDestroy, "nvtxDomainDestroy", &params, nullptr);
}

nvtxStringHandle_t register_string(nvtxDomainHandle_t domain, const std::string& text) noexcept {
  nvtxStringHandle_t handle = nullptr;
  try {
    auto& all = handles();
    std::lock_guard lock(all.mutex);
    handle = reinterpret_cast<nvtxStringHandle_t>(kept_name(all.strings[{domain, text}], text));
  } catch (...) {
    return nullptr;
  }
  const nvtxDomainRegisterStringA_params params{domain, text.c_str()};
  deliver(CUPTI_CBID_NVTX_nvtxDomainRegisterStringA, "nvtxDomainRegisterStringA", &params, &handle);
  return handle;
}

nvtxStringHandle_t domain_register_string_a(nvtxDomainHandle_t domain, const char* text) noexcept {
  try {
    return register_string(domain, text ? text : "");
  } catch (...) {
    return nullptr;
  }
}

nvtxStringHandle_t domain_register_string_w(nvtxDomainHandle_t domain, const wchar_t* text) noexcept {
  try {
    return register_string(domain, utf8(text));
  } catch (...) {
    return nullptr;
  }
}

// The domains and registered strings made so far, created again for a receiver that registers
// after them (nvtx_dispatch.hpp: NVTX starts at the app's first call, often before CUDA's).
void replay_handles() noexcept {
  try {
    std::vector<std::pair<std::string, nvtxDomainHandle_t>> domains;
    std::vector<std::tuple<nvtxDomainHandle_t, std::string, nvtxStringHandle_t>> strings;
    {
      auto& all = handles();
      std::lock_guard lock(all.mutex);
      for (const auto& [name, kept] : all.domains)
        domains.emplace_back(name, reinterpret_cast<nvtxDomainHandle_t>(kept.get()));
      for (const auto& [key, kept] : all.strings)
        strings.emplace_back(static_cast<nvtxDomainHandle_t>(const_cast<void*>(key.first)), key.second,
                             reinterpret_cast<nvtxStringHandle_t>(kept.get()));
    }
    for (const auto& [name, domain] : domains) {
      const nvtxDomainCreateA_params params{name.c_str()};
      deliver(CUPTI_CBID_NVTX_nvtxDomainCreateA, "nvtxDomainCreateA", &params, &domain);
    }
    for (const auto& [domain, text, handle] : strings) {
      const nvtxDomainRegisterStringA_params params{domain, text.c_str()};
      deliver(CUPTI_CBID_NVTX_nvtxDomainRegisterStringA, "nvtxDomainRegisterStringA", &params, &handle);
    }
  } catch (...) {
    // Out of memory: those ranges show their domain unnamed, as before a receiver.
  }
}

struct Slot {
  NvtxCallbackModule module;
  unsigned id;
  NvtxFunctionPointer function;
};

template <typename Function>
NvtxFunctionPointer generic(Function function) {
  return reinterpret_cast<NvtxFunctionPointer>(function);
}

// Marks, categories, thread and resource names stay unset: NVTX makes them no-ops.
const Slot kSlots[] = {
    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushA, generic(range_push_a)},
    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushW, generic(range_push_w)},
    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushEx, generic(range_push_ex)},
    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePop, generic(range_pop)},
    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangeStartA, generic(range_start_a)},
    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangeStartW, generic(range_start_w)},
    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangeStartEx, generic(range_start_ex)},
    {NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangeEnd, generic(range_end)},
    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePushEx, generic(domain_range_push_ex)},
    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePop, generic(domain_range_pop)},
    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangeStartEx, generic(domain_range_start_ex)},
    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangeEnd, generic(domain_range_end)},
    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainCreateA, generic(domain_create_a)},
    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainCreateW, generic(domain_create_w)},
    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainDestroy, generic(domain_destroy)},
    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRegisterStringA, generic(domain_register_string_a)},
    {NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRegisterStringW, generic(domain_register_string_w)},
};

}  // namespace

extern "C" int InitializeInjectionNvtx2(const void* (*get_export_table)(std::uint32_t export_table_id)) {
  if (!get_export_table) return 0;
  const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  if (!callbacks || callbacks->struct_size < sizeof(NvtxExportTableCallbacks) || !callbacks->GetModuleFunctionTable)
    return 0;
  for (const Slot& slot : kSlots) {
    NvtxFunctionTable table = nullptr;
    unsigned int size = 0;
    if (!callbacks->GetModuleFunctionTable(slot.module, &table, &size) || !table || slot.id >= size || !table[slot.id])
      continue;  // an older NVTX without this function
    *table[slot.id] = slot.function;
  }
  limiter::detail::set_nvtx_replay(replay_handles);
  return 1;
}
