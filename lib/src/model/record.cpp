#include "limiter/record.hpp"

#include "limiter/error.hpp"

namespace limiter {

std::string to_string(CounterModel model) {
  switch (model) {
    case CounterModel::perfworks: return "perfworks";
    case CounterModel::legacy: return "legacy";
  }
  return "perfworks";
}

CounterModel counter_model_from_string(const std::string& text) {
  if (text == "perfworks") return CounterModel::perfworks;
  if (text == "legacy") return CounterModel::legacy;
  throw InputError("unknown counter model '" + text + "' (expected 'perfworks' or 'legacy')");
}

std::string tool_version() { return LIMITER_VERSION; }

}  // namespace limiter
