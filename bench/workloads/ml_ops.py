"""The operations ML programs spend their GPU time in, through PyTorch's own kernels and
cuBLAS/cuDNN (nobody here wrote them): fp32, TF32, bf16 and fp16 GEMMs, convolutions,
scaled-dot-product attention, layer norm, softmax, embedding lookup, index_add/scatter,
a random gather, sort, cumsum, reductions and elementwise math. Each op runs twice (the first
time includes library warm-up). Used to compare limiter's verdicts with Nsight Compute's
Speed-of-Light verdicts on the same GPU (scripts/compare-sol.py)."""
import copy

import torch
import torch.nn.functional as F

torch.manual_seed(0)
dev = "cuda"
torch.backends.cudnn.benchmark = False  # the same kernels under every profiler


def gemms():
    a, b = torch.randn(4096, 4096, device=dev), torch.randn(4096, 4096, device=dev)
    torch.backends.cuda.matmul.allow_tf32 = False
    yield "gemm fp32", lambda: a @ b
    torch.backends.cuda.matmul.allow_tf32 = True
    yield "gemm tf32", lambda: a @ b
    torch.backends.cuda.matmul.allow_tf32 = False
    ah, bh = a.half(), b.half()
    yield "gemm fp16", lambda: ah @ bh
    ab, bb = a.bfloat16(), b.bfloat16()
    yield "gemm bf16", lambda: ab @ bb
    x, w = torch.randn(16384, 1024, device=dev, dtype=torch.bfloat16), torch.randn(4096, 1024, device=dev, dtype=torch.bfloat16)
    yield "linear bf16", lambda: F.linear(x, w)


def convolutions():
    x = torch.randn(32, 64, 56, 56, device=dev)
    conv = torch.nn.Conv2d(64, 128, 3, padding=1).to(dev)
    torch.backends.cudnn.allow_tf32 = True
    yield "conv tf32", lambda: conv(x)
    xl = x.to(memory_format=torch.channels_last).bfloat16()
    convl = copy.deepcopy(conv).to(memory_format=torch.channels_last).bfloat16()
    yield "conv bf16 nhwc", lambda: convl(xl)


def attention_and_norms():
    q, k, v = (torch.randn(8, 16, 2048, 64, device=dev, dtype=torch.bfloat16) for _ in range(3))
    yield "sdpa bf16", lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True)
    h = torch.randn(8192, 4096, device=dev)
    ln = torch.nn.LayerNorm(4096).to(dev)
    yield "layer_norm", lambda: ln(h)
    yield "softmax", lambda: torch.softmax(h, dim=-1)
    yield "sum over rows", lambda: h.sum(dim=1)


def indexing():
    table = torch.nn.Embedding(200_000, 1024).to(dev)
    ids = torch.randint(0, 200_000, (32768,), device=dev)
    yield "embedding", lambda: table(ids)
    target = torch.zeros(1 << 20, 16, device=dev)
    index = torch.randint(0, 1 << 20, (1 << 22,), device=dev)
    source = torch.randn(1 << 22, 16, device=dev)
    yield "index_add_", lambda: target.index_add_(0, index, source)
    flat = torch.zeros(1 << 20, device=dev)
    idx1 = torch.randint(0, 1 << 20, (1 << 24,), device=dev)
    src1 = torch.randn(1 << 24, device=dev)
    yield "scatter_add_", lambda: flat.scatter_add_(0, idx1, src1)
    big = torch.randn(1 << 28, device=dev)  # 1 GiB, far larger than L2
    gather_idx = torch.randint(0, 1 << 28, (1 << 25,), device=dev)
    yield "gather a[idx]", lambda: big[gather_idx]


def scans_and_math():
    s = torch.randn(1 << 24, device=dev)
    yield "sort", lambda: torch.sort(s)
    c = torch.randn(1 << 26, device=dev)
    yield "cumsum", lambda: torch.cumsum(c, 0)
    x, y = torch.randn(1 << 26, device=dev), torch.randn(1 << 26, device=dev)
    yield "add", lambda: x + y
    yield "sin", lambda: torch.sin(x)
    yield "gelu", lambda: F.gelu(x)
    yield "exp*y+x", lambda: torch.addcmul(x, torch.exp(x), y)


ops = [op for group in (gemms, convolutions, attention_and_norms, indexing, scans_and_math) for op in group()]
for repeat in range(2):
    for name, op in ops:
        op()
torch.cuda.synchronize()
print(f"ml_ops: {len(ops)} operations, twice each")
