#!/usr/bin/env python3
"""limiter's verdicts against Nsight Compute's Speed-of-Light verdicts on the same program and
GPU: a limiter run record and an ncu raw CSV (`--section SpeedOfLight --csv --page raw`) of the
same launches, paired in launch order (grid and block checked). A disagreement where either
side is within 3 points of a threshold (60, 80, or the 10-point balance gap) is a tie; where
both call the kernel balanced (60-80 % with the sides within 10 points), they agree.

    scripts/compare-sol.py build/cli/limiter RUN.json NCU.csv [--markdown OUT.md]
Prints the table and `agree A of N (T ties, D disagreements)`; exit 0.
"""
import json
import subprocess
import sys
import tempfile


def report(limiter, path):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([limiter, "report", path, "--launches", "--format", "json", "-o", out.name], check=True,
                       stdout=subprocess.DEVNULL)
        return sorted(json.load(open(out.name))["kernels"], key=lambda k: k["sequence"])


def near_threshold(compute, memory):
    values = [compute, memory]
    if any(abs(v - t) < 3 for v in values for t in (60, 80)):
        return True
    return 60 <= max(values) < 80 and abs(abs(compute - memory) - 10) < 3


def short(name, width=58):
    base = name.split("(")[0]
    return base if len(base) <= width else base[: width - 1] + "…"


def main(argv):
    limiter, ours_path, ncu_path = argv[1:4]
    ours, theirs = report(limiter, ours_path), report(limiter, ncu_path)
    if len(ours) != len(theirs):
        print(f"warning: {len(ours)} launches in the record, {len(theirs)} in the ncu export; pairing the first "
              f"{min(len(ours), len(theirs))}", file=sys.stderr)
    rows, agree, ties, differ = [], 0, 0, 0
    for a, b in zip(ours, theirs):
        if a["grid"] != b["grid"] or a["block"] != b["block"]:
            sys.exit(f"launch {a['sequence']}: {a['name'][:60]} {a['grid']}x{a['block']} is not ncu's "
                     f"{b['name'][:60]} {b['grid']}x{b['block']}")
        n = b["ncu"]
        u = a["utilization"]
        compute, memory = 100 * (u["compute"] or 0), 100 * (u["memory"] or 0)
        sm, mem = n["sm_throughput_pct"], n["memory_throughput_pct"]
        ncu_balanced = 60 <= max(sm, mem) < 80 and abs(sm - mem) < 10  # ncu: "Balanced Throughput"
        if a["verdict"] == n["verdict"]:
            mark, agree = "yes", agree + 1
        elif ncu_balanced and a.get("balanced"):
            mark, agree = "yes (both balanced)", agree + 1
        elif near_threshold(n["sm_throughput_pct"], n["memory_throughput_pct"]) or near_threshold(compute, memory):
            mark, ties = "tie", ties + 1
        else:
            mark, differ = "**no**", differ + 1
        rows.append(f"| {a['sequence']} | `{short(a.get('display_name') or a['name'])}` | {n['sm_throughput_pct']:.1f} / "
                    f"{n['memory_throughput_pct']:.1f} → {n['verdict']} | {compute:.1f} / {memory:.1f} → "
                    f"{a['verdict']} | {a['limiting_unit']} | {mark} |")
    out = ["| # | kernel | ncu SOL: SM % / memory % → verdict | limiter: compute % / memory % → verdict | "
           "limiting unit | agree |", "|---|---|---|---|---|---|"] + rows
    total = len(rows)
    out.append(f"\nagree {agree} of {total} ({100 * agree / max(total, 1):.1f} %), {ties} ties within 3 points of a "
               f"threshold, {differ} disagreements")
    text = "\n".join(out)
    print(text)
    if "--markdown" in argv:
        open(argv[argv.index("--markdown") + 1], "w").write(text + "\n")


if __name__ == "__main__":
    main(sys.argv)
