#pragma once
// Where an application waits for the GPU, by driver function name: the collector decodes its
// pending launches there, so a process killed after a synchronisation loses none of the
// launches before it. Classified by name (cuptiGetCallbackName) rather than listed by id, so
// variants that later drivers add (_v2, _ptsz, _ptds) are covered too. Pure C++: tested anywhere.
#include <string_view>

namespace limiter::detail {

enum class SyncPoint {
  none,
  wait,   // the call returns once the GPU work it waits for is done: synchronise, synchronous copy or memset
  query,  // a stream or event query: a wait when it reports completion (CUDA_SUCCESS)
};

SyncPoint sync_point_of(std::string_view driver_function);

}  // namespace limiter::detail
