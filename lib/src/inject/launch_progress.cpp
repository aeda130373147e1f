#include "inject/launch_progress.hpp"

#include <unistd.h>

#include "limiter/format.hpp"
#include "limiter/kernel_names.hpp"

namespace limiter::detail {
namespace {

constexpr auto kRedrawInterval = std::chrono::milliseconds(200);

void write_all(int fd, const std::string& text) {
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n <= 0) return;  // progress is best effort: never disturb the application
    written += static_cast<std::size_t>(n);
  }
}

std::string grouped(std::uint64_t count) {
  std::string digits = std::to_string(count);
  for (int at = static_cast<int>(digits.size()) - 3; at > 0; at -= 3) digits.insert(static_cast<std::size_t>(at), ",");
  return digits;
}

}  // namespace

LaunchProgress::LaunchProgress(int fd, bool enabled)
    : fd_(fd), enabled_(enabled), start_(std::chrono::steady_clock::now()), last_draw_(start_ - kRedrawInterval) {}

std::string LaunchProgress::line(std::uint64_t count, double seconds, const std::string& kernel) {
  return "limiter: " + grouped(count) + (count == 1 ? " launch" : " launches") + " profiled, " +
         format_fixed(seconds, 1) + " s, last: " + kernel;
}

void LaunchProgress::launch(const std::string& kernel_name) {
  if (!enabled_) return;
  std::lock_guard lock(mutex_);
  ++count_;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < kRedrawInterval) return;
  last_draw_ = now;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  std::string text = line(count_, seconds, kernel_base_name(kernel_name));
  if (text.size() > 110) text = text.substr(0, 107) + "...";  // one terminal line
  write_all(fd_, "\r" + text + "\033[K");
  drawn_ = true;
}

void LaunchProgress::finish() {
  std::lock_guard lock(mutex_);
  if (drawn_) write_all(fd_, "\r\033[K");
  drawn_ = false;
}

}  // namespace limiter::detail
