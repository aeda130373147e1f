"""A kernel-dense PyTorch training loop: a 4-layer MLP with GELU, layer norm, dropout,
cross-entropy and AdamW, ~60 kernel launches per step. STEPS (default 200) steps give
~12,000 launches: the real program behind the grouped-report and scale checks. PHASE_TIMES=1
prints each phase's wall-clock time (epoch seconds), to see where a tool's cost lands."""
import atexit
import os
import time


def phase(name):
    if os.environ.get("PHASE_TIMES"):
        print(f"phase {name} {time.time():.3f}", flush=True)


phase("start")
atexit.register(phase, "exit")
import torch  # noqa: E402

phase("imported")

torch.manual_seed(0)
dev = "cuda"
steps = int(os.environ.get("STEPS", "200"))
width = 1024
model = torch.nn.Sequential(
    torch.nn.Linear(512, width), torch.nn.GELU(), torch.nn.LayerNorm(width), torch.nn.Dropout(0.1),
    torch.nn.Linear(width, width), torch.nn.GELU(), torch.nn.LayerNorm(width),
    torch.nn.Linear(width, width), torch.nn.GELU(),
    torch.nn.Linear(width, 100)).to(dev)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
x = torch.randn(512, 512, device=dev)
labels = torch.randint(0, 100, (512,), device=dev)
torch.cuda.synchronize()
phase("loop")
started = time.perf_counter()
for step in range(steps):
    optimizer.zero_grad(set_to_none=True)
    loss = torch.nn.functional.cross_entropy(model(x), labels)
    loss.backward()
    optimizer.step()
torch.cuda.synchronize()
loop_s = time.perf_counter() - started
phase("looped")
print(f"mlp_training: {steps} steps, loss {loss.item():.4f}, loop {loop_s:.3f} s")
