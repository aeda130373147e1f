"""A real program nobody here wrote the kernels of: a few PyTorch training steps of a small
convolutional network (cuDNN, cuBLAS and PyTorch's own kernels). Used to check that
`limiter run` gives one verdict per kernel and to compare them with Nsight Compute."""
import torch

torch.manual_seed(0)
device = "cuda"
model = torch.nn.Sequential(
    torch.nn.Conv2d(3, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
    torch.nn.Conv2d(32, 64, 3, padding=1), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d(1),
    torch.nn.Flatten(), torch.nn.Linear(64, 10)).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
images = torch.randn(256, 3, 64, 64, device=device)
labels = torch.randint(0, 10, (256,), device=device)
for step in range(2):
    optimizer.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(images), labels)
    loss.backward()
    optimizer.step()
torch.cuda.synchronize()
print(f"pytorch_workload: loss {loss.item():.4f}")
