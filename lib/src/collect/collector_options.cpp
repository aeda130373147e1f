// CollectorOptions: checked once, carried into an injected process through the environment.
// Host-only (no CUDA): `limiter run`, the injection library and the unit tests share it.
#include "limiter/collector_options.hpp"

#include <cstdlib>
#include <string_view>

#include <nlohmann/json.hpp>

#include "limiter/error.hpp"
#include "limiter/json_text.hpp"
#include "limiter/metric_plans.hpp"
#include "limiter/nvtx_ranges.hpp"

namespace limiter {
namespace {

constexpr auto kUnset = std::numeric_limits<std::uint64_t>::max();

bool one_of(const std::string& value, std::initializer_list<std::string_view> allowed) {
  for (auto option : allowed)
    if (value == option) return true;
  return false;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> items;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    if (comma > start) items.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

// One variable's text and its parse, for both directions.
class Variables {
 public:
  explicit Variables(const EnvironmentLookup& lookup) : lookup_(lookup) {}
  const char* raw(const char* name) const { return lookup_ ? lookup_(name) : std::getenv(name); }
  std::string text(const char* name, const std::string& fallback = "") const {
    const char* value = raw(name);
    return value ? value : fallback;
  }
  std::uint64_t number(const char* name, std::uint64_t fallback) const {
    const std::string value = text(name);
    if (value.empty()) return fallback;
    try {
      std::size_t used = 0;
      const auto parsed = std::stoull(value, &used);
      if (used == value.size()) return parsed;
    } catch (const std::exception&) {
    }
    throw InputError(std::string(name) + "='" + value + "' is not a whole number");
  }
  bool flag(const char* name, const char* on = "1") const { return text(name) == on; }
  std::vector<std::string> list(const char* name) const {  // a JSON array of strings
    const std::string value = text(name);
    if (value.empty()) return {};
    try {
      return nlohmann::json::parse(value).get<std::vector<std::string>>();
    } catch (const std::exception&) {
      throw InputError(std::string(name) + " must be a JSON array of strings, not '" + value + "'");
    }
  }

 private:
  const EnvironmentLookup& lookup_;
};

}  // namespace

void validate_collector_options(const CollectorOptions& o) {
  // One single-answer mode at most; none is the default phase list.
  std::vector<std::string> modes;
  if (o.every_launch) modes.push_back("--every-launch");
  if (o.trace) modes.push_back("--trace");
  if (o.stalls) modes.push_back("--stalls");
  if (o.sampling) modes.push_back("--sampling");
  if (modes.size() > 1)
    throw InputError(modes[0] + " and " + modes[1] + " each choose one mode; choose one, or none for the default run "
                     "(PC sampling for a window, then counters for each kernel's first launches, then the timeline)");
  const bool phased = runs_default_phases(o);
  if (phased && o.timeline)
    throw InputError("LIMITER_TIMELINE=1 goes with --every-launch: the default run records the timeline after its "
                     "counters phase");
  if (!phased && (o.stall_window_ms != CollectorOptions{}.stall_window_ms ||
                  o.stall_window_samples != CollectorOptions{}.stall_window_samples))
    throw InputError("--stall-window bounds the default run's PC-sampling phase; it cannot go with " + modes[0] +
                     (o.stalls ? " (which samples to the end)" : ""));
  if (phased && o.stall_window_ms == 0) throw InputError("--stall-window must be at least 1 (milliseconds)");
  if (o.metrics.empty()) (void)metric_plan(o.plan);  // an unknown plan lists the plans
  if (o.sample_every == 0) throw InputError("--sample-every must be at least 1");
  if (!one_of(o.replay, {"auto", "kernel", "graphs"})) throw InputError("--replay must be auto or kernel");
  if (!one_of(o.graph_profiling, {"node", "graph"})) throw InputError("--graph-profiling must be node or graph");
  if (o.sampling_interval_ns < 1000) throw InputError("--sampling-interval must be at least 1 (microseconds)");
  if (!one_of(o.range_sync, {"none", "graph", "all"}))
    throw InputError("LIMITER_RANGE_SYNC must be none, graph or all, not '" + o.range_sync + "'");
  if (o.stall_period_log2 != 0 && (o.stall_period_log2 < 5 || o.stall_period_log2 > 31))
    throw InputError("--stall-period must be between 5 and 31 (one sample every 2^N cycles)");
  if (o.stall_period_log2 != 0 && !o.stalls && !phased)
    throw InputError("--stall-period goes with --stalls or the default run, not with " + modes[0]);
  if (o.stalls && (o.trace || o.sampling || o.exact_undecided_count > 0 || o.plan != CollectorOptions{}.plan ||
                   !o.metrics.empty() || o.replay == "kernel" || o.graph_profiling != "node" || o.count != kUnset ||
                   o.skip > 0 || o.sample_every > 1 || o.per_kernel_count != kUnset || o.per_kernel_skip > 0 ||
                   !o.kernel_regex.empty() || !o.nvtx_include.empty() || !o.nvtx_exclude.empty() || o.budget_by_range ||
                   o.cache_control == "all" || o.timeline)) {
    throw InputError("--stalls samples warp stall reasons alone (PC sampling); it cannot go with the counters' flags "
                     "(--plan, --metrics, --replay, --graph-profiling, -k, -s, -c, --sample-every, --per-kernel-count, "
                     "--per-kernel-skip, --nvtx-include/--nvtx-exclude, --budget-by-range, --cache-control), "
                     "--sampling, --exact-undecided or --trace: run limiter twice and compare, or filter the report "
                     "(limiter report -k)");
  }
  if (!one_of(o.cache_control, {"none", "all"})) throw InputError("--cache-control must be none or all");
  if (o.cache_control == "all" && o.replay == "kernel")
    throw InputError("--cache-control all cannot go with --replay kernel: CUPTI replays the passes itself, with no "
                     "moment in between to empty L2 (use the default --replay auto with a one-pass plan)");
  if (o.cache_control == "all" && (o.trace || (o.sampling && o.per_kernel_count == kUnset && o.exact_undecided_count == 0)))
    throw InputError("--cache-control all flushes L2 before each exactly profiled launch: it goes with the exact "
                     "mode (or the exact phase of --sampling --per-kernel-count / --exact-undecided), not with "
                     "--trace or --sampling alone");
  // Flags whose sessions are being built (issue 29): refused, never silently ignored.
  if (o.lock_timeout_s < 0) throw InputError("--lock-timeout must be 0 or more seconds");
  if (o.pm_buffer_mib == 0) throw InputError("LIMITER_PM_BUFFER_MIB must be at least 1");
  const bool budgets = o.per_kernel_count != kUnset || o.per_kernel_skip > 0;
  if (o.trace && (o.sampling || o.exact_undecided_count > 0))
    throw InputError("--trace records the activity timeline alone; it cannot go with --sampling or --exact-undecided "
                     "(PM sampling uses the activity records itself)");
  if (o.trace && (o.plan != CollectorOptions{}.plan || !o.metrics.empty() || !o.raw_dir.empty() || o.replay == "kernel" ||
                  o.graph_profiling != "node" || o.count != kUnset || o.skip > 0 || o.sample_every > 1 || budgets ||
                  !o.kernel_regex.empty() || !o.nvtx_include.empty() || !o.nvtx_exclude.empty() || o.budget_by_range)) {
    throw InputError("--trace records the activity timeline alone, without counters: --plan, --metrics, --save-raw, "
                     "--replay, --graph-profiling and the launch filters (-k, -s, -c, --sample-every, "
                     "--per-kernel-count, --per-kernel-skip, --nvtx-include/--nvtx-exclude, --budget-by-range) belong "
                     "to the exact mode; filter the report instead (limiter report -k)");
  }
  if (o.sampling && (o.replay == "kernel" || o.graph_profiling != "node" || o.count != kUnset || o.skip > 0 ||
                     o.sample_every > 1 || o.profiler_api_regions || !o.kernel_regex.empty() ||
                     !o.nvtx_include.empty() || !o.nvtx_exclude.empty() || o.budget_by_range)) {
    throw InputError("--sampling samples the whole GPU without replay: --replay, --graph-profiling and the launch "
                     "filters (-k, -s, -c, --sample-every, --capture-range, --nvtx-include/--nvtx-exclude, "
                     "--budget-by-range) belong to the exact mode; filter the report instead (limiter report -k). "
                     "--per-kernel-count/--per-kernel-skip go with it: each kernel's first launches exactly, then "
                     "sampling");
  }
  if (o.exact_undecided_count > 0 && !o.sampling) throw InputError("--exact-undecided N goes with --sampling, N at least 1");
  if (o.exact_undecided_count > 0 && budgets)
    throw InputError("--exact-undecided (sampling, then the undecided kernels exactly) cannot go with "
                     "--per-kernel-count/--per-kernel-skip (each kernel's first launches exactly, then sampling)");
  if (o.sampling_phase_launches != CollectorOptions{}.sampling_phase_launches && o.exact_undecided_count == 0)
    throw InputError("--sampling-phase goes with --exact-undecided");
  if (!o.nvtx && (!o.nvtx_include.empty() || !o.nvtx_exclude.empty() || o.budget_by_range))
    throw InputError("--no-nvtx cannot go with --nvtx-include, --nvtx-exclude or --budget-by-range");
  if (o.budget_by_range && !budgets && !phased)  // the default run's counters phase always has a budget
    throw InputError("--budget-by-range needs --per-kernel-count N (or --per-kernel-skip N)");
  [[maybe_unused]] const NvtxFilter checked(o.nvtx_include, o.nvtx_exclude);  // a bad expression names itself
}

std::vector<std::string> collector_options_environment(const CollectorOptions& o) {
  // Every variable, defaults too: then none the user happened to export gets in the way.
  std::vector<std::string> out;
  auto set = [&](const char* name, const std::string& value) { out.push_back(std::string(name) + "=" + value); };
  auto number = [&](const char* name, std::uint64_t value) { set(name, std::to_string(value)); };
  auto flag = [&](const char* name, bool value) { set(name, value ? "1" : "0"); };
  set("LIMITER_PLAN", o.plan);
  set("LIMITER_METRICS", joined(o.metrics));
  set("LIMITER_KERNEL_REGEX", o.kernel_regex);
  number("LIMITER_SKIP", o.skip);
  number("LIMITER_COUNT", o.count);
  number("LIMITER_SAMPLE_EVERY", o.sample_every);
  number("LIMITER_PER_KERNEL_SKIP", o.per_kernel_skip);
  number("LIMITER_PER_KERNEL_COUNT", o.per_kernel_count);
  flag("LIMITER_NVTX", o.nvtx);
  set("LIMITER_NVTX_INCLUDE", json_text(nlohmann::json(o.nvtx_include)));
  set("LIMITER_NVTX_EXCLUDE", json_text(nlohmann::json(o.nvtx_exclude)));
  set("LIMITER_NVTX_PUSH_POP_SCOPE", o.nvtx_process_scope ? "process" : "thread");
  flag("LIMITER_BUDGET_BY_RANGE", o.budget_by_range);
  set("LIMITER_SAVE_RAW", o.raw_dir);
  set("LIMITER_COMMAND", json_text(nlohmann::json(o.command_line)));
  set("LIMITER_REPLAY", o.replay);
  set("LIMITER_GRAPH_PROFILING", o.graph_profiling);
  number("LIMITER_RANGES_PER_IMAGE", o.ranges_per_image);
  flag("LIMITER_ALWAYS_ACTIVE", o.always_active);
  set("LIMITER_CAPTURE_RANGE", o.profiler_api_regions ? "cudaProfilerApi" : "none");
  flag("LIMITER_SAMPLING", o.sampling);
  number("LIMITER_SAMPLING_INTERVAL_NS", o.sampling_interval_ns);
  number("LIMITER_EXACT_UNDECIDED", o.exact_undecided_count);
  number("LIMITER_SAMPLING_PHASE", o.sampling_phase_launches);
  flag("LIMITER_ACTIVITY_TRACE", o.trace);
  flag("LIMITER_API_RECORDS", o.api_records);
  flag("LIMITER_STALLS", o.stalls);
  flag("LIMITER_EVERY_LAUNCH", o.every_launch);
  number("LIMITER_STALL_WINDOW_MS", o.stall_window_ms);
  number("LIMITER_STALL_WINDOW_SAMPLES", o.stall_window_samples);
  set("LIMITER_CUBIN_DIR", o.cubin_dir);
  number("LIMITER_STALL_PERIOD", o.stall_period_log2);
  set("LIMITER_CACHE_CONTROL", o.cache_control);
  set("LIMITER_LOCK_TIMEOUT", nlohmann::json(o.lock_timeout_s).dump());  // round-trips the double exactly
  set("LIMITER_LOCK_DIR", o.lock_dir);
  flag("LIMITER_DEBUG", o.debug);
  set("LIMITER_FILTER_RANGES", o.auto_range_for_filters ? "auto" : "user");
  set("LIMITER_RANGE_SYNC", o.range_sync);
  number("LIMITER_PM_BUFFER_MIB", o.pm_buffer_mib);
  flag("LIMITER_PM_RAW_IMAGES", o.keep_pm_images);
  flag("LIMITER_TIMELINE", o.timeline);
  return out;
}

CollectorOptions collector_options_from_environment(const EnvironmentLookup& lookup) {
  const Variables env(lookup);
  CollectorOptions o;
  o.plan = env.text("LIMITER_PLAN", o.plan);
  o.metrics = split(env.text("LIMITER_METRICS"));
  o.kernel_regex = env.text("LIMITER_KERNEL_REGEX");
  o.skip = env.number("LIMITER_SKIP", o.skip);
  o.count = env.number("LIMITER_COUNT", o.count);
  o.sample_every = env.number("LIMITER_SAMPLE_EVERY", o.sample_every);
  o.per_kernel_skip = env.number("LIMITER_PER_KERNEL_SKIP", o.per_kernel_skip);
  o.per_kernel_count = env.number("LIMITER_PER_KERNEL_COUNT", o.per_kernel_count);
  o.nvtx = env.flag("LIMITER_NVTX");
  o.nvtx_include = env.list("LIMITER_NVTX_INCLUDE");
  o.nvtx_exclude = env.list("LIMITER_NVTX_EXCLUDE");
  o.nvtx_process_scope = env.flag("LIMITER_NVTX_PUSH_POP_SCOPE", "process");
  o.budget_by_range = env.flag("LIMITER_BUDGET_BY_RANGE");
  o.raw_dir = env.text("LIMITER_SAVE_RAW");
  o.command_line = env.list("LIMITER_COMMAND");
  o.replay = env.text("LIMITER_REPLAY", o.replay);
  o.graph_profiling = env.text("LIMITER_GRAPH_PROFILING", o.graph_profiling);
  o.ranges_per_image = env.number("LIMITER_RANGES_PER_IMAGE", o.ranges_per_image);
  o.always_active = env.flag("LIMITER_ALWAYS_ACTIVE");
  o.profiler_api_regions = env.flag("LIMITER_CAPTURE_RANGE", "cudaProfilerApi");
  o.sampling = env.flag("LIMITER_SAMPLING");
  o.sampling_interval_ns = env.number("LIMITER_SAMPLING_INTERVAL_NS", o.sampling_interval_ns);
  o.exact_undecided_count = env.number("LIMITER_EXACT_UNDECIDED", o.exact_undecided_count);
  o.sampling_phase_launches = env.number("LIMITER_SAMPLING_PHASE", o.sampling_phase_launches);
  o.trace = env.flag("LIMITER_ACTIVITY_TRACE");
  o.stalls = env.flag("LIMITER_STALLS");
  o.every_launch = env.flag("LIMITER_EVERY_LAUNCH");
  o.stall_window_ms = env.number("LIMITER_STALL_WINDOW_MS", o.stall_window_ms);
  o.stall_window_samples = env.number("LIMITER_STALL_WINDOW_SAMPLES", o.stall_window_samples);
  o.cubin_dir = env.text("LIMITER_CUBIN_DIR");
  o.stall_period_log2 = static_cast<std::uint32_t>(env.number("LIMITER_STALL_PERIOD", o.stall_period_log2));
  o.cache_control = env.text("LIMITER_CACHE_CONTROL", o.cache_control);
  if (const std::string timeout = env.text("LIMITER_LOCK_TIMEOUT"); !timeout.empty()) {
    try {
      o.lock_timeout_s = std::stod(timeout);
    } catch (const std::exception&) {
      throw InputError("LIMITER_LOCK_TIMEOUT='" + timeout + "' is not a number of seconds");
    }
  }
  if (const std::string dir = env.text("LIMITER_LOCK_DIR"); !dir.empty()) o.lock_dir = dir;
  o.debug = !env.text("LIMITER_DEBUG").empty() && env.text("LIMITER_DEBUG") != "0";
  o.auto_range_for_filters = env.flag("LIMITER_FILTER_RANGES", "auto");
  o.range_sync = env.text("LIMITER_RANGE_SYNC", o.range_sync);
  o.pm_buffer_mib = env.number("LIMITER_PM_BUFFER_MIB", o.pm_buffer_mib);
  o.keep_pm_images = env.flag("LIMITER_PM_RAW_IMAGES");
  o.timeline = env.flag("LIMITER_TIMELINE");
  o.api_records = env.text("LIMITER_API_RECORDS", "1") == "1";  // on unless set otherwise
  return o;
}

}  // namespace limiter
