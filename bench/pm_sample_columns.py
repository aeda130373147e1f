#!/usr/bin/env python3
"""The largest value and the non-zero count of each metric in a --save-raw recording's samples:
bench/pm_sample_columns.py RAW_DIR. A metric that never counts (smsp__inst_issued.sum at 0 while
kernels ran) means the sampler did not see the SMs."""
import glob
import gzip
import sys

found = sorted(glob.glob(sys.argv[1] + "/samples.tsv*") + glob.glob(sys.argv[1] + "/*/samples.tsv*"))
if not found:
    sys.exit(f"no samples.tsv in {sys.argv[1]} or its per-process folders")
path = found[0]
lines = (gzip.open(path, "rt") if path.endswith(".gz") else open(path)).read().split("\n")
head = lines[0].lstrip("# ").split()
rows = [list(map(float, line.split())) for line in lines[1:] if line.strip()]
print(f"{len(rows)} samples")
for i, name in enumerate(head[2:], start=2):
    values = [r[i] for r in rows]
    print(f"  {name:70} max {max(values):.4g}  non-zero {sum(v > 0 for v in values)}")
