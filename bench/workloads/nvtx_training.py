"""A PyTorch training loop annotated with NVTX the way training code usually is: WARMUP steps
outside any range, then STEPS steps, each a push/pop range "train_step" holding "forward",
"backward" and "optimizer"; with START_END=1 the whole loop is also a start/end range "epoch"
(torch.cuda.nvtx.range_start/end). The model is the MLP of mlp_training.py (~49 launches per
step). Prints the training loop's wall time (after set-up, synchronised) and the warm-up's."""
import os
import time

import torch
import torch.cuda.nvtx as nvtx

torch.manual_seed(0)
dev = "cuda"
steps = int(os.environ.get("STEPS", "100"))
warmup = int(os.environ.get("WARMUP", "20"))
start_end = os.environ.get("START_END", "0") == "1"
width = 1024
model = torch.nn.Sequential(
    torch.nn.Linear(512, width), torch.nn.GELU(), torch.nn.LayerNorm(width), torch.nn.Dropout(0.1),
    torch.nn.Linear(width, width), torch.nn.GELU(), torch.nn.LayerNorm(width),
    torch.nn.Linear(width, width), torch.nn.GELU(),
    torch.nn.Linear(width, 100)).to(dev)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
x = torch.randn(512, 512, device=dev)
labels = torch.randint(0, 100, (512,), device=dev)


def step(annotated):
    if annotated:
        nvtx.range_push("train_step")
        nvtx.range_push("forward")
    optimizer.zero_grad(set_to_none=True)
    loss = torch.nn.functional.cross_entropy(model(x), labels)
    if annotated:
        nvtx.range_pop()
        nvtx.range_push("backward")
    loss.backward()
    if annotated:
        nvtx.range_pop()
        nvtx.range_push("optimizer")
    optimizer.step()
    if annotated:
        nvtx.range_pop()
        nvtx.range_pop()
    return loss


torch.cuda.synchronize()
started = time.perf_counter()
for _ in range(warmup):
    step(annotated=False)
torch.cuda.synchronize()
warmup_s = time.perf_counter() - started
started = time.perf_counter()
epoch = nvtx.range_start("epoch") if start_end else None
for _ in range(steps):
    loss = step(annotated=True)
if start_end:
    nvtx.range_end(epoch)
torch.cuda.synchronize()
loop_s = time.perf_counter() - started
print(f"nvtx_training: {warmup} warm-up steps {warmup_s:.3f} s, {steps} steps, loss {loss.item():.4f}, "
      f"loop {loop_s:.3f} s")
