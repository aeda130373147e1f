#include "collect/nvtx/nvtx_tracker.hpp"

#include <generated_nvtx_meta.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <vector>

namespace limiter::detail {
namespace {

// This thread's push/pop stacks, by domain handle (nullptr: the default domain). Destroyed with
// the thread, and the main thread's before the atexit handlers and static destructors, whose
// NVTX calls then find the flag (trivial, never destroyed) set and are not followed.
using Stacks = std::map<const void*, std::vector<std::string>>;
thread_local bool thread_stacks_gone = false;
struct ThreadStacks {
  Stacks stacks;
  ~ThreadStacks() { thread_stacks_gone = true; }
};
thread_local ThreadStacks thread_stacks_of;
Stacks* thread_stacks() { return thread_stacks_gone ? nullptr : &thread_stacks_of.stacks; }

// NVTX's wide strings, for names: ASCII kept, anything else as '?'.
std::string narrow(const wchar_t* text) {
  std::string out;
  if (!text) return out;
  for (; *text; ++text) out += (*text > 0 && *text < 128) ? static_cast<char>(*text) : '?';
  return out;
}

std::string text(const char* message) { return message ? message : ""; }

// This thread's id as CUPTI writes it in API records (cuptiSetThreadIdType: pthread_self() by
// default, gettid() with the system type), so a range and the thread's calls share a track.
std::uint32_t cupti_thread_id() {
  CUpti_ActivityThreadIdType type = CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT;
  if (cuptiGetThreadIdType(&type) == CUPTI_SUCCESS && type == CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM)
    return static_cast<std::uint32_t>(syscall(SYS_gettid));
  return static_cast<std::uint32_t>(pthread_self());
}

}  // namespace

std::string NvtxTracker::domain_name(const void* domain) const {
  if (!domain) return "";
  const auto found = domains_.find(domain);
  return found == domains_.end() ? "(unnamed domain)" : found->second;
}

std::string NvtxTracker::message_of(const void* attributes) const {
  const auto* a = static_cast<const nvtxEventAttributes_t*>(attributes);
  if (!a) return "";
  switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
      return text(a->message.ascii);
    case NVTX_MESSAGE_TYPE_UNICODE:
      return narrow(a->message.unicode);
    case NVTX_MESSAGE_TYPE_REGISTERED: {
      const auto found = strings_.find(a->message.registered);
      return found == strings_.end() ? "(unregistered string)" : found->second;
    }
    default:
      return "";
  }
}

