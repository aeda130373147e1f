#include "options.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "limiter/error.hpp"
#include "limiter/file_io.hpp"

namespace limiter::cli {

bool parse_options(const Args& args, const std::string& usage, const po::options_description& visible,
                   const po::positional_options_description& positional, po::variables_map& vm,
                   const po::options_description* hidden) {
  po::options_description help_option;
  help_option.add_options()("help,h", "show this help");
  po::options_description shown;  // what --help prints, aligned as one table
  shown.add(visible).add(help_option);
  po::options_description all;
  all.add(shown);
  if (hidden) all.add(*hidden);
  try {
    po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
    if (vm.count("help")) {
      std::cout << "usage: " << usage << "\n\n" << shown;
      return false;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw InputError(std::string(e.what()) + " (see --help)");
  }
  return true;
}

void write_output(const std::string& path, const std::function<void(std::ostream&)>& write) {
  if (path.empty() || path == "-") {
    write(std::cout);
    std::cout.flush();
    return;
  }
  write_file_atomically(path, write);
}

void write_output(const std::string& path, const std::string& content) {
  if (path.empty() || path == "-") {
    std::cout << content;
    std::cout.flush();
    return;
  }
  write_file_atomically(path, content);
}

}  // namespace limiter::cli
