#!/usr/bin/env python3
"""limiter's activity timeline against the PyTorch profiler's CUDA kernel events, on the same
program run twice (target: the same kernels, total kernel time within 3 %, GPU busy within 3
points). Python 3 and, for `profile`, PyTorch.

  bench/timeline_vs_torch.py profile SCRIPT.py OUT.json [args...]
      Runs SCRIPT under torch.profiler (CUDA activities only) and writes its kernel events
      [{"name", "start_ns", "end_ns"}] to OUT.json.
  bench/timeline_vs_torch.py profile-jax SCRIPT.py OUT.json [args...]
      The same for a JAX program: runs SCRIPT under jax.profiler (its Chrome-trace JSON, see
      kernels_of_jax_trace) and writes its kernel events, the same list, to OUT.json; the
      profiler's own folder is kept as OUT.json.logdir/.
  bench/timeline_vs_torch.py compare RECORD.json TORCH.json [--markdown OUT.md] [--theirs NAME]
      Both sides' kernels over each side's own kernel window (first kernel start to last kernel
      end): count, total kernel time, GPU busy (union of kernel intervals) as a share of the window,
      and the kernels by name with their counts; prints a table and `ok`/`differs`. --theirs names
      the other side's column (default "PyTorch profiler").

The window is the kernels' own on both sides, so the program's set-up before its first kernel
(imports, compilation) weighs on neither. Both profilers run over the whole program (runpy under
the profiler), as limiter does."""
import decimal
import gzip
import json
import os
import runpy
import sys
from collections import Counter


