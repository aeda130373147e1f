#include "limiter/kernels/progress.hpp"

#include <algorithm>
#include <ostream>

namespace limiter::kernels {

namespace {
constexpr std::size_t kBarWidth = 24;
}

ProgressBar::ProgressBar(std::ostream& out, std::size_t total, bool redraw_in_place)
    : out_(out), total_(total), redraw_in_place_(redraw_in_place) {}

void ProgressBar::start(const std::string& label) {
  started_ = std::min(started_ + 1, std::max<std::size_t>(total_, 1));
  label_ = label;
  draw();
}

void ProgressBar::note(const std::string& line) {
  clear();
  out_ << line << "\n";
  if (redraw_in_place_ && started_ > 0) draw();
  out_.flush();
}

void ProgressBar::finish() {
  clear();
  out_.flush();
}

void ProgressBar::draw() {
  const std::string count = std::to_string(started_) + "/" + std::to_string(total_);
  if (!redraw_in_place_) {
    out_ << "[" << count << "] " << label_ << "\n";
    out_.flush();
    return;
  }
  // Items done so far fill the bar; the one running is the label.
  const std::size_t done = started_ > 0 ? started_ - 1 : 0;
  const std::size_t filled = total_ > 0 ? done * kBarWidth / total_ : 0;
  out_ << "\r[" << std::string(filled, '#') << std::string(kBarWidth - filled, '.') << "] " << count << " " << label_
       << "\033[K";
  out_.flush();
  drawn_ = true;
}

void ProgressBar::clear() {
  if (redraw_in_place_ && drawn_) out_ << "\r\033[K";
  drawn_ = false;
}

}  // namespace limiter::kernels
