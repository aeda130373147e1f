"""Runs a workload script under PyTorch's profiler, as its users run it (CPU and CUDA activities,
the whole script inside `with torch.profiler.profile(...)`), so that bench/run.sh times the peer
on the same loop as limiter: the script prints its own loop seconds as it does bare.

    python3 under_torch_profiler.py SCRIPT [ARGS...]
"""
import runpy
import sys

import torch
from torch.profiler import ProfilerActivity, profile

if len(sys.argv) < 2:
    sys.exit(__doc__)
script = sys.argv[1]
sys.argv = sys.argv[1:]
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    runpy.run_path(script, run_name="__main__")
kernels = sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)
print(f"torch profiler: {kernels} GPU events", file=sys.stderr)
