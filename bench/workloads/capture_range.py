"""A training script that marks the part worth profiling (the capture range, --capture-range cudaProfilerApi): 40 warm-up
steps, then twice 5 steps between torch.cuda.profiler.start() and stop() (cudaProfilerStart/Stop)
with 40 more steps after each. Prints the time of the steps outside the ranges, so a run under
`limiter run --capture-range cudaProfilerApi` shows what they cost next to a bare run."""
import time

import torch

torch.manual_seed(0)
dev = "cuda"
width = 1024
model = torch.nn.Sequential(
    torch.nn.Linear(512, width), torch.nn.GELU(), torch.nn.LayerNorm(width),
    torch.nn.Linear(width, width), torch.nn.GELU(), torch.nn.Linear(width, 100)).to(dev)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
x = torch.randn(512, 512, device=dev)
labels = torch.randint(0, 100, (512,), device=dev)


def steps(count):
    torch.cuda.synchronize()
    started = time.perf_counter()
    for _ in range(count):
        optimizer.zero_grad(set_to_none=True)
        torch.nn.functional.cross_entropy(model(x), labels).backward()
        optimizer.step()
    torch.cuda.synchronize()
    return time.perf_counter() - started


outside = steps(40)  # warm-up: not profiled
inside = 0.0
for _ in range(2):
    torch.cuda.profiler.start()
    inside += steps(5)
    torch.cuda.profiler.stop()
    outside += steps(40)
print(f"capture_range: 90 steps outside the ranges {outside:.3f} s, 10 steps inside {inside:.3f} s")
