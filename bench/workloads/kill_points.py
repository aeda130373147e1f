"""Real PyTorch programs that end badly, for the "nothing lost" checks.

  python3 kill_points.py sync-kill   202 elementwise launches, torch.cuda.synchronize(), SIGKILL
  python3 kill_points.py segv        202 launches, then a segfault inside the process (ctypes)
  python3 kill_points.py mp P        P processes (torch.multiprocessing, spawn) on one GPU, each
                                     32 launches and a synchronize, as in the issue; then P=4

Each launch is an add of a distinct constant, so the expected result is known: the script
checks it before it ends, and `limiter run`'s records must hold every launch."""
import ctypes
import os
import signal
import sys

import torch
import torch.multiprocessing as mp

LAUNCHES = 202


def launches(count):
    x = torch.zeros(1 << 16, device="cuda")
    for i in range(count):
        x.add_(float(i + 1))
    torch.cuda.synchronize()
    expected = count * (count + 1) / 2
    assert float(x[0].item()) == expected, (float(x[0].item()), expected)
    return x


def worker(rank):
    launches(32)


def main():
    mode = sys.argv[1]
    if mode == "sync-kill":
        launches(LAUNCHES)  # .item() inside is a synchronous copy; torch.cuda.synchronize() too
        print("synchronised; killing myself", flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    elif mode == "segv":
        launches(LAUNCHES)
        print("synchronised; crashing", flush=True)
        ctypes.string_at(0)  # reads address 0: SIGSEGV inside the process
    elif mode == "mp":
        processes = int(sys.argv[2])
        mp.set_start_method("spawn")
        children = [mp.Process(target=worker, args=(rank,)) for rank in range(processes)]
        for child in children:
            child.start()
        for child in children:
            child.join()
        assert all(child.exitcode == 0 for child in children), [child.exitcode for child in children]
        print(f"{processes} processes done", flush=True)
    else:
        sys.exit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