std::optional<NvtxEvent> NvtxTracker::on_call(CUpti_CallbackId cbid, const CUpti_NvtxData& data) noexcept {
  try {
    const void* params = data.functionParams;
    const void* returned = data.functionReturnValue;
    std::optional<NvtxEvent> event;  // the range call as a plain value, for the sessions
    auto named = [&](NvtxEvent::Kind kind, const void* domain, const std::string& name) {
      event.emplace();
      event->kind = kind;
      event->name = name;
      if (domain) {
        std::lock_guard lock(mutex_);
        event->domain = domain_name(domain);
      }
    };
    auto push = [&](const void* domain, std::string name) {
      seen_.store(true, std::memory_order_relaxed);
      named(NvtxEvent::Kind::push, domain, name);
      if (!process_scope_) {
        if (Stacks* stacks = thread_stacks()) (*stacks)[domain].push_back(std::move(name));
        return;
      }
      std::lock_guard lock(mutex_);
      process_stacks_[domain].push_back(std::move(name));
    };
    auto pop = [&](const void* domain) {
      named(NvtxEvent::Kind::pop, domain, "");
      std::unique_lock lock(mutex_, std::defer_lock);
      if (process_scope_) lock.lock();
      Stacks* stacks = process_scope_ ? &process_stacks_ : thread_stacks();
      if (!stacks) return;
      auto found = stacks->find(domain);
      if (found != stacks->end() && !found->second.empty()) found->second.pop_back();
    };
    // Start/end ranges are process-wide: NVTX gives the id back, End names it.
    auto start = [&](const void* domain, std::string name) {
      seen_.store(true, std::memory_order_relaxed);
      if (!returned) {
        unmatched_.fetch_add(1, std::memory_order_relaxed);
        return;
      }
      const auto id = *static_cast<const nvtxRangeId_t*>(returned);
      named(NvtxEvent::Kind::start, domain, name);
      event->id = id;
      std::lock_guard lock(mutex_);
      start_end_[id] = {event->domain, std::move(name)};
    };
    auto end = [&](nvtxRangeId_t id) {
      named(NvtxEvent::Kind::end, nullptr, "");
      event->id = id;
      std::lock_guard lock(mutex_);
      start_end_.erase(id);
    };
    switch (cbid) {
      case CUPTI_CBID_NVTX_nvtxRangePushA:
        push(nullptr, text(static_cast<const nvtxRangePushA_params*>(params)->message));
        break;
      case CUPTI_CBID_NVTX_nvtxRangePushW:
        push(nullptr, narrow(static_cast<const nvtxRangePushW_params*>(params)->message));
        break;
      case CUPTI_CBID_NVTX_nvtxRangePushEx: {
        std::unique_lock lock(mutex_);
        std::string name = message_of(static_cast<const nvtxRangePushEx_params*>(params)->eventAttrib);
        lock.unlock();
        push(nullptr, std::move(name));
        break;
      }
      case CUPTI_CBID_NVTX_nvtxRangePop:
        pop(nullptr);
        break;
      case CUPTI_CBID_NVTX_nvtxDomainRangePushEx: {
        const auto* p = static_cast<const nvtxDomainRangePushEx_params*>(params);
        std::unique_lock lock(mutex_);
        std::string name = message_of(p->core.eventAttrib);
        lock.unlock();
        push(p->domain, std::move(name));
        break;
      }
      case CUPTI_CBID_NVTX_nvtxDomainRangePop:
        pop(static_cast<const nvtxDomainRangePop_params*>(params)->domain);
        break;
      case CUPTI_CBID_NVTX_nvtxRangeStartA:
        start(nullptr, text(static_cast<const nvtxRangeStartA_params*>(params)->message));
        break;
      case CUPTI_CBID_NVTX_nvtxRangeStartW:
        start(nullptr, narrow(static_cast<const nvtxRangeStartW_params*>(params)->message));
        break;
      case CUPTI_CBID_NVTX_nvtxRangeStartEx: {
        std::unique_lock lock(mutex_);
        std::string name = message_of(static_cast<const nvtxRangeStartEx_params*>(params)->eventAttrib);
        lock.unlock();
        start(nullptr, std::move(name));
        break;
      }
      case CUPTI_CBID_NVTX_nvtxDomainRangeStartEx: {
        const auto* p = static_cast<const nvtxDomainRangeStartEx_params*>(params);
        std::unique_lock lock(mutex_);
        std::string name = message_of(p->core.eventAttrib);
        lock.unlock();
        start(p->domain, std::move(name));
        break;
      }
      case CUPTI_CBID_NVTX_nvtxRangeEnd:
        end(static_cast<const nvtxRangeEnd_params*>(params)->id);
        break;
      case CUPTI_CBID_NVTX_nvtxDomainRangeEnd:
        end(static_cast<const nvtxDomainRangeEnd_params*>(params)->core.id);
        break;
      case CUPTI_CBID_NVTX_nvtxDomainCreateA: {  // the W form has no params struct in CUPTI 13.0
        if (!returned) break;                    // unnamed: its ranges show "(unnamed domain)"
        const void* handle = *static_cast<const nvtxDomainHandle_t*>(returned);
        std::lock_guard lock(mutex_);
        domains_[handle] = text(static_cast<const nvtxDomainCreateA_params*>(params)->name);
        break;
      }
      case CUPTI_CBID_NVTX_nvtxDomainRegisterStringA: {
        if (!returned) break;
        const void* handle = *static_cast<const nvtxStringHandle_t*>(returned);
        std::lock_guard lock(mutex_);
        strings_[handle] = text(static_cast<const nvtxDomainRegisterStringA_params*>(params)->string);
        break;
      }
      default:
        break;
    }
    return event;
  } catch (...) {
    // Out of memory in a callback: the app runs on; this call's range is not followed.
  }
  return std::nullopt;
}

void NvtxTracker::stamp(NvtxEvent& event) noexcept {
  thread_local const std::uint32_t thread = cupti_thread_id();  // looked up once per thread
  std::uint64_t now = 0;
  event.time_ns = cuptiGetTimestamp(&now) == CUPTI_SUCCESS ? now : 0;
  event.thread_id = thread;
}

NvtxRanges NvtxTracker::current() const {
  NvtxRanges ranges;
  if (!seen()) return ranges;
  std::lock_guard lock(mutex_);
  if (const Stacks* stacks = process_scope_ ? &process_stacks_ : thread_stacks())
    for (const auto& [domain, stack] : *stacks)
      if (!stack.empty()) ranges.push_pop.push_back({domain_name(domain), stack});
  for (const auto& [id, range] : start_end_) ranges.start_end.push_back(range);
  return ranges;
}

}  // namespace limiter::detail
