#pragma once
// One NVTX range call of the app as a plain value (docs/design.md §4: sessions never see CUPTI's
// callback structures). The orchestrator's NvtxTracker decodes CUPTI's NVTX callbacks into these
// (names resolved: registered strings, wide strings, domain names) and, where a session asks for
// them (SessionCallbacks::nvtx), stamps each with the time and the thread and hands it on
// (Session::on_nvtx).
#include <cstdint>
#include <string>

namespace limiter::detail {

struct NvtxEvent {
  enum class Kind : std::uint8_t { push, pop, start, end };
  Kind kind = Kind::push;
  std::string domain;           // its name ("" the default domain; "(unnamed domain)")
  std::string name;             // push, start: the range's message
  std::uint64_t id = 0;         // start, end: NVTX's range id (0: NVTX gave none back)
  std::uint32_t thread_id = 0;  // the calling thread, as CUPTI's API records name it
  std::uint64_t time_ns = 0;    // cuptiGetTimestamp(): the activity records' clock
};

}  // namespace limiter::detail
