#!/usr/bin/env python3
"""check_chrome_trace.py LIMITER OUTPUT RECORD...: runs `limiter export RECORD... --format
perfetto -o OUTPUT` and checks the file against the Chrome trace-event format that
ui.perfetto.dev and chrome://tracing read: a JSON object with a traceEvents array; every "X"
event has ts, dur, pid, tid and a name; every process and every track used is named by "M"
metadata; kernels carry their verdict."""
import json
import subprocess
import sys


def main():
    limiter, output, records = sys.argv[1], sys.argv[2], sys.argv[3:]
    subprocess.run([limiter, "export", *records, "--format", "perfetto", "-o", output], check=True)
    with open(output) as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    assert trace.get("displayTimeUnit") == "ns", "displayTimeUnit"
    processes, tracks, used = set(), set(), set()
    kernels = 0
    for e in events:
        if e["ph"] == "M":
            if e["name"] == "process_name":
                processes.add(e["pid"])
            if e["name"] == "thread_name":
                tracks.add((e["pid"], e["tid"]))
            assert isinstance(e["args"], dict), e
            continue
        assert e["ph"] == "X", e
        for key in ("ts", "dur", "pid", "tid", "name"):
            assert key in e, (key, e)
        assert e["dur"] >= 0 and e["ts"] >= 0, e
        used.add((e["pid"], e["tid"]))
        if e.get("cat") == "kernel":
            kernels += 1
            assert "verdict" in e["args"], e
    assert used <= tracks, used - tracks
    assert {pid for pid, _ in used} <= processes
    assert kernels > 0
    print("ok: %d events, %d kernels, %d processes, %d tracks" % (len(events), kernels, len(processes), len(tracks)))


if __name__ == "__main__":
    main()