def kernels_of_record(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        record = json.load(f)
    events = (record.get("timeline") or {}).get("events", [])
    return [(e["name"], e["start_ns"], e["end_ns"]) for e in events if e.get("kind") == "kernel"]


def kernels_of_torch(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return [(e["name"], e["start_ns"], e["end_ns"]) for e in json.load(f)]


def stats(kernels):
    if not kernels:
        return {"count": 0, "kernel_ns": 0, "window_ns": 0, "busy_ns": 0, "busy": 0.0, "names": Counter()}
    kernels = sorted(kernels, key=lambda k: k[1])
    busy, open_start, open_end = 0, kernels[0][1], kernels[0][2]
    for _, start, end in kernels[1:]:
        if start > open_end:
            busy += open_end - open_start
            open_start, open_end = start, end
        else:
            open_end = max(open_end, end)
    busy += open_end - open_start
    window = max(k[2] for k in kernels) - kernels[0][1]
    return {"count": len(kernels), "kernel_ns": sum(k[2] - k[1] for k in kernels), "window_ns": window,
            "busy_ns": busy, "busy": busy / window if window else 0.0, "names": Counter(k[0] for k in kernels)}


def profile(script, out, args):
    import torch
    from torch.profiler import ProfilerActivity
    sys.argv = [script] + args
    with torch.profiler.profile(activities=[ProfilerActivity.CUDA]) as prof:
        runpy.run_path(script, run_name="__main__")
        torch.cuda.synchronize()
    kernels = []
    for event in prof.events():
        if event.device_type == torch.autograd.DeviceType.CUDA and event.time_range.elapsed_us() >= 0 \
                and "memcpy" not in event.name.lower() and "memset" not in event.name.lower():
            # time_range is in microseconds (floats with ns resolution from CUPTI)
            kernels.append({"name": event.name, "start_ns": int(round(event.time_range.start * 1000)),
                            "end_ns": int(round(event.time_range.end * 1000))})
    json.dump(kernels, open(out, "w"))
    print(f"torch profiler: {len(kernels)} kernel events -> {out}")


# JAX: jax.profiler writes the XSpace it collected as a Chrome trace (TensorBoard's trace viewer
# JSON; jax/_src/profiler.py, stop_trace: <logdir>/plugins/profile/<run>/<host>.trace.json.gz,
# and with create_perfetto_trace=True a copy without "metadata", perfetto_trace.json.gz). Its
# shape (XLA's xla/tsl/profiler/convert/trace_events_to_json.cc and xplane_to_trace_events.cc):
#   {"displayTimeUnit": "ns", "metadata": {"highres-ticks": true}, "traceEvents": [
#     {"ph": "M", "pid": P, "name": "process_name", "args": {"name": "/device:GPU:0"}},
#     {"ph": "M", "pid": P, "tid": T, "name": "thread_name", "args": {"name": "Stream #13(Kernel,MemcpyH2D)"}},
#     {"ph": "X", "pid": P, "tid": T, "ts": 1234.567891, "dur": 3.2, "name": "...", "args": {"k": "v", ...}},
#     ..., {}]}
# one process a plane (the host threads, then "/device:GPU:N" a GPU), one thread a line, ts and
# dur in microseconds printed to picoseconds, every arg's value a string. XLA's CUPTI collector
# (xla/backends/profiler/gpu/cupti_collector.cc, GetDeviceXLineName, CreateXEvent) puts each
# activity record on its stream's line, "Stream #<id>" with the record types it holds in
# parentheses; a kernel's event carries the stat "kernel_details", a copy "memcpy_details", a
# memset "memset_details" (and an unnamed copy or memset is named after its type, "MemcpyH2D",
# "Memset"). The GPU plane's other lines ("XLA Modules", "XLA Ops", "Steps", "Framework Ops",
# "Source code", "CUPTI overhead") are derived from the kernels or are not kernels: left out.
# A whole CUDA graph's record ("cuda_graph_exec_id", no "kernel_details") is no kernel either;
# XLA runs its command buffers (CUDA graphs) op by op while its profiler is on anyway
# (xla/backends/gpu/runtime/command_buffer_thunk.cc: ProfilerLock::HasActiveSession()), which is
# why bench/run.sh timeline-vs-jax turns them off in both runs.
NOT_KERNEL_DETAILS = ("memcpy_details", "memset_details", "memalloc_details", "memfree_details",
                      "memory_residency_details", "cuda_graph_exec_id")


def _ns(microseconds):
    """ts or dur (a JSON number of microseconds: int, float or Decimal) as whole nanoseconds."""
    value = decimal.Decimal(str(microseconds)) * 1000
    return int(value.to_integral_value(rounding=decimal.ROUND_HALF_EVEN))


def kernels_of_jax_trace(trace):
    """The kernel events of a jax.profiler Chrome trace (the dict of its JSON, or its event list):
    [{"name", "start_ns", "end_ns"}] by start. Kernel events: complete events ("ph": "X") on a
    "Stream #..." thread of a "/device:GPU:..." process that carry "kernel_details", or carry no
    copy/memset details and are not named Memcpy.../Memset... (a trace without the stats)."""
    events = trace.get("traceEvents", []) if isinstance(trace, dict) else trace
    gpu_pids = {e.get("pid") for e in events
                if e.get("ph") == "M" and e.get("name") == "process_name"
                and str((e.get("args") or {}).get("name", "")).startswith("/device:GPU:")}
    streams = {(e.get("pid"), e.get("tid")) for e in events
               if e.get("ph") == "M" and e.get("name") == "thread_name" and e.get("pid") in gpu_pids
               and str((e.get("args") or {}).get("name", "")).startswith("Stream #")}
    kernels = []
    for e in events:
        if e.get("ph") != "X" or (e.get("pid"), e.get("tid")) not in streams:
            continue
        args, name = e.get("args") or {}, str(e.get("name", ""))
        if "kernel_details" not in args and (any(k in args for k in NOT_KERNEL_DETAILS) or
                                             "memcpy" in name.lower() or "memset" in name.lower()):
            continue
        start = decimal.Decimal(str(e["ts"]))
        kernels.append({"name": name, "start_ns": _ns(start), "end_ns": _ns(start + decimal.Decimal(str(e.get("dur", 0))))})
    kernels.sort(key=lambda k: (k["start_ns"], k["end_ns"]))
    return kernels


def jax_trace_file(logdir):
    """The Chrome trace jax.profiler wrote under logdir: the newest run folder's
    perfetto_trace.json.gz, else its *.trace.json.gz. Raises with what the folder holds."""
    root = os.path.join(logdir, "plugins", "profile")
    runs = [os.path.join(root, d) for d in os.listdir(root)] if os.path.isdir(root) else []
    runs = [d for d in runs if os.path.isdir(d)]
    if not runs:
        raise RuntimeError(f"jax.profiler wrote no run folder under {root}")
    run = max(runs, key=os.path.getmtime)
    files = sorted(os.listdir(run))
    for wanted in ["perfetto_trace.json.gz"] + [f for f in files if f.endswith(".trace.json.gz")]:
        if wanted in files:
            return os.path.join(run, wanted)
    raise RuntimeError(f"no perfetto_trace.json.gz or *.trace.json.gz in {run} (it holds: {', '.join(files) or 'nothing'}); "
                       "this jax exports only the XSpace (*.xplane.pb), whose conversion to a trace "
                       "(xprof / tensorboard-plugin-profile) this script does not do")


def load_jax_trace(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return json.load(f, parse_float=decimal.Decimal)  # ts to the picosecond, no float rounding


def profile_jax(script, out, args):
    # Before jax's import: the script's own setting would come too late (jax is imported here
    # first). The trace viewer's cap on events (5 million in recent XLA, 1 million before) would
    # drop events silently: raised.
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    os.environ.setdefault("TF_PROFILER_TRACE_VIEWER_MAX_EVENTS", "100000000")
    try:
        import jax
        import jax.profiler
    except ImportError as error:
        sys.exit(f"profile-jax: jax does not import ({error})")
    import inspect
    logdir = os.path.abspath(out + ".logdir")
    os.makedirs(logdir, exist_ok=True)
    parameters = inspect.signature(jax.profiler.start_trace).parameters
    options = {}
    if "create_perfetto_trace" in parameters:
        options["create_perfetto_trace"] = True
    else:  # older jax: the *.trace.json.gz of the export is read instead
        print("profile-jax: jax.profiler.start_trace has no create_perfetto_trace; reading *.trace.json.gz")
    if "profiler_options" in parameters and hasattr(jax.profiler, "ProfileOptions"):
        # Python function tracing (on by default) adds an event per Python call: kernels only.
        profile_options = jax.profiler.ProfileOptions()
        if hasattr(profile_options, "python_tracer_level"):
            profile_options.python_tracer_level = 0
        options["profiler_options"] = profile_options
    print(f"profile-jax: jax {jax.__version__}, devices {jax.devices()}, trace in {logdir}")
    sys.argv = [script] + args
    jax.profiler.start_trace(logdir, **options)
    exit_code = 0
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as stop:
        exit_code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    finally:  # the script synchronises at its end (jax.block_until_ready); stop_trace flushes CUPTI
        jax.profiler.stop_trace()
    try:
        path = jax_trace_file(logdir)
    except RuntimeError as error:
        sys.exit(f"profile-jax: {error}")
    trace = load_jax_trace(path)
    kernels = kernels_of_jax_trace(trace)
    events = trace.get("traceEvents", []) if isinstance(trace, dict) else trace
    processes = sorted({str((e.get("args") or {}).get("name")) for e in events
                        if e.get("ph") == "M" and e.get("name") == "process_name"})
    if not kernels:
        sys.exit(f"profile-jax: no kernel events in {path} (its processes: {', '.join(processes) or 'none'}); "
                 "no /device:GPU process means jax's GPU tracer (CUPTI) recorded nothing: see jax's log "
                 "above for CUPTI errors (libcupti not found, CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, another "
                 "profiler holding CUPTI)")
    with open(out, "w") as f:
        json.dump(kernels, f)
    print(f"jax profiler: {len(kernels)} kernel events ({sum(1 for e in events if e.get('ph') == 'X')} "
          f"complete events in all) from {path} -> {out}")
    if exit_code:
        sys.exit(f"profile-jax: {script} exited {exit_code}")


def compare(record, torch_json, markdown, other_name="PyTorch profiler"):
    ours, theirs = stats(kernels_of_record(record)), stats(kernels_of_torch(torch_json))
    time_diff = (ours["kernel_ns"] - theirs["kernel_ns"]) / theirs["kernel_ns"] if theirs["kernel_ns"] else float("inf")
    busy_diff = 100 * (ours["busy"] - theirs["busy"])
    same_count = ours["count"] == theirs["count"]
    ok = same_count and abs(time_diff) <= 0.03 and abs(busy_diff) <= 3
    lines = [f"| | limiter --trace | {other_name} | difference |", "|---|---|---|---|",
             f"| kernels | {ours['count']} | {theirs['count']} | {ours['count'] - theirs['count']:+d} |",
             f"| total kernel time (ms) | {ours['kernel_ns'] / 1e6:.3f} | {theirs['kernel_ns'] / 1e6:.3f} | {100 * time_diff:+.2f} % |",
             f"| kernel window (ms) | {ours['window_ns'] / 1e6:.3f} | {theirs['window_ns'] / 1e6:.3f} | |",
             f"| GPU busy in it | {100 * ours['busy']:.1f} % | {100 * theirs['busy']:.1f} % | {busy_diff:+.1f} points |"]
    text = "\n".join(lines) + f"\n\n{'ok' if ok else 'differs'}: same kernel count {same_count}, " \
        f"kernel time within 3 % {abs(time_diff) <= 0.03}, busy within 3 points {abs(busy_diff) <= 3}"
    print(text)
    if markdown:
        with open(markdown, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "profile":
        profile(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif len(sys.argv) >= 4 and sys.argv[1] == "profile-jax":
        profile_jax(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif len(sys.argv) >= 4 and sys.argv[1] == "compare":
        md = sys.argv[sys.argv.index("--markdown") + 1] if "--markdown" in sys.argv else None
        other_name = sys.argv[sys.argv.index("--theirs") + 1] if "--theirs" in sys.argv else "PyTorch profiler"
        sys.exit(compare(sys.argv[2], sys.argv[3], md, other_name))
    else:
        sys.exit(__doc__)
