#pragma once
// Where the exact session's host time went, summed over threads (`limiter run --timing`).
#include <cstdint>
#include <string>

namespace limiter::detail {

struct RangeTimings {
  std::uint64_t launches = 0;        // launch calls seen while a profiler ran (graph launches count once)
  std::uint64_t batches = 0;         // user-replay batches decoded (and pauses)
  double set_up_s = 0;               // per context, at its first launch: CUPTI, chip, config, images
  double set_up_device_s = 0;        // of it: the device checked and described
  double set_up_availability_s = 0;  // the counter-availability image
  double set_up_config_s = 0;        // the host API's config image for the plan
  // Prepared ahead, off the app's thread (device_preparer.hpp): devices whose set-up used it,
  // the work done there, and how long set_up waited for it (of set_up_device_s).
  std::uint64_t devices_prepared = 0;
  double prepared_device_s = 0;  // support check (and profiler initialise), description
  double prepared_config_s = 0;  // counter host, config image, pass count
  double prepare_wait_s = 0;
  // There too, once the device was prepared: the context set up, its profiler enabled, started
  // (the costly first Start) and stopped (RangeSession::start_ahead).
  double started_ahead_s = 0;
  double metadata_s = 0;                   // our launch-ENTER work: names, attributes, capture check
  double launch_call_s = 0;                // from our ENTER to our EXIT: the driver's launch with CUPTI's range work
                                           // (with kernel replay, the save/restore and the replays)
  double launch_call_cpu_s = 0;            // of it, CPU time of the launching thread: the rest it slept or waited
  std::uint64_t launch_call_switches = 0;  // voluntary context switches in it (blocking waits)
  double synchronize_s = 0;                // user replay: waiting for a batch's kernels before Stop
  double stop_s = 0;                       // cuptiRangeProfilerStop
  double decode_s = 0;                     // cuptiRangeProfilerDecodeData
  double evaluate_s = 0;                   // host evaluation of the ranges (Profiler Host API) and the sinks
  double image_init_s = 0;                 // counter-data image (re-)initialisation
  double set_config_s = 0;                 // SetConfig: per context, per batch, after a pause
  double start_s = 0;                      // Start: likewise
  double enable_s = 0;                     // Enable, counter-data size and first image init: per context and turn
  double turn_wait_s = 0;                  // waiting for the GPU's counters while another process had its turn
  double yield_s = 0;                      // handing the counters over: the batch decoded, Stop, Disable
  std::uint64_t turns_yielded = 0;         // turns handed to a waiting process
  std::uint64_t busy_retries = 0;          // Starts refused with CUPTI_ERROR_HARDWARE_BUSY, tried again
  std::uint64_t filter_pauses = 0;         // pauses after long runs of unselected launches
  std::uint64_t host_timed_launches = 0;   // not ranged: after a host-timed kernel, before a sync
  std::uint64_t unranged_launches = 0;     // unselected, run unranged while a user-range profiler ran
  // User ranges (user replay once a graph was launched): graph kernel nodes run one at a time, and every launch's range
  // once the context has launched a graph.
  std::uint64_t range_mode_switches = 0;  // a context's profiler re-created in user-range mode
  std::uint64_t user_ranges = 0;          // ranges pushed
  double push_pop_s = 0;                  // PushRange and PopRange
  double range_sync_s = 0;                // stream synchronise before a PopRange
  std::uint64_t graph_nodes = 0;          // runnable graph nodes launched one at a time
  double graph_toggle_s = 0;              // cuGraphNodeSetEnabled
  double graph_node_launch_s = 0;         // our launches of the graph with one node enabled
  std::uint64_t l2_flushes = 0;           // --cache-control all: L2 emptied before a profiled launch
  double l2_flush_s = 0;                  // our flush kernel and the wait for it
  std::string to_text() const;            // a few lines: per-launch microseconds of each part
};

}  // namespace limiter::detail
