#pragma once
// CUDA calls the collector makes itself on an app's thread (the L2 flush of --cache-control all):
// the subscriber hands none of their callbacks to the sessions, which would take our kernel and
// our synchronisation for the app's.
namespace limiter::detail {

bool inside_own_calls();

// Marks this thread's CUDA calls as the collector's own while it lives.
class OwnCalls {
 public:
  OwnCalls();
  ~OwnCalls();
  OwnCalls(const OwnCalls&) = delete;
  OwnCalls& operator=(const OwnCalls&) = delete;

 private:
  bool outer_;
};

}  // namespace limiter::detail
