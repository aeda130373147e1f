// limiter._core: the offline subcommands of `limiter` (report, export, compare, import,
// occupancy) run in-process, their standard output and error captured, so the Python package
// gives what the CLI gives by the same code path; and the CLI's expansion of record arguments
// (files, globs, a folder of a job's ranks).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "dispatch.hpp"
#include "limiter/error.hpp"
#include "limiter/record.hpp"
#include "record_sets.hpp"

namespace py = pybind11;

namespace {

// std::cout and std::cerr go to strings for one call and are restored however it ends. The GIL
// stays held meanwhile: the streams are the process's, so two calls must not overlap.
class CapturedStreams {
 public:
  CapturedStreams() : out_(std::cout.rdbuf(out_text_.rdbuf())), err_(std::cerr.rdbuf(err_text_.rdbuf())) {}
  ~CapturedStreams() {
    std::cout.rdbuf(out_);
    std::cerr.rdbuf(err_);
  }
  CapturedStreams(const CapturedStreams&) = delete;
  CapturedStreams& operator=(const CapturedStreams&) = delete;
  std::string out() const { return out_text_.str(); }
  std::string err() const { return err_text_.str(); }

 private:
  std::ostringstream out_text_, err_text_;
  std::streambuf* out_;
  std::streambuf* err_;
};

py::tuple run_captured(const std::vector<std::string>& args) {
  int code = 0;
  std::string out, err;
  {
    CapturedStreams captured;
    code = limiter::cli::run_command_line(args, limiter::cli::offline_commands());
    out = captured.out();
    err = captured.err();
  }
  return py::make_tuple(code, py::bytes(out), py::bytes(err));
}

int run_to_terminal(const std::vector<std::string>& args) {
  const int code = limiter::cli::run_command_line(args, limiter::cli::offline_commands());
  std::cout.flush();
  return code;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "The offline limiter command line in-process (use the package limiter, not this module).";
  m.def("run_captured", &run_captured, py::arg("args"),
        "Runs `limiter ARGS...` (report, export, compare, import, occupancy); returns (exit code, stdout bytes, "
        "stderr bytes).");
  m.def("run_to_terminal", &run_to_terminal, py::arg("args"),
        "Runs `limiter ARGS...` with the process's own standard output and error; returns the exit code.");
  m.def("expand_record_arguments", &limiter::cli::expand_record_arguments, py::arg("arguments"),
        "The run records that files, globs and folders name, in order, each once (as `limiter report` reads them). "
        "Raises ValueError naming what matched nothing.");
  m.def("version", &limiter::tool_version, "The version of the limiter library inside.");
  // The in-process collector (lib/include/limiter/collector.hpp) is not in this build: profile() says so.
  m.attr("has_collector") = false;
  py::register_exception_translator([](std::exception_ptr error) {
    try {
      if (error) std::rethrow_exception(error);
    } catch (const limiter::InputError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
}
