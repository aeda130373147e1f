"""torch.compile(mode="reduce-overhead") on a small model: Inductor's Triton kernels
run through CUDA graphs (cudagraph trees). Prints the compiled model's time per step after
warm-up and digests of its outputs and of the eager model's, so a profiled run can be checked
against a bare one (bench/run.sh graphs-check). STEPS changes the 20 measured steps."""
import hashlib
import json
import os
import time

import torch

steps = int(os.environ.get("STEPS", "20"))
torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(512, 1024), torch.nn.GELU(), torch.nn.LayerNorm(1024),
    torch.nn.Linear(1024, 1024), torch.nn.GELU(), torch.nn.Linear(1024, 256),
).cuda().eval()
x = torch.randn(64, 512, device="cuda")


def digest(tensor):
    return hashlib.sha256(tensor.detach().float().cpu().numpy().tobytes()).hexdigest()[:16]


with torch.no_grad():
    eager = model(x).clone()
    compiled = torch.compile(model, mode="reduce-overhead")
    for _ in range(3):  # compile, record the graph, then replay
        out = compiled(x).clone()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(steps):
        out = compiled(x).clone()
    torch.cuda.synchronize()
    elapsed = time.perf_counter() - start

print("compile_reduce_overhead " + json.dumps({
    "steps": steps, "step_s": elapsed / steps, "compiled_digest": digest(out), "eager_digest": digest(eager),
    "max_abs_diff_compiled_vs_eager": float((out - eager).abs().max()),
}))
