#include "collect/nvtx/nvtx_dispatch.hpp"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "collect/forked_child.hpp"
#include "collect/own_calls.hpp"

namespace limiter::detail {
namespace {

struct Receiver {
  NvtxReceiver call;
  void* user;
  std::atomic<std::uint64_t> in_flight{0};  // calls inside `call` now
};

std::atomic<Receiver*> current{nullptr};
std::atomic<NvtxReplay> replay{nullptr};

// Every receiver ever registered, never freed: a call that read one just before it was
// unregistered still touches its counter. Never destroyed either: NVTX calls go on during exit.
struct Registered {
  std::mutex mutex;
  std::vector<std::unique_ptr<Receiver>> receivers;
};
Registered& registered() {
  static auto* kept = new Registered;
  return *kept;
}

}  // namespace

void register_nvtx_receiver(NvtxReceiver receiver, void* user) {
  {
    auto& all = registered();
    std::lock_guard lock(all.mutex);
    all.receivers.push_back(std::make_unique<Receiver>());
    Receiver* added = all.receivers.back().get();
    added->call = receiver;
    added->user = user;
    current.store(added);
  }
  if (const NvtxReplay made_before = replay.load()) made_before();  // outside the lock: it calls the receiver
}

void set_nvtx_replay(NvtxReplay made_before) noexcept { replay.store(made_before); }

bool unregister_nvtx_receiver(void* user, std::chrono::milliseconds wait) noexcept {
  Receiver* receiver = current.load();
  if (!receiver || receiver->user != user || !current.compare_exchange_strong(receiver, nullptr)) return true;
  // A call that counted itself before the exchange may still be inside; later ones see nullptr
  // (dispatch_nvtx checks again after counting), so the count only falls.
  const auto deadline = std::chrono::steady_clock::now() + wait;
  while (receiver->in_flight.load() != 0) {  // sequentially consistent, as the exchange and the count
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  return true;
}

void dispatch_nvtx(CUpti_CallbackId cbid, const CUpti_NvtxData& data) noexcept {
  Receiver* receiver = current.load();
  if (!receiver) return;           // no collector yet, or torn down
  if (in_forked_child()) return;   // the parent profiles; a forked child runs unprofiled
  if (inside_own_calls()) return;  // the collector's own CUDA calls (l2_flush.hpp), not the app's
  receiver->in_flight.fetch_add(1);
  // Counted, then checked again: unregister either sees this call counted or this call sees it gone.
  if (current.load() == receiver) receiver->call(receiver->user, cbid, data);
  receiver->in_flight.fetch_sub(1);
}

}  // namespace limiter::detail
