#pragma once
// Checks for CUPTI calls: a failure becomes a SystemError that names the call,
// CUPTI's own message and, for the failures users hit, the fix.
#include <cupti_result.h>

#include <string>

#include "limiter/error.hpp"

namespace limiter::detail {

// A failed CUPTI call; the status tells a busy GPU (retried later) from a fatal failure.
class CuptiError : public SystemError {
 public:
  CuptiError(const std::string& message, CUptiResult result) : SystemError(message), status(result) {}
  CUptiResult status;
};

[[noreturn]] void throw_cupti_error(CUptiResult status, const char* call);
std::string cupti_error_text(CUptiResult status);

}  // namespace limiter::detail

#define LIMITER_CUPTI_CHECK(call)                                                                       \
  do {                                                                                                  \
    const CUptiResult limiter_status_ = (call);                                                         \
    if (limiter_status_ != CUPTI_SUCCESS) ::limiter::detail::throw_cupti_error(limiter_status_, #call); \
  } while (0)
