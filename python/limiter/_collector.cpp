// limiter._collector: the in-process CUPTI collector (limiter/collector.hpp) behind
// limiter.profile(). A module of its own, built only with the CUDA toolkit, so that
// `import limiter` never needs libcupti and a host-only build simply lacks it.
//
// Options arrive as `limiter run`'s flags (name without "--" -> the flag's text) and go through
// the same table (run_flags.hpp) and the same checks (validate_collector_options, in the
// Collector's constructor), so a bad value reads as it does on the command line.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include "limiter/collector.hpp"
#include "limiter/error.hpp"
#include "limiter/record_json.hpp"
#include "limiter/run_flags.hpp"
#include "limiter/stall_sass.hpp"
#include "limiter/temporary_folder.hpp"

namespace py = pybind11;

namespace {

// FLAGS (flag name -> text, as on limiter run's command line) over the LIMITER_* variables and
// limiter run's defaults; a name that is not one of limiter run's flags is refused.
limiter::CollectorOptions region_options(const std::map<std::string, std::string>& flags,
                                         const std::string& cubin_dir) {
  for (const auto& [name, text] : flags) {
    bool known = false;
    for (const limiter::RunFlag& flag : limiter::run_flags())
      known = known || (flag.kind == limiter::FlagKind::flag && flag.name == name);
    if (known) continue;
    std::string keyword = name;
    for (char& c : keyword) c = c == '-' ? '_' : c;
    throw limiter::InputError("limiter.profile() has no option '" + keyword +
                              "': it takes limiter run's flags, '-' written '_' (`limiter run --help` lists them)");
  }
  // Unnamed flags and knobs from the environment, as limiter run reads them (LIMITER_DEBUG, ...).
  limiter::CollectorOptions options = limiter::options_from_flags(flags);
  // As limiter run sets them (cli/run_options.cpp): sampled aggregates carry no NVTX ranges, and
  // the region is the with-block (or the cudaProfilerStart/Stop pairs inside it).
  options.nvtx = options.nvtx && !options.sampling;
  options.always_active = false;
  // The sampled kernels' cubins, for their hot PCs' SASS: in save_raw's folder where given, as limiter run.
  if (options.raw_dir.empty()) options.cubin_dir = cubin_dir;
  return options;
}

// A folder of its own for the region's cubins: made, or one line naming the fix.
std::string made(const limiter::TemporaryFolder& folder) {
  if (folder.path.empty())
    throw limiter::SystemError(
        "no scratch folder for the region's cubins under $TMPDIR or /tmp; set TMPDIR to a "
        "writable folder");
  return folder.path;
}

// One profiled region: subscribed on construction (errors then), start/stop around the block,
// the record written once it is over.
class Region {
 public:
  explicit Region(const std::map<std::string, std::string>& flags) {
    limiter::CollectorOptions options = region_options(flags, made(scratch_));
    cubin_root_ = options.cubin_dir.empty() ? options.raw_dir : options.cubin_dir;
    collector_ = std::make_unique<limiter::Collector>(options);
  }

  void start() { collector_->start(); }
  void stop() { collector_->stop(); }

  // Ends the phases, writes the record to PATH and lets CUPTI go, so another region (or another
  // profiler) can subscribe.
  void write_run(const std::string& path) {
    if (!collector_) throw limiter::InputError("this region's record was written already");
    limiter::RunRecord run = collector_->take_run();
    if (run.stalls) {  // the hot PCs' SASS, from the cubins the collector wrote, as limiter run adds it
      try {
        const std::string note = limiter::fill_sass(*run.stalls, {cubin_root_ + "/cubins"}, limiter::find_nvdisasm());
        if (!note.empty()) std::fputs(("limiter: SASS of the hot PCs: " + note + "\n").c_str(), stderr);
      } catch (const std::exception& e) {  // the record without its SASS, never no record
        std::fputs(("limiter: no SASS for the region's hot PCs: " + std::string(e.what()) + "\n").c_str(), stderr);
      }
    }
    limiter::write_run_file(run, path);
    // Where the collector's host time went, as `limiter run --timing` prints it (LIMITER_TIMING=1).
    if (const char* timing = std::getenv("LIMITER_TIMING"); timing && *timing && std::string(timing) != "0")
      std::fputs(("limiter: " + collector_->timings().to_text()).c_str(), stderr);
    collector_.reset();
  }

 private:
  limiter::TemporaryFolder scratch_{"limiter-region"};  // before the collector, which writes into it
  std::string cubin_root_;  // where the collector writes cubins/: the scratch folder, or save_raw's
  std::unique_ptr<limiter::Collector> collector_;
};

}  // namespace

PYBIND11_MODULE(_collector, m) {
  m.doc() = "The in-process CUPTI collector (use limiter.profile(), not this module).";
  // Bad options (InputError) and a GPU, driver or CUPTI that cannot profile (SystemError): the
  // package turns both into LimiterError with the collector's one line. Local: the translators of
  // limiter._core, which has its own copy of these types, stay as they are.
  py::register_local_exception<limiter::InputError>(m, "InputError", PyExc_ValueError);
  py::register_local_exception<limiter::SystemError>(m, "SystemError", PyExc_RuntimeError);
  // The GIL is released while the collector waits on the GPU (synchronising, decoding): the
  // launches it profiles come from whichever thread makes them.
  py::class_<Region>(m, "Region")
      .def(py::init<const std::map<std::string, std::string>&>(), py::arg("flags"))
      .def("start", &Region::start, py::call_guard<py::gil_scoped_release>())
      .def("stop", &Region::stop, py::call_guard<py::gil_scoped_release>())
      .def("write_run", &Region::write_run, py::arg("path"), py::call_guard<py::gil_scoped_release>());
}
