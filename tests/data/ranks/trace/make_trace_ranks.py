#!/usr/bin/env python3
"""Writes the two records of this folder (run from the repository root): the H100 gloo ranks with
their (synthetic) timeline, tests/data/timeline/, as `limiter run --trace` records them: the
timeline alone, no launch with counters, so a merged report must take kernel time from the timelines.
"""
import gzip
import json

for rank in (0, 1):
    with gzip.open("tests/data/timeline/h100_gloo_rank%d_timeline.json.gz" % rank, "rt") as f:
        record = json.load(f)
    record["launches"] = []
    for key in ("kernels_seen", "missed", "cache_control", "phases"):
        record.pop(key, None)
    record["command_line"] = ["limiter", "run", "--trace"] + record.get("command_line", [])
    with gzip.GzipFile("tests/data/ranks/trace/h100_gloo_rank%d_trace.json.gz" % rank, "wb", mtime=0) as out:
        out.write((json.dumps(record, indent=1) + "\n").encode())
