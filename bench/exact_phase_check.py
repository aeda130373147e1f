#!/usr/bin/env python3
"""Are the exact launches of `--sampling --per-kernel-count K` what the budget alone measures?

  bench/exact_phase_check.py HYBRID.json BUDGET.json

HYBRID is a record of `limiter run --sampling --per-kernel-count K`, BUDGET one of
`limiter run --per-kernel-count K` on the same program. For each kernel and configuration in
both, compares the exact phase's mean counters ("exact:METRIC" in the aggregate, or the launches
of a kernel that ran only before sampling) with the budget's mean. Instruction counts of the same
kernel should match to the instruction; a sampler configured while the exact phase runs must not
change them. Prints the median and largest relative difference per counter."""
import json
import statistics
import sys

METRICS = ("smsp__inst_issued.sum", "lts__t_sectors.sum", "dram__bytes_read.sum", "gpu__time_duration.sum")


def key(launch):
    return (launch["name"], str(launch["grid"]), str(launch["block"]))


def means(record, exact_phase):
    sums = {}
    for launch in record["launches"]:
        sampled = launch.get("sampled")
        if exact_phase and sampled:
            if not sampled.get("exact_launches"):
                continue
            values = {m: sampled.get("exact:" + m) for m in METRICS}
            weight = sampled["exact_launches"]
        else:
            values = {m: launch.get("counters", {}).get(m) for m in METRICS}
            weight = 1
        entry = sums.setdefault(key(launch), {"n": 0, **{m: 0.0 for m in METRICS}})
        entry["n"] += weight
        for m in METRICS:
            entry[m] += (values[m] or 0.0) * weight
    return {k: {m: v[m] / v["n"] for m in METRICS} for k, v in sums.items() if v["n"]}


def main():
    hybrid, budget = (json.load(open(path)) for path in sys.argv[1:3])
    h, b = means(hybrid, True), means(budget, False)
    common = sorted(set(h) & set(b))
    print(f"kernels: {len(h)} in the exact phase, {len(b)} in the budget run, {len(common)} in both")
    for m in METRICS:
        diffs = [abs(h[k][m] - b[k][m]) / b[k][m] for k in common if b[k][m]]
        if diffs:
            worst = max(common, key=lambda k: abs(h[k][m] - b[k][m]) / b[k][m] if b[k][m] else 0)
            print(f"{m}: median {statistics.median(diffs):.2%}, largest {max(diffs):.2%} ({worst[0][:50]})")


if __name__ == "__main__":
    main()
