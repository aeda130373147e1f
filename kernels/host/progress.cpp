#include "limiter/kernels/progress.hpp"

#include <algorithm>
#include <ostream>

namespace limiter::kernels {

namespace {
constexpr std::size_t kBarWidth = 24;
}

ProgressBar::ProgressBar(std::ostream& out, std::size_t total, bool redraw_in_place)
    : ProgressBar(out, total, redraw_in_place ? Style::redraw : Style::lines) {}

ProgressBar::ProgressBar(std::ostream& out, std::size_t total, Style style) : out_(out), total_(total), style_(style) {}

void ProgressBar::start(const std::string& label) {
  started_ = std::min(started_ + 1, std::max<std::size_t>(total_, 1));
  label_ = label;
  draw();
}

void ProgressBar::note(const std::string& line) {
  clear();
  out_ << line << "\n";
  if (style_ == Style::redraw && started_ > 0) draw();
  out_.flush();
}

void ProgressBar::finish() {
  clear();
  out_.flush();
}

void ProgressBar::draw() {
  if (style_ == Style::quiet) return;
  const std::string count = std::to_string(started_) + "/" + std::to_string(total_);
  if (style_ == Style::lines) {
    out_ << "[" << count << "] " << label_ << "\n";
    out_.flush();
    return;
  }
  // Items done so far fill the bar; the one running is the label.
  const std::size_t done = started_ > 0 ? started_ - 1 : 0;
  const std::size_t filled = total_ > 0 ? done * kBarWidth / total_ : 0;
  const auto elapsed = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started_at_);
  out_ << "\r[" << std::string(filled, '#') << std::string(kBarWidth - filled, '.') << "] " << count << " " << label_
       << "  " << elapsed.count() << " s\033[K";
  out_.flush();
  drawn_ = true;
}

void ProgressBar::clear() {
  if (style_ == Style::redraw && drawn_) out_ << "\r\033[K";
  drawn_ = false;
}

}  // namespace limiter::kernels
