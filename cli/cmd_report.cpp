#include "commands.hpp"
#include <iostream>
namespace limiter::cli {
int run_report(const Args&) { std::cerr << "limiter report: not built yet\n"; return kExitFailure; }
}  // namespace limiter::cli
