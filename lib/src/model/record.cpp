#include "limiter/record.hpp"

#include <csignal>
#include <chrono>
#include <ctime>

#include "limiter/error.hpp"

namespace limiter {

std::string to_string(CounterModel model) {
  switch (model) {
    case CounterModel::perfworks:
      return "perfworks";
    case CounterModel::legacy:
      return "legacy";
  }
  return "perfworks";
}

CounterModel counter_model_from_string(const std::string& text) {
  if (text == "perfworks") return CounterModel::perfworks;
  if (text == "legacy") return CounterModel::legacy;
  throw InputError("unknown counter model '" + text + "' (expected 'perfworks' or 'legacy')");
}

std::string tool_version() { return LIMITER_VERSION; }

std::string ended_by_signal(int signal) {
  switch (signal) {
    case SIGINT:
      return "signal SIGINT";
    case SIGTERM:
      return "signal SIGTERM";
    case SIGKILL:
      return "signal SIGKILL";
    case SIGSEGV:
      return "signal SIGSEGV";
    case SIGBUS:
      return "signal SIGBUS";
    case SIGFPE:
      return "signal SIGFPE";
    case SIGILL:
      return "signal SIGILL";
    case SIGABRT:
      return "signal SIGABRT";
    case SIGHUP:
      return "signal SIGHUP";
    case SIGALRM:
      return "signal SIGALRM";
    default:
      return "signal " + std::to_string(signal);
  }
}

std::string utc_timestamp() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace limiter
