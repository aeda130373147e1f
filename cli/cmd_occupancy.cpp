// limiter occupancy: theoretical occupancy of one launch configuration, what limits it, and
// with --grid the waves and the tail. Offline: needs no GPU.
#include <climits>
#include <cstdio>
#include <optional>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "limiter/architecture.hpp"
#include "limiter/error.hpp"
#include "limiter/occupancy.hpp"
#include "options.hpp"

namespace limiter::cli {
namespace {

const char* const usage =
    "limiter occupancy --arch sm_XX --threads N --registers R [--shared BYTES] [--carveout BYTES]\n"
    "                         [--grid BLOCKS --sms N] [--format text|json] [-o FILE]\n\n"
    "Theoretical occupancy of a launch: blocks and warps per SM, the resource that limits them\n"
    "(warps, blocks, registers or shared_memory; on a tie the first of these), and with --grid the\n"
    "waves and the tail. sm_50 and newer follow cuda_occupancy.h (CUDA 13.0). A launch that does\n"
    "not fit prints why, with exit code 0.";

struct Request {
  OccupancyInput input;
  std::optional<std::uint64_t> grid_blocks;
  int sm_count = 0;
  std::string format;
  std::string output_path;
};

long long non_negative(const po::variables_map& vm, const char* option) {
  const long long value = vm[option].as<long long>();
  if (value < 0) {
    throw InputError("--" + std::string(option) + " must not be negative, got " + std::to_string(value));
  }
  return value;
}

Request read_request(const po::variables_map& vm) {
  Request request;
  request.input.arch = vm["arch"].as<std::string>();
  const long long threads = vm["threads"].as<long long>();
  if (threads < 1 || threads > INT_MAX) {
    throw InputError("--threads must be a block size of at least 1 thread, got " + std::to_string(threads));
  }
  request.input.threads_per_block = static_cast<int>(threads);
  const long long registers = non_negative(vm, "registers");
  if (registers > INT_MAX) throw InputError("--registers is out of range: " + std::to_string(registers));
  request.input.registers_per_thread = static_cast<int>(registers);
  request.input.shared_bytes_per_block = static_cast<std::uint64_t>(non_negative(vm, "shared"));
  if (vm.count("carveout")) {
    request.input.shared_carveout_bytes = static_cast<std::uint64_t>(non_negative(vm, "carveout"));
  }
  if (vm.count("grid") && !vm.count("sms")) {
    throw InputError("--grid needs --sms N, the GPU's number of SMs (e.g. 132 on an H100 SXM, 108 on an A100)");
  }
  if (vm.count("sms") && !vm.count("grid")) throw InputError("--sms is only used with --grid BLOCKS");
  if (vm.count("grid")) {
    const long long grid_blocks = vm["grid"].as<long long>();
    if (grid_blocks < 1) throw InputError("--grid must be at least 1 block, got " + std::to_string(grid_blocks));
    request.grid_blocks = static_cast<std::uint64_t>(grid_blocks);
    request.sm_count = vm["sms"].as<int>();
    if (request.sm_count < 1) {
      throw InputError("--sms must be at least 1, got " + std::to_string(request.sm_count));
    }
  }
  request.format = vm["format"].as<std::string>();
  if (request.format != "text" && request.format != "json") {
    throw InputError("--format must be text or json, got '" + request.format + "'");
  }
  request.output_path = vm["output"].as<std::string>();
  return request;
}

// Above 48 KB a kernel must opt in (cudaFuncAttributeMaxDynamicSharedMemorySize).
bool needs_shared_opt_in(const ArchitectureLimits& arch, std::uint64_t shared_bytes) {
  return shared_bytes > arch.default_shared_bytes_per_block && shared_bytes <= arch.max_shared_bytes_per_block;
}

std::string format_fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

std::string limit_text(int blocks) { return blocks == unlimited_blocks ? "unlimited" : std::to_string(blocks); }

nlohmann::ordered_json limit_json(int blocks) {
  return blocks == unlimited_blocks ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(blocks);
}

std::string render_json(const Request& request, const ArchitectureLimits& arch, const OccupancyResult& result,
                        const std::optional<WaveResult>& waves) {
  nlohmann::ordered_json json;
  json["arch"] = arch.arch;
  json["threads_per_block"] = request.input.threads_per_block;
  json["registers_per_thread"] = request.input.registers_per_thread;
  json["shared_bytes_per_block"] = request.input.shared_bytes_per_block;
  if (request.input.shared_carveout_bytes) json["shared_carveout_bytes"] = *request.input.shared_carveout_bytes;
  json["blocks_per_sm"] = result.blocks_per_sm;
  json["active_warps_per_sm"] = result.active_warps_per_sm;
  json["max_warps_per_sm"] = arch.max_warps_per_sm;
  json["occupancy"] = result.occupancy;
  json["limited_by"] = to_string(result.limited_by);
  if (!result.cannot_launch_reason.empty()) json["cannot_launch"] = result.cannot_launch_reason;
  // null: the launch does not use the resource, so it sets no limit.
  json["limits"] = {{"warps", limit_json(result.blocks_limit_warps)},
                    {"blocks", limit_json(result.blocks_limit_blocks)},
                    {"registers", limit_json(result.blocks_limit_registers)},
                    {"shared_memory", limit_json(result.blocks_limit_shared)}};
  json["allocated"] = {{"registers_per_block", result.registers_per_block},
                       {"shared_bytes_per_block", result.shared_bytes_per_block},
                       {"shared_bytes_per_sm", result.shared_bytes_per_sm}};
  json["needs_shared_opt_in"] = needs_shared_opt_in(arch, request.input.shared_bytes_per_block);
  if (request.grid_blocks) {
    json["grid_blocks"] = *request.grid_blocks;
    json["sms"] = request.sm_count;
    if (waves) {
      json["blocks_per_wave"] = waves->blocks_per_wave;
      json["waves"] = waves->waves;
      json["full_waves"] = waves->full_waves;
      json["tail_blocks"] = waves->tail_blocks;
      json["tail_idle_fraction"] = waves->tail_idle_fraction;
    } else {
      // A launch that cannot run has no waves.
      for (const char* key : {"blocks_per_wave", "waves", "full_waves", "tail_blocks", "tail_idle_fraction"}) {
        json[key] = nullptr;
      }
    }
  }
  return json.dump(2) + "\n";
}

std::string render_text(const Request& request, const ArchitectureLimits& arch, const OccupancyResult& result,
                        const std::optional<WaveResult>& waves) {
  std::ostringstream out;
  const auto& input = request.input;
  out << arch.arch << " (" << arch.family << ")  " << input.threads_per_block << " threads × "
      << input.registers_per_thread << " registers, " << input.shared_bytes_per_block << " B shared → ";
  if (result.blocks_per_sm == 0) {
    out << "cannot launch: " << result.cannot_launch_reason << "\n";
  } else {
    out << result.blocks_per_sm << (result.blocks_per_sm == 1 ? " block/SM, " : " blocks/SM, ")
        << result.active_warps_per_sm << " warps of " << arch.max_warps_per_sm << ", occupancy "
        << format_fixed(100.0 * result.occupancy, 1) << "% (limited by " << to_string(result.limited_by) << ")\n";
  }
  out << "  blocks/SM allowed by: warps " << limit_text(result.blocks_limit_warps) << ", blocks "
      << limit_text(result.blocks_limit_blocks) << ", registers " << limit_text(result.blocks_limit_registers)
      << ", shared memory " << limit_text(result.blocks_limit_shared) << "\n";
  out << "  allocated per block: " << result.registers_per_block << " registers, " << result.shared_bytes_per_block
      << " B shared";
  if (arch.reserved_shared_bytes_per_block > 0) {
    out << " (with the driver's " << arch.reserved_shared_bytes_per_block << " B reserve)";
  }
  out << ", of a " << result.shared_bytes_per_sm << " B shared-memory carve-out per SM\n";
  if (needs_shared_opt_in(arch, input.shared_bytes_per_block)) {
    out << "  note: more than " << arch.default_shared_bytes_per_block
        << " B of shared memory per block needs opt-in: cudaFuncSetAttribute(kernel, "
           "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)\n";
  }
  if (waves) {
    out << "  waves: " << *request.grid_blocks << " blocks on " << request.sm_count << " SMs × " << result.blocks_per_sm
        << " = " << waves->blocks_per_wave << " per wave → " << format_fixed(waves->waves, 3)
        << " waves: " << waves->full_waves << " full";
    if (waves->tail_blocks > 0) {
      out << " + a tail of " << waves->tail_blocks << " blocks (" << format_fixed(100.0 * waves->tail_idle_fraction, 1)
          << "% of the SMs' time idle if blocks take equally long)";
    }
    out << "\n";
  } else if (request.grid_blocks) {
    out << "  waves: none, the launch cannot run\n";
  }
  return out.str();
}

}  // namespace

int run_occupancy(const Args& args) {
  po::options_description visible("options");
  visible.add_options()("arch", po::value<std::string>()->required(),
                        "GPU architecture: sm_10 ... sm_90 (also 90, 9.0, compute_90, sm_90a)")(
      "threads", po::value<long long>()->required(), "threads per block (blockDim.x*y*z)")(
      "registers", po::value<long long>()->required(),
      "registers per thread (ptxas -v, ncu launch__registers_per_thread); 0 = unknown: no register limit")(
      "shared", po::value<long long>()->default_value(0),
      "shared memory per block in bytes, static + dynamic (the driver's reserve is added)")(
      "carveout", po::value<long long>(),
      "preferred shared-memory carve-out per SM in bytes, rounded up to one the GPU has "
      "(default: the largest)")("grid", po::value<long long>(),
                                "blocks in the grid: adds waves and the tail; needs --sms")(
      "sms", po::value<int>(), "the GPU's number of SMs (132 on H100 SXM), with --grid")(
      "format", po::value<std::string>()->default_value("text"), "text or json")(
      "output,o", po::value<std::string>()->default_value("-"), "write to FILE instead of stdout");
  po::variables_map vm;
  if (!parse_options(args, usage, visible, po::positional_options_description(), vm)) return kExitOk;

  const Request request = read_request(vm);
  const ArchitectureLimits& arch = architecture_limits(request.input.arch);
  const OccupancyResult result = compute_occupancy(request.input);
  std::optional<WaveResult> waves;
  if (request.grid_blocks && result.blocks_per_sm > 0) {
    waves = compute_waves(*request.grid_blocks, request.sm_count, result.blocks_per_sm);
  }
  write_output(request.output_path, request.format == "json" ? render_json(request, arch, result, waves)
                                                             : render_text(request, arch, result, waves));
  return kExitOk;
}

}  // namespace limiter::cli
