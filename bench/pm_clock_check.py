#!/usr/bin/env python3
"""Are PM samples and kernel records on one clock? bench/pm_clock_check.py RAW_DIR (a --save-raw
recording of --sampling: samples.tsv and kernels.jsonl, plain or gzip). Prints both time spans,
how many busy samples (instructions issued) hold a kernel and how many idle ones do, and the same
with the kernels shifted by -2 ms .. +2 ms: on one clock, shift 0 fits best."""
import gzip, json, sys, glob, os, bisect
d = sys.argv[1]
op = lambda p: gzip.open(p, 'rt') if p.endswith('.gz') else open(p)
sp = [p for p in glob.glob(d + '/samples.tsv*')][0]
kp = [p for p in glob.glob(d + '/kernels.jsonl*')][0]
samples = []
for line in op(sp):
    if line.startswith('#'): continue
    f = line.split(); samples.append((int(f[0]), int(f[1]), float(f[2])))
kernels = []
for line in op(kp):
    j = json.loads(line); kernels.append((j['start'], j['end']))
samples.sort(); kernels.sort()
print(f"samples {len(samples)}: {samples[0][0]} .. {samples[-1][1]}, mean length {(samples[-1][1]-samples[0][0])/len(samples)/1e3:.1f} us")
print(f"kernels {len(kernels)}: {kernels[0][0]} .. {kernels[-1][1]}")
print(f"offset first kernel - first sample {(kernels[0][0]-samples[0][0])/1e6:.3f} ms; last kernel end - last sample end {(kernels[-1][1]-samples[-1][1])/1e6:.3f} ms")
# busy: samples with instructions > small, fraction containing a kernel
starts = [k[0] for k in kernels]
def has_kernel(s):
    i = bisect.bisect_left(starts, s[1])
    return any(k[1] > s[0] for k in kernels[max(0, i-50):i])
busy = [s for s in samples if s[2] > 1e6]
idle = [s for s in samples if s[2] <= 1e6]
print(f"busy samples {len(busy)}, with a kernel {sum(has_kernel(s) for s in busy)}; idle samples {len(idle)}, with a kernel {sum(has_kernel(s) for s in idle)}")
# best shift: try offsets
import statistics
for shift_us in [-2000, -1000, -500, -200, -100, -50, 0, 50, 100, 200, 500, 1000, 2000]:
    sh = shift_us * 1000
    ok = sum(1 for s in busy[:2000] if has_kernel((s[0]+sh, s[1]+sh, s[2])))
    bad = sum(1 for s in idle[:2000] if has_kernel((s[0]+sh, s[1]+sh, s[2])))
    print(f"shift {shift_us:6d} us: busy with kernel {ok}/{min(2000,len(busy))}, idle with kernel {bad}/{min(2000,len(idle))}")
