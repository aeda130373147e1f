#pragma once
// A progress bar for long runs, on stderr. On a terminal it redraws one line in place (items
// done, the current one, time elapsed); into a file or pipe it writes one line per item, so
// logs stay readable; quiet, it writes only the notes.
#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <string>

namespace limiter::kernels {

class ProgressBar {
 public:
  enum class Style { lines, redraw, quiet };
  ProgressBar(std::ostream& out, std::size_t total, bool redraw_in_place);
  ProgressBar(std::ostream& out, std::size_t total, Style style);
  // limiter kernels / calibrate: redrawn on a terminal, quiet otherwise or with -q.
  static Style style_for(bool terminal, bool quiet) { return quiet || !terminal ? Style::quiet : Style::redraw; }
  ~ProgressBar() { finish(); }  // also when an error ends the run: the message starts on a clean line
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void start(const std::string& label);  // the next item begins
  void note(const std::string& line);    // a message that stays above the bar
  void finish();                         // all done: clears the bar

 private:
  void draw();
  void clear();

  std::ostream& out_;
  std::size_t total_;
  std::size_t started_ = 0;
  Style style_;
  std::chrono::steady_clock::time_point started_at_ = std::chrono::steady_clock::now();
  bool drawn_ = false;
  std::string label_;
};

}  // namespace limiter::kernels
