#!/usr/bin/env python3
"""The three-way verdict table of reports/kernels_h200.md: the limiter each kernel is meant to
show (`limiter kernels --list`), limiter's verdict on the collector's recording, and Nsight
Compute's Speed-of-Light verdict on its own recording of the same suite.

    scripts/kernel-verdict-table.py build/cli/limiter tests/data/kernels/h200_kernels_run.json \
        tests/data/kernels/h200_kernels_ncu.json > table.md
"""
import json
import subprocess
import sys
import tempfile


def report(limiter, recording):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([limiter, "report", recording, "--format", "json", "-o", out.name], check=True)
        return {k["name"]: k for k in json.load(open(out.name))["kernels"]}


def intended(limiter):
    listing = subprocess.run([limiter, "kernels", "--list"], check=True, capture_output=True, text=True).stdout
    rows = [line.split() for line in listing.splitlines()[1:] if line and not line.startswith(" ")]
    return {row[0]: row[2] for row in rows if len(row) > 2}


def verdict(k):
    text = k["verdict"] + (" (balanced)" if k.get("balanced") else "")
    causes = k.get("latency_causes") or []
    return text + (f" ({', '.join(causes)})" if causes else "")


def duration(ns):
    return f"{ns / 1e6:.2f} ms" if ns >= 1e6 else f"{ns / 1e3:.1f} us"


def main(limiter, ours_path, ncu_path):
    ours, theirs, meant = report(limiter, ours_path), report(limiter, ncu_path), intended(limiter)
    print("| # | kernel | intended | limiter (collector) | busiest unit | time | ncu SOL: SM % / memory % → verdict |")
    print("|---|---|---|---|---|---|---|")
    agree = 0
    for k in sorted(ours.values(), key=lambda k: k["sequence"]):
        u = k["utilization"]
        unit = k["limiting_unit"] or max(("issue", "l1", "l2", "dram"), key=lambda n: u.get(n) or 0)
        n = theirs.get(k["name"], {}).get("ncu")
        sol = f"{n['sm_throughput_pct']:.1f} / {n['memory_throughput_pct']:.1f} → {n['verdict']}" if n else "—"
        same = meant.get(k["name"]) == k["verdict"] and (not n or n["verdict"] == k["verdict"])
        agree += same
        mark = "" if same else " **≠**"
        print(f"| {k['sequence']} | `{k['name']}` | {meant.get(k['name'], '—')} | {verdict(k)}{mark} | "
              f"{unit} {100 * (u.get(unit) or 0):.0f}% | {duration(k['duration_ns'])} | {sol} |")
    print(f"\n{agree} of {len(ours)} agree three ways.")


if __name__ == "__main__":
    main(*sys.argv[1:4])
