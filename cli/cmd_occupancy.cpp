#include "commands.hpp"
#include <iostream>
namespace limiter::cli {
int run_occupancy(const Args&) { std::cerr << "limiter occupancy: not built yet\n"; return kExitFailure; }
}  // namespace limiter::cli
