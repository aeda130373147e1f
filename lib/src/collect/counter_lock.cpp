#include "collect/counter_lock.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "collect/clock.hpp"

namespace limiter::detail {
namespace {

// A poll interval well below a batch (~100 ms) and above the cost of the probe (~1 us).
constexpr auto kPollInterval = std::chrono::microseconds(500);
// After its own release a process steps back this long when others wait: the waiters poll
// every kPollInterval, so one of them takes the turn before the releaser can take it again.
constexpr auto kStepBack = std::chrono::milliseconds(5);

int open_lock_file(const std::string& path, std::string& error) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) {
    error = "cannot open the counter lock " + path + ": " + std::strerror(errno) +
            " (set LIMITER_LOCK_DIR to a directory every profiled process can write)";
    return -1;
  }
  ::fchmod(fd, 0666);  // another user's profiled process must be able to take its turn too
  return fd;
}

// A whole-file record lock: F_WRLCK, F_RDLCK or F_UNLCK; false when another process holds a
// conflicting one.
bool set_lock(int fd, short type) {
  struct flock lock {};
  lock.l_type = type;
  lock.l_whence = SEEK_SET;
  while (::fcntl(fd, F_SETLK, &lock) != 0) {
    if (errno != EINTR) return false;
  }
  return true;
}

std::string file_safe(const std::string& text) {
  std::string out;
  for (char c : text) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-') ? c : '_';
  return out;
}

}  // namespace

CounterLock::CounterLock(const std::string& directory, const std::string& device) {
  const std::string base = directory + "/limiter-counters-" + file_safe(device);
  lock_path_ = base + ".lock";
  waiting_path_ = base + ".waiting";
  lock_fd_ = open_lock_file(lock_path_, disabled_reason_);
  if (lock_fd_ >= 0) waiting_fd_ = open_lock_file(waiting_path_, disabled_reason_);
  if (waiting_fd_ < 0 && lock_fd_ >= 0) {
    ::close(lock_fd_);
    lock_fd_ = -1;
  }
}

CounterLock::~CounterLock() {
  if (lock_fd_ >= 0) ::close(lock_fd_);  // closing drops the process's locks on the file
  if (waiting_fd_ >= 0) ::close(waiting_fd_);
}

bool CounterLock::acquire(std::chrono::milliseconds timeout) {
  if (held_) return true;
  if (lock_fd_ < 0) {  // disabled: no serialisation, as before the lock existed
    held_ = true;
    held_since_ = Clock::now();
    return true;
  }
  const auto started = Clock::now();
  const auto deadline = started + timeout;
  bool registered = false;
  if (Clock::now() - released_at_ < kStepBack && others_waiting()) std::this_thread::sleep_for(kStepBack);
  while (!set_lock(lock_fd_, F_WRLCK)) {
    if (!registered) registered = set_lock(waiting_fd_, F_RDLCK);  // the holder sees us waiting
    if (Clock::now() >= deadline) {
      if (registered) set_lock(waiting_fd_, F_UNLCK);
      waited_ += Clock::now() - started;
      return false;
    }
    std::this_thread::sleep_for(kPollInterval);
  }
  if (registered) set_lock(waiting_fd_, F_UNLCK);
  held_ = true;
  held_since_ = Clock::now();
  waited_ += held_since_ - started;
  return true;
}

void CounterLock::release() {
  if (!held_) return;
  if (lock_fd_ >= 0) set_lock(lock_fd_, F_UNLCK);
  held_ = false;
  released_at_ = Clock::now();
}

bool CounterLock::others_waiting() const {
  if (waiting_fd_ < 0) return false;
  // Would a write lock conflict? Only with other processes' read locks: those of waiters.
  struct flock probe {};
  probe.l_type = F_WRLCK;
  probe.l_whence = SEEK_SET;
  if (::fcntl(waiting_fd_, F_GETLK, &probe) != 0) return false;
  return probe.l_type != F_UNLCK;
}

Clock::duration CounterLock::held_for() const { return held_ ? Clock::now() - held_since_ : Clock::duration{}; }

}  // namespace limiter::detail
