"""torch.compile (default mode) training steps of a small transformer-style block: Inductor's
fused Triton kernels (layer norm, GELU, the loss), eager AdamW, beside cuBLAS GEMMs, launched eagerly
(no CUDA graphs). The program behind the --cache-control comparison with ncu: its short
Triton kernels read 10-15 points more DRAM under ncu's default flush than in the app's own cache
state. STEPS (default 4) steps after 2 of warm-up; prints the loop's own seconds."""
import os
import time

import torch

torch.manual_seed(0)
steps = int(os.environ.get("STEPS", "4"))
width = 1024
model = torch.nn.Sequential(
    torch.nn.LayerNorm(width), torch.nn.Linear(width, 4 * width), torch.nn.GELU(),
    torch.nn.Linear(4 * width, width), torch.nn.LayerNorm(width), torch.nn.Linear(width, 256),
).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
x = torch.randn(2048, width, device="cuda")
labels = torch.randint(0, 256, (2048,), device="cuda")


@torch.compile
def train_step():
    optimizer.zero_grad(set_to_none=True)
    loss = torch.nn.functional.cross_entropy(model(x), labels)
    loss.backward()
    return loss


for _ in range(2):  # compile and warm up
    train_step()
    optimizer.step()
torch.cuda.synchronize()
started = time.perf_counter()
for _ in range(steps):
    loss = train_step()
    optimizer.step()
torch.cuda.synchronize()
print(f"compile_training: {steps} steps, loss {loss.item():.4f}, loop {time.perf_counter() - started:.3f} s")
