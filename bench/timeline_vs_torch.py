#!/usr/bin/env python3
"""limiter's activity timeline against the PyTorch profiler's CUDA kernel events, on the same
program run twice (issue 28: the same kernels, total kernel time within 3 %, GPU busy within 3
points). Python 3 and, for `profile`, PyTorch.

  bench/timeline_vs_torch.py profile SCRIPT.py OUT.json [args...]
      Runs SCRIPT under torch.profiler (CUDA activities only) and writes its kernel events
      [{"name", "start_ns", "end_ns"}] to OUT.json.
  bench/timeline_vs_torch.py compare RECORD.json TORCH.json [--markdown OUT.md]
      Both sides' kernels over each side's own kernel window (first kernel start to last kernel
      end): count, total kernel time, GPU busy (union of kernel intervals) as a share of the window,
      and the kernels by name with their counts; prints a table and `ok`/`differs`.

The window is the kernels' own on both sides, so the program's set-up before its first kernel
(imports, compilation) weighs on neither."""
import gzip
import json
import runpy
import sys
from collections import Counter


def kernels_of_record(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        record = json.load(f)
    events = (record.get("timeline") or {}).get("events", [])
    return [(e["name"], e["start_ns"], e["end_ns"]) for e in events if e.get("kind") == "kernel"]


def kernels_of_torch(path):
    return [(e["name"], e["start_ns"], e["end_ns"]) for e in json.load(open(path))]


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


def compare(record, torch_json, markdown):
    ours, theirs = stats(kernels_of_record(record)), stats(kernels_of_torch(torch_json))
    time_diff = (ours["kernel_ns"] - theirs["kernel_ns"]) / theirs["kernel_ns"] if theirs["kernel_ns"] else float("inf")
    busy_diff = 100 * (ours["busy"] - theirs["busy"])
    same_count = ours["count"] == theirs["count"]
    ok = same_count and abs(time_diff) <= 0.03 and abs(busy_diff) <= 3
    lines = ["| | limiter --trace | PyTorch profiler | difference |", "|---|---|---|---|",
             f"| kernels | {ours['count']} | {theirs['count']} | {ours['count'] - theirs['count']:+d} |",
             f"| total kernel time (ms) | {ours['kernel_ns'] / 1e6:.3f} | {theirs['kernel_ns'] / 1e6:.3f} | {100 * time_diff:+.2f} % |",
             f"| kernel window (ms) | {ours['window_ns'] / 1e6:.3f} | {theirs['window_ns'] / 1e6:.3f} | |",
             f"| GPU busy in it | {100 * ours['busy']:.1f} % | {100 * theirs['busy']:.1f} % | {busy_diff:+.1f} points |"]
    text = "\n".join(lines) + f"\n\n{'ok' if ok else 'differs'}: same kernel count {same_count}, " \
        f"kernel time within 3 % {abs(time_diff) <= 0.03}, busy within 3 points {abs(busy_diff) <= 3}"
    print(text)
    if markdown:
        open(markdown, "w").write(text + "\n")
    return 0


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "profile":
        profile(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif len(sys.argv) >= 4 and sys.argv[1] == "compare":
        md = sys.argv[sys.argv.index("--markdown") + 1] if "--markdown" in sys.argv else None
        sys.exit(compare(sys.argv[2], sys.argv[3], md))
    else:
        sys.exit(__doc__)
