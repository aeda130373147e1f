"""A kernel-dense PyTorch training loop: a 4-layer MLP with GELU, layer norm, dropout,
cross-entropy and AdamW, ~60 kernel launches per step. STEPS (default 200) steps give
~12,000 launches: the real program behind the grouped-report and scale checks."""
import os
import time

import torch

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
started = time.perf_counter()
for step in range(steps):
    optimizer.zero_grad(set_to_none=True)
    loss = torch.nn.functional.cross_entropy(model(x), labels)
    loss.backward()
    optimizer.step()
torch.cuda.synchronize()
loop_s = time.perf_counter() - started
print(f"mlp_training: {steps} steps, loss {loss.item():.4f}, loop {loop_s:.3f} s")
