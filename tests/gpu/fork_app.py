# A PyTorch program that forks the ways real programs do, for the fork GPU tests
# (tests/gpu/fork_test.py): a known number of "marker" launches (acc.mul_, the only
# MulFunctor kernel here) before and after one scenario, inside cudaProfilerStart/Stop.
#   python3 fork_app.py SCENARIO
# Prints one line, "fork_app SCENARIO: ...", the same bare and profiled.
import ctypes
import faulthandler
import os
import signal
import sys
import time

import torch

BEFORE, AFTER = 83, 50  # marker launches before the scenario's fork and after it

faulthandler.register(signal.SIGUSR1, all_threads=True)  # the test dumps stacks of a hang


class Numbers(torch.utils.data.Dataset):
    """64 items of 256 floats; item SLOW sleeps (the loader's timeout then ends its workers)."""

    def __init__(self, slow=-1):
        self.slow = slow

    def __len__(self):
        return 64

    def __getitem__(self, index):
        if index == self.slow:
            time.sleep(60)
        return torch.arange(256, dtype=torch.float32) * index


def square(x):
    return x * x


def loader_total(epochs, **loader_args):
    loader = torch.utils.data.DataLoader(Numbers(), batch_size=8, num_workers=2, multiprocessing_context="fork",
                                         **loader_args)
    total = torch.zeros((), device="cuda")
    for _ in range(epochs):
        for batch in loader:
            total += batch.to("cuda", non_blocking=True).sum()
    return f"loader total {total.item():.0f}"


def fork_child(end):
    """os.fork(); the child ends by END; the parent waits and says how the child ended."""
    pid = os.fork()
    if pid == 0:
        if end == "exit":
            sys.exit(3)  # Python's and C's exit handlers run in the child
        if end == "os_exit":
            os._exit(4)
        if end == "segv":
            ctypes.string_at(0)  # a real SIGSEGV
        time.sleep(60)  # ended by the parent's signal
        os._exit(5)
    if end in ("sigterm", "sigkill"):
        time.sleep(0.5)
        os.kill(pid, signal.SIGTERM if end == "sigterm" else signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return f"child ended by signal {os.WTERMSIG(status)}"
    return f"child exit {os.WEXITSTATUS(status)}"


def scenario_result(scenario):
    if scenario == "plain":
        return "no fork"
    if scenario == "loader":
        return loader_total(3)
    if scenario == "loader_persistent":
        return loader_total(3, persistent_workers=True)
    if scenario == "loader_timeout":
        loader = torch.utils.data.DataLoader(Numbers(slow=21), batch_size=8, num_workers=2,
                                             multiprocessing_context="fork", timeout=2)
        batches = 0
        try:
            for _ in loader:
                batches += 1
        except RuntimeError as error:  # "DataLoader timed out": the loader terminates its workers
            return f"loader timed out after {batches} batches: {'timed out' in str(error)}"
        return f"no timeout after {batches} batches"
    if scenario == "pool_terminate":
        import multiprocessing
        pool = multiprocessing.get_context("fork").Pool(2)
        squares = pool.map(square, range(20))
        pool.terminate()
        pool.join()
        return f"pool sum {sum(squares)}"
    if scenario == "fork_exec":  # a CUDA program of its own: a record of its own
        pid = os.fork()
        if pid == 0:
            app = os.environ["FORK_EXEC_APP"]
            os.execv(app, [app, "exit", "40"])
        _, status = os.waitpid(pid, 0)
        return f"exec'd child exit {os.WEXITSTATUS(status)}"
    if scenario == "compile":  # torch.compile starts compile workers
        compiled = torch.compile(lambda x: torch.sin(x) * torch.cos(x) + 1.0)
        x = torch.linspace(0, 1, 4096, device="cuda")
        for _ in range(5):
            y = compiled(x)
        return f"compiled sum {y.sum().item():.2f}"
    if scenario.startswith("fork_"):
        return fork_child(scenario[len("fork_"):])
    raise SystemExit(f"unknown scenario {scenario}")


def main():
    scenario = sys.argv[1]
    acc = torch.ones(1024, device="cuda")
    torch.cuda.profiler.start()  # --capture-range cudaProfilerApi: everything below is inside
    for _ in range(BEFORE):
        acc.mul_(1.0001)
    torch.cuda.synchronize()
    result = scenario_result(scenario)
    for _ in range(AFTER):
        acc.mul_(1.0001)
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()
    print(f"fork_app {scenario}: {result}; markers {BEFORE + AFTER}; acc {acc.sum().item():.3f}", flush=True)


if __name__ == "__main__":
    main()
