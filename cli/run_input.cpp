#include "run_input.hpp"

#include <fstream>

#include "limiter/error.hpp"
#include "limiter/import.hpp"
#include "limiter/record_json.hpp"

namespace limiter::cli {

RunRecord load_run(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot open '" + path + "': check the path");
  // A run record is a JSON object; anything else is tried as an ncu CSV export.
  char first = 0;
  while (in.get(first) && (first == ' ' || first == '\n' || first == '\r' || first == '\t')) {
  }
  if (first == '{') return read_run_file(path);
  in.clear();
  in.seekg(0);
  return import_ncu_csv(in, path);
}

}  // namespace limiter::cli
