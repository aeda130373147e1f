#pragma once
// Reading a run record on a second thread while the calling thread analyses what was read:
// launches travel in batches through a bounded queue, and every batch goes back to the reading
// thread, where new launches are built in their storage. (Freed on the other thread, glibc's
// allocator made the two threads slower than one: 5.7 s against 3.6 s for 123,250 launches on
// the 2-core build machine.)
#include <functional>
#include <string>
#include <vector>

#include "limiter/record.hpp"

namespace limiter::detail {

using BatchConsumer = std::function<void(const RunRecord& header, std::vector<KernelLaunch>& batch)>;

// Calls CONSUME for each batch of launches of the record at PATH, in order, on this thread, and
// returns the record's header (its fields but the launches). Throws what reading throws
// (InputError), and what CONSUME throws.
RunRecord read_in_batches(const std::string& path, std::size_t batch_launches, const BatchConsumer& consume);

}  // namespace limiter::detail
