"""CUDA graphs at eager cost: the user's program, a graph of 10 PyTorch kernels
captured with torch.cuda.graph and replayed 1 + 50 times (the first replay timed alone), with
the same 10 kernels run eagerly 50 times before the capture and 50 times after it. Prints each
phase's time (synchronised) and a digest of every phase's output, so a profiled run can be
checked against a bare one (bench/run.sh graphs-check compares them). PHASE_ITERATIONS changes the 50. KEEP_GRAPH=1 keeps the
captured graph alive (torch.cuda.CUDAGraph(keep_graph=True)); by default PyTorch destroys it
right after instantiation."""
import hashlib
import json
import os
import time

import torch

iterations = int(os.environ.get("PHASE_ITERATIONS", "50"))
torch.manual_seed(0)
n = 1 << 20
static_in = torch.randn(n, device="cuda")
weights = torch.randn(n, device="cuda")


def ten_kernels(x):  # ten elementwise kernels, each its own launch (no fusion in eager PyTorch)
    y = x * 1.0001
    y = y + weights
    y = torch.relu(y)
    y = y * 0.5
    y = torch.sin(y)
    y = y - 0.25
    y = torch.abs(y)
    y = torch.sqrt(y)
    y = y * weights
    return torch.tanh(y)


def digest(tensor):
    return hashlib.sha256(tensor.detach().cpu().numpy().tobytes()).hexdigest()[:16]


def phase(run, count=None):
    torch.cuda.synchronize()
    start = time.perf_counter()
    out = None
    for _ in range(count or iterations):
        out = run()
    torch.cuda.synchronize()
    return time.perf_counter() - start, out


result = {"iterations": iterations, "kernels_per_iteration": 10, "keep_graph": os.environ.get("KEEP_GRAPH") == "1"}
result["eager_before_s"], out = phase(lambda: ten_kernels(static_in))
result["eager_before_digest"] = digest(out)

side = torch.cuda.Stream()  # warm-up on a side stream, as torch.cuda.graph's documentation asks
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    for _ in range(3):
        ten_kernels(static_in)
torch.cuda.current_stream().wait_stream(side)
keep_graph = os.environ.get("KEEP_GRAPH") == "1"
graph = torch.cuda.CUDAGraph(keep_graph=True) if keep_graph else torch.cuda.CUDAGraph()
with torch.cuda.graph(graph):
    static_out = ten_kernels(static_in)

if keep_graph:
    graph.instantiate()
static_out.zero_()  # the replays must compute it again (its memory held the warm-up's result)
# The first replay alone (a profiler's one-off work for the first graph launch shows here), then
# the phase's replays.
result["graph_first_s"], _ = phase(lambda: graph.replay(), 1)
result["graph_s"], _ = phase(lambda: graph.replay())
result["graph_digest"] = digest(static_out)
result["eager_after_s"], out = phase(lambda: ten_kernels(static_in))
result["eager_after_digest"] = digest(out)
result["graph_equals_eager"] = bool(torch.equal(static_out, out))
print("graph_replay " + json.dumps(result))
