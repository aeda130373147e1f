#!/usr/bin/env python3
"""Writes simulated records of a job's ranks: RANKS records of LAUNCHES launches each.

Each rank is a real recording (default: the H100 MLP-training record under tests/data/cupti,
10,071 launches of 32 kernels) with the rank fields of a torchrun job (world size RANKS, 8
ranks a host, a GPU each), its launches cycled to LAUNCHES with new sequence numbers and each
rank's kernels a few per cent slower or faster, so the merged report has a spread and a slowest
rank. Written gzipped (a 12,000-launch rank is ~30 MB of JSON, ~1.5 MB compressed), on every core.

    bench/rank_scale.py OUTDIR --ranks 256 --launches 12000
"""
import argparse
import gzip
import json
import multiprocessing
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEMPLATE = os.path.join(ROOT, "tests", "data", "cupti", "h100_mlp_training_limiter.json.gz")
DURATION = "gpu__time_duration.sum"
RANKS_PER_HOST = 8
SPEEDS = (1.00, 1.02, 0.99, 1.05, 1.01)  # each rank's kernels against the recording's


def read_template(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        record = json.load(f)
    launches = record.pop("launches")
    for key in ("rank", "timeline", "stalls", "phases", "kernels_seen", "missed"):
        record.pop(key, None)
    return record, launches


def launch_texts(launches, speed):
    """The launches as JSON text, their durations times SPEED, "sequence" first (then renumbered)."""
    texts = []
    for launch in launches:
        launch = dict(launch)
        counters = dict(launch.get("counters", {}))
        if DURATION in counters:
            counters[DURATION] = counters[DURATION] * speed
        launch["counters"] = counters
        launch.pop("sequence", None)
        texts.append(json.dumps(launch, separators=(", ", ": ")))
    return texts


def write_rank(job):
    path, header, texts, launches, rank, world = job
    header = dict(header)
    header["launches_seen"] = launches
    header["host"] = "node%d" % (rank // RANKS_PER_HOST)
    header["rank"] = {"rank": rank, "world_size": world, "local_rank": rank % RANKS_PER_HOST, "launcher": "torchrun"}
    device = dict(header["device"])
    device["uuid"] = "GPU-%08x-0000-0000-0000-%012x" % (rank // RANKS_PER_HOST, rank % RANKS_PER_HOST)
    header["device"] = device
    body = json.dumps(header, indent=1)[:-2]  # without the closing brace: the launches follow
    lines = ['{"sequence": %d, %s' % (i, texts[i % len(texts)][1:]) for i in range(launches)]
    with gzip.open(path, "wt", compresslevel=1) as f:
        f.write(body + ',\n "launches": [\n' + ",\n".join(lines) + "\n ]\n}\n")
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("outdir")
    parser.add_argument("--ranks", type=int, default=256)
    parser.add_argument("--launches", type=int, default=12000, help="per rank")
    parser.add_argument("--template", default=TEMPLATE, help="a run record whose launches each rank repeats")
    args = parser.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    header, launches = read_template(args.template)
    texts = [launch_texts(launches, speed) for speed in SPEEDS]
    jobs = [(os.path.join(args.outdir, "limiter_rank%d.json.gz" % rank), header, texts[rank % len(SPEEDS)],
             args.launches, rank, args.ranks) for rank in range(args.ranks)]
    with multiprocessing.Pool() as pool:
        for _ in pool.imap_unordered(write_rank, jobs):
            pass
    print("%d ranks of %d launches -> %s" % (args.ranks, args.launches, args.outdir))


if __name__ == "__main__":
    main()
