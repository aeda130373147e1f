// Placeholder until the CUPTI collector lands (issue 3): every use says so.
#include "limiter/collector.hpp"

#include "limiter/error.hpp"

namespace limiter {

struct Collector::Impl {};

Collector::Collector(const CollectorOptions&) {
  throw SystemError("the CUPTI collector is not built yet (issue 3)");
}
Collector::~Collector() = default;
void Collector::start() {}
void Collector::stop() {}
RunRecord Collector::take_run() { return {}; }

}  // namespace limiter
