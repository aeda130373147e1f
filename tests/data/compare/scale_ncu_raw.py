#!/usr/bin/env python3
"""Derive an AFTER run from a recorded `ncu --csv --page raw` export by making chosen kernels
take FACTOR times as long for the same work: durations and elapsed/active SM cycles are
multiplied by FACTOR; throughputs (*.pct_of_peak_sustained_elapsed, *.per_second other than
clock rates, *.per_cycle_elapsed) are divided by it; work counters (bytes, sectors,
instructions) and the launch configuration stay as recorded.

  scale_ncu_raw.py IN.csv OUT.csv ID=FACTOR [ID=FACTOR ...]

The files in this folder were made with:
  scale_ncu_raw.py ../ncu/h200_probe_raw.csv h200_probe_local_array_slower.csv 5=1.25
  scale_ncu_raw.py ../ncu/h200_probe_raw.csv h200_probe_3x_slower_and_faster.csv 5=3 4=0.3333
"""
import csv
import re
import sys

TIME_LIKE = re.compile(r"^(gpu__time_duration|[a-z0-9]+__cycles_elapsed|sm__cycles_active|smsp__cycles_active)"
                       r"\.(avg|max|min|sum)$")
CLOCK_RATE = re.compile(r"__cycles_elapsed\.(avg|max|min|sum)\.per_second$")
RATE_LIKE = re.compile(r"(\.pct_of_peak_sustained_elapsed|\.per_second|\.per_cycle_elapsed)$")


def scaled(text, factor):
    plain = text.replace(",", "")
    try:
        value = float(plain)
    except ValueError:
        return text  # "n/a" and the like stay as they are
    decimals = len(plain.split(".")[1]) if "." in plain else 0
    result = value * factor
    return f"{result:,.{decimals}f}" if abs(result) >= 1000 else f"{result:.{decimals}f}"


def main():
    source, target, *changes = sys.argv[1:]
    factors = {kernel_id: float(factor) for kernel_id, factor in (change.split("=") for change in changes)}
    with open(source, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    header = rows[0]
    for row in rows[2:]:  # rows[1] holds the units
        factor = factors.get(row[0])
        if factor is None:
            continue
        for index, column in enumerate(header):
            if TIME_LIKE.search(column):
                row[index] = scaled(row[index], factor)
            elif RATE_LIKE.search(column) and not CLOCK_RATE.search(column):
                row[index] = scaled(row[index], 1.0 / factor)
    with open(target, "w", newline="", encoding="utf-8") as f:
        csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)


if __name__ == "__main__":
    main()
