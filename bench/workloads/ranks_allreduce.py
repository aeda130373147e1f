"""A data-parallel step for the rank reports: every rank of a `torchrun` job runs the same
matrix multiply and GELU, all-reduces the result across the ranks, and adds a sine on top.
Rank r computes its sine 1 + r times per step, an imbalance made on purpose so that a merged
report has a slowest rank to find. NVTX ranges (step/compute, all_reduce, imbalance) let the
merged report line the ranks up by phase. The backend is NCCL when each rank has its own GPU, else
gloo (NCCL refuses two ranks on one GPU); `--backend` forces one.

    torchrun --nproc-per-node 2 bench/workloads/ranks_allreduce.py [--steps 20] [--backend nccl|gloo]
"""
import argparse
import os
import socket
import time

import torch
import torch.distributed as dist

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
parser.add_argument("--size", type=int, default=2048)
parser.add_argument("--backend", choices=["auto", "nccl", "gloo"], default="auto")
args = parser.parse_args()

rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
local_rank = int(os.environ.get("LOCAL_RANK", "0"))
gpus = torch.cuda.device_count()
device = torch.device("cuda", local_rank % gpus)
torch.cuda.set_device(device)
backend = args.backend
if backend == "auto":
    backend = "nccl" if gpus >= int(os.environ.get("LOCAL_WORLD_SIZE", world)) else "gloo"
dist.init_process_group(backend, device_id=device if backend == "nccl" else None)

torch.manual_seed(rank)
x = torch.randn(args.size, args.size, device=device)
w = torch.randn(args.size, args.size, device=device)


def all_reduce(tensor):
    if backend == "nccl":
        dist.all_reduce(tensor)  # NCCL's own kernels, profiled like any other
        return tensor
    on_host = tensor.cpu()  # gloo reduces in host memory
    dist.all_reduce(on_host)
    return tensor.copy_(on_host)


torch.cuda.synchronize()
started = time.perf_counter()
nvtx = torch.cuda.nvtx  # ranges for the merged report's NVTX roll-up across ranks
for _ in range(args.steps):
    nvtx.range_push("step")
    nvtx.range_push("compute")
    y = torch.nn.functional.gelu(x @ w)
    nvtx.range_pop()
    nvtx.range_push("all_reduce")
    y = all_reduce(y) / world
    nvtx.range_pop()
    nvtx.range_push("imbalance")
    for _ in range(1 + rank):
        y = torch.sin(y)
    x = y / y.norm()
    nvtx.range_pop()
    nvtx.range_pop()
torch.cuda.synchronize()
elapsed = time.perf_counter() - started
print(f"ranks_allreduce: rank {rank}/{world} on {socket.gethostname()} {torch.cuda.get_device_name(device)}, "
      f"backend {backend}, {args.steps} steps in {elapsed:.3f} s", flush=True)
dist.destroy_process_group()
