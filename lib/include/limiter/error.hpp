#pragma once
// One error type for the whole library. The CLI turns it into a message and an exit code
// in one place (cli/main.cpp); the library never exits.
#include <stdexcept>
#include <string>

namespace limiter {

// Bad input from the user: a missing or corrupt file, an unknown architecture, a value out
// of range. The message names the file or value and, where there is one, the fix.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A failure of the machine or of a library underneath (CUDA, CUPTI, the file system).
class SystemError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace limiter
