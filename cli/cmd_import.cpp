#include "commands.hpp"
#include <iostream>
namespace limiter::cli {
int run_import(const Args&) { std::cerr << "limiter import: not built yet\n"; return kExitFailure; }
}  // namespace limiter::cli
