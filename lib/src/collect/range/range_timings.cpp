// The exact session's account of its host time (`limiter run --timing`).
#include <cstdio>

#include "collect/range/range_timings.hpp"

namespace limiter::detail {

std::string RangeTimings::to_text() const {
  const double per_launch = launches ? 1e6 / static_cast<double>(launches) : 0.0;
  const double total = metadata_s + launch_call_s + synchronize_s + stop_s + decode_s + evaluate_s + image_init_s +
                       set_config_s + start_s;
  char text[1280];
  std::snprintf(
      text, sizeof text,
      "collector set-up %.0f ms (device %.0f ms, counter availability %.0f ms, config image %.0f ms);\n"
      "time per launch (%llu launches, %llu user-replay batches): %.1f us\n"
      "  metadata %.1f us, launch call with CUPTI's range work %.1f us (on the CPU %.1f us, %.2f blocking\n"
      "  waits), batch synchronise %.1f us,\n"
      "  Stop %.1f us, DecodeData %.1f us, evaluate %.1f us, image init %.1f us, SetConfig %.1f us, Start %.1f us\n"
      "  turns on the counters: waited %.0f ms, %llu yielded (%.0f ms), Enable %.0f ms, %llu busy retries\n"
      "  pauses after runs of unselected launches: %llu; unselected launches run unranged beside a\n"
      "  running profiler (user-range mode): %llu\n",
      set_up_s * 1e3, set_up_device_s * 1e3, set_up_availability_s * 1e3, set_up_config_s * 1e3,
      static_cast<unsigned long long>(launches), static_cast<unsigned long long>(batches), total * per_launch,
      metadata_s * per_launch, launch_call_s * per_launch, launch_call_cpu_s * per_launch,
      static_cast<double>(launch_call_switches) * per_launch * 1e-6, synchronize_s * per_launch, stop_s * per_launch,
      decode_s * per_launch, evaluate_s * per_launch, image_init_s * per_launch, set_config_s * per_launch,
      start_s * per_launch, turn_wait_s * 1e3, static_cast<unsigned long long>(turns_yielded), yield_s * 1e3,
      enable_s * 1e3, static_cast<unsigned long long>(busy_retries), static_cast<unsigned long long>(filter_pauses),
      static_cast<unsigned long long>(unranged_launches));
  std::string out = text;
  if (host_timed_launches > 0)
    out += "  launches not ranged after a host-timed kernel (XLA's GPU timer), until the next synchronisation: " +
           std::to_string(host_timed_launches) + "\n";
  if (devices_prepared > 0) {
    std::snprintf(
        text, sizeof text,
        "  set-up prepared off the app's thread (%llu devices): %.0f ms (support check and description %.0f ms, "
        "config image %.0f ms); the first launch waited %.0f ms for it; the profiler started there "
        "(the first Start) %.0f ms\n",
        static_cast<unsigned long long>(devices_prepared), (prepared_device_s + prepared_config_s) * 1e3,
        prepared_device_s * 1e3, prepared_config_s * 1e3, prepare_wait_s * 1e3, started_ahead_s * 1e3);
  } else {
    std::snprintf(text, sizeof text, "  set-up prepared off the app's thread: none (done at the first launch)\n");
  }
  out.insert(out.find('\n') + 1, text);  // under the set-up line
  if (user_ranges > 0 || graph_nodes > 0) {
    // Beside the parts above: the user ranges' own work and the graph nodes run one at a time.
    const auto per = [](double seconds, std::uint64_t count) {
      return count ? seconds * 1e6 / static_cast<double>(count) : 0.0;
    };
    std::snprintf(
        text, sizeof text,
        "  user ranges: %llu, push + pop %.1f us each, synchronise before pop %.1f us each; range-mode switches %llu\n"
        "  graph nodes run one at a time: %llu, cuGraphNodeSetEnabled %.1f us and launch %.1f us per node\n",
        static_cast<unsigned long long>(user_ranges), per(push_pop_s, user_ranges), per(range_sync_s, user_ranges),
        static_cast<unsigned long long>(range_mode_switches), static_cast<unsigned long long>(graph_nodes),
        per(graph_toggle_s, graph_nodes), per(graph_node_launch_s, graph_nodes));
    out += text;
  }
  if (l2_flushes > 0) {
    std::snprintf(text, sizeof text, "  --cache-control all: %llu L2 flushes, %.1f us each (our kernel and the wait)\n",
                  static_cast<unsigned long long>(l2_flushes), l2_flush_s * 1e6 / static_cast<double>(l2_flushes));
    out += text;
  }
  return out;
}

}  // namespace limiter::detail
