#pragma once
// A progress bar for long runs, on stderr. On a terminal it redraws one line in place; into a
// file or pipe it writes one line per item, so logs stay readable.
#include <cstddef>
#include <iosfwd>
#include <string>

namespace limiter::kernels {

class ProgressBar {
 public:
  ProgressBar(std::ostream& out, std::size_t total, bool redraw_in_place);
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
  bool redraw_in_place_;
  bool drawn_ = false;
  std::string label_;
};

}  // namespace limiter::kernels
