// limiter import --from ncu|csv FILE [--arch sm_XX --sms N] -o RUN.json
// Turns an Nsight Compute CSV or a plain kernel,metric,value CSV into a run record.
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <set>
#include <string>

#include "commands.hpp"
#include "limiter/error.hpp"
#include "limiter/import.hpp"
#include "limiter/record.hpp"
#include "limiter/record_json.hpp"
#include "options.hpp"
#include "run_input.hpp"
#include "output_guard.hpp"

namespace limiter::cli {
namespace {

constexpr const char* kUsage = "limiter import --from ncu|csv FILE [--arch sm_XX --sms N] -o RUN.json";

void check_input(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError("cannot open '" + path + "': no such file");
  if (fs::is_directory(path, ec)) throw InputError("cannot read '" + path + "': it is a directory, not a CSV file");
  if (!std::ifstream(path, std::ios::binary)) throw InputError("cannot open '" + path + "': check that it is readable");
}

std::string count_of(std::size_t count, const std::string& one, const std::string& many) {
  return std::to_string(count) + " " + (count == 1 ? one : many);
}

}  // namespace

int run_import(const Args& args) {
  po::options_description visible("options");
  // clang-format off
  visible.add_options()
      ("from", po::value<std::string>()->required(),
       "what FILE is: 'ncu' (Nsight Compute `--csv` details page or `--csv --page raw`) or "
       "'csv' (plain kernel,metric,value rows)")
      ("arch", po::value<std::string>(),
       "GPU architecture, e.g. sm_20 (Fermi), sm_90 (Hopper); required for --from csv, "
       "overrides the file for --from ncu")
      ("sms", po::value<int>(),
       "number of SMs of that GPU; required for --from csv, overrides the file for --from ncu")
      ("output,o", po::value<std::string>()->default_value("-"),
       "run record to write (JSON); '-' for stdout");
  // clang-format on
  po::options_description hidden;
  hidden.add_options()(
      "file", po::value<std::string>()->required()->value_name("FILE"),
      "the CSV to import: an Nsight Compute export (--from ncu) or kernel,metric,value rows (--from csv)");
  po::positional_options_description positional;
  positional.add("file", 1);
  po::variables_map vm;
  if (!parse_options(args, kUsage, visible, positional, vm, &hidden)) return kExitOk;

  const std::string from = vm["from"].as<std::string>();
  const std::string path = vm["file"].as<std::string>();
  const std::string output = vm["output"].as<std::string>();
  // Plain values with "given" flags: std::optional<int> here trips GCC's -Wmaybe-uninitialized.
  const bool has_arch = vm.count("arch") > 0;
  const bool has_sms = vm.count("sms") > 0;
  const std::string arch = has_arch ? vm["arch"].as<std::string>() : std::string();
  const int sms = has_sms ? vm["sms"].as<int>() : 0;
  if (from != "ncu" && from != "csv") {
    throw InputError("--from must be 'ncu' or 'csv', not '" + from + "'");
  }
  if (has_sms && sms <= 0) throw InputError("--sms must be a positive SM count, not " + std::to_string(sms));
  if (has_arch && !std::regex_match(arch, std::regex("sm_[0-9]{2,3}[a-z]?"))) {
    throw InputError("--arch '" + arch + "' is not of the form sm_NN (e.g. sm_20, sm_35, sm_90)");
  }

  refuse_output_over_input(output, {path});

  RunRecord run;
  if (from == "csv") {
    if (!has_arch || !has_sms) {
      const std::string missing = !has_arch && !has_sms ? "--arch and --sms" : !has_arch ? "--arch" : "--sms";
      throw InputError("--from csv needs " + missing +
                       ": a plain CSV does not say which GPU it came from (the seed's case study: "
                       "--arch sm_20 --sms 16)");
    }
    check_input(path);
    run = import_plain_csv_file(path, arch, sms);
  } else {
    check_input(path);
    run = import_ncu_file(path);
    if (has_arch) run.device.arch = arch;
    if (has_sms) run.device.sm_count = sms;
  }
  run.tool_version = tool_version();
  run.created_at = utc_timestamp();
  run.command_line = {"limiter", "import"};
  run.command_line.insert(run.command_line.end(), args.begin(), args.end());

  if (output.empty() || output == "-") {
    write_run_json(run, std::cout);
    std::cout.flush();
  } else {
    write_run_file(run, output);
  }

  std::set<std::string> kernel_names;
  for (const auto& launch : run.launches) kernel_names.insert(launch.name);
  std::cerr << "imported " << count_of(run.launches.size(), "launch", "launches") << " of "
            << count_of(kernel_names.size(), "kernel", "kernels") << " from " << path << " ("
            << (from == "ncu" ? "Nsight Compute CSV" : "plain CSV") << ", " << to_string(run.counter_model)
            << " counters" << (run.device.arch.empty() ? "" : ", " + run.device.arch)
            << (run.device.sm_count > 0 ? ", " + std::to_string(run.device.sm_count) + " SMs" : "") << ") \u2192 "
            << (output.empty() || output == "-" ? "stdout" : output) << "\n";
  return kExitOk;
}

}  // namespace limiter::cli
