#!/usr/bin/env python3
"""Writes the two records of this folder: the H100 gloo ranks' recordings (tests/data/ranks/)
with a SYNTHETIC activity timeline added (made up here, not measured: the collector that records
real ones came later), so that the program verdict, the reports and the Perfetto export have a
committed recording with a timeline. Rank 0 is launch-bound (each kernel shorter than the launch
call after it), rank 1 sync-bound (a synchronisation after every kernel that returns 150 us after
it), both with a pageable host-to-device copy first and NVTX ranges train_step/forward/.

    python3 tests/data/timeline/make_timeline_records.py   # from the repository root
"""
import gzip
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
RANKS = os.path.join(HERE, "..", "ranks")
START = 1_000_000_000  # ns: the timestamps' origin, as CUPTI's clock would give it
THREAD = 4242


def event(kind, start, end, name, **fields):
    out = {"kind": kind, "start_ns": start, "end_ns": end}
    out.update({k: v for k, v in fields.items() if k in ("stream_id", "context_id", "device", "correlation_id")})
    out["name"] = name
    out.update({k: v for k, v in fields.items() if k not in ("stream_id", "context_id", "device", "correlation_id")})
    return out


def timeline_for(record, sync_bound):
    events, t = [], START
    # A pageable host-to-device copy first: the host stages it, then the copy engine runs.
    events.append(event("api_call", t, t + 60_000, "cuMemcpyHtoD_v2", correlation_id=1, thread_id=THREAD))
    events.append(event("memcpy", t + 40_000, t + 58_000, "HtoD", stream_id=7, context_id=1, device=0,
                        correlation_id=1, bytes=4 << 20, pageable=True))
    t += 61_000
    step_start, forward_start, correlation = t, t, 2
    for index, launch in enumerate(record["launches"]):
        duration = int(launch["counters"].get("gpu__time_duration.sum", 10_000))
        call = 5_000 if sync_bound else 2 * duration + 40_000  # the kernel ends well before its launch call
        events.append(event("api_call", t, t + call, "cuLaunchKernel", correlation_id=correlation, thread_id=THREAD))
        kernel_start = t + 3_000
        kernel_end = kernel_start + duration
        events.append(event("kernel", kernel_start, kernel_end, launch["name"], stream_id=launch.get("stream_id", 7),
                            context_id=1, device=0, correlation_id=correlation, launch_sequence=launch["sequence"]))
        launch["start_ns"], launch["end_ns"], launch["duration_source"] = kernel_start, kernel_end, "activity"
        correlation += 1
        t += call
        if sync_bound:  # waits for the kernel, and returns 150 us after it ends
            sync_end = max(t, kernel_end) + 150_000
            events.append(event("api_call", t, sync_end, "cuStreamSynchronize", correlation_id=correlation,
                                thread_id=THREAD))
            events.append(event("synchronization", t, sync_end, "stream", stream_id=7, context_id=1,
                                correlation_id=correlation, thread_id=THREAD))
            correlation += 1
            t = sync_end + 5_000
        else:
            t += 1_000
        if index % 12 == 5:
            events.append(event("nvtx_range", forward_start, t, "train_step/forward/", thread_id=THREAD))
        if index % 12 == 11:
            events.append(event("nvtx_range", step_start, t, "train_step/", thread_id=THREAD))
            step_start = forward_start = t
    events.sort(key=lambda e: (e["start_ns"], e["end_ns"]))
    return {"start_ns": START, "end_ns": max(e["end_ns"] for e in events), "dropped_records": 0, "events": events}


def main():
    for rank, sync_bound in ((0, False), (1, True)):
        with gzip.open(os.path.join(RANKS, "h100_gloo_rank%d.json.gz" % rank), "rt") as f:
            record = json.load(f)
        timeline = timeline_for(record, sync_bound)
        launches = record.pop("launches")
        record["timeline"] = timeline
        record["launches"] = launches
        path = os.path.join(HERE, "h100_gloo_rank%d_timeline.json.gz" % rank)
        with gzip.GzipFile(path, "wb", mtime=0) as f:
            f.write(json.dumps(record, indent=None).encode() + b"\n")
        print(path, len(timeline["events"]), "events")


if __name__ == "__main__":
    main()
