"""A PyTorch loop (two matmuls, a GELU, an add, a reduction read back each step) whose loop alone
is timed, bare or inside `with limiter.profile():` (--profile; FLAGS as limiter.profile's keyword
arguments, e.g. --profile every_launch=1), or between cudaProfilerStart and cudaProfilerStop
(--cuda-profiler-api: the same region for `limiter run --capture-range cudaProfilerApi`). Prints
one line: `python_region: loop S s, block S s` (block: the whole with-block, the record's writing
and reading included; the loop's time otherwise).
STEPS (default 200) and SIZE (default 2048) from the environment; 3 warm-up steps outside."""
import os
import sys
import time

import torch


def loop(x, w1, w2, steps):
    for _ in range(steps):
        (torch.nn.functional.gelu(x @ w1) @ w2 + x).sum().item()
    torch.cuda.synchronize()


def main(args):
    steps, size = int(os.environ.get("STEPS", "200")), int(os.environ.get("SIZE", "2048"))
    x, w1, w2 = (torch.randn(size, size, device="cuda") for _ in range(3))
    loop(x, w1, w2, 3)
    block_start = time.perf_counter()
    if args and args[0] == "--profile":
        import limiter
        flags = dict(arg.split("=", 1) for arg in args[1:])
        with limiter.profile(**flags) as region:
            start = time.perf_counter()
            loop(x, w1, w2, steps)
            seconds = time.perf_counter() - start
        print(f"python_region: {len(region.launches)} launches profiled", file=sys.stderr)
    elif args and args[0] == "--cuda-profiler-api":
        torch.cuda.profiler.start()
        start = time.perf_counter()
        loop(x, w1, w2, steps)
        seconds = time.perf_counter() - start
        torch.cuda.profiler.stop()
    else:
        start = time.perf_counter()
        loop(x, w1, w2, steps)
        seconds = time.perf_counter() - start
    print(f"python_region: loop {seconds:.4f} s, block {time.perf_counter() - block_start:.4f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
