"""limiter.profile() on a GPU: a PyTorch training-like loop (matmuls and elementwise kernels)
profiled inside its own process, in the default run and with every_launch=True; a JAX variant.
Skipped without torch (or jax) or a GPU.

    PYTHONPATH=build/python python3 -m pytest -q python/tests/test_profile_gpu.py
"""

import json
import os
import shutil
import subprocess
import sys
import time

import pytest

import limiter
from limiter import profiling

pytestmark = pytest.mark.skipif(profiling._collector is None, reason="a host-only build: no collector")

STEPS = 50
# The default run samples stall reasons for up to its stall window (1 s) before it reads the
# kernels' counters: the loop runs at least this long so its kernels reach the counters phase.
DEFAULT_RUN_SECONDS = 3.0


def _torch_cuda():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA GPU for torch")
    return torch


def _torch_loop(torch, steps, min_seconds=0.0):
    """A small training-like step: two matmuls, a GELU, an add and a reduction, synchronised at the end."""
    x = torch.randn(2048, 2048, device="cuda")
    w1 = torch.randn(2048, 2048, device="cuda")
    w2 = torch.randn(2048, 2048, device="cuda")
    start, done = time.perf_counter(), 0
    while done < steps or time.perf_counter() - start < min_seconds:
        h = torch.nn.functional.gelu(x @ w1)
        y = (h @ w2 + x).sum()
        y.item()  # a synchronisation a step, as a loss read back would be
        done += 1
    torch.cuda.synchronize()


def _check_region(p, matmul_pattern):
    assert isinstance(p, limiter.Run)
    assert not p.kernels.empty, "the region's kernels"
    assert p.kernels["name"].str.contains(matmul_pattern, case=False, regex=True).any(), list(p.kernels["name"])
    assert p.kernels["main_verdict"].notna().any()
    report = json.loads(p.report("json", top=1))
    assert report["missed"] == [], report["missed"]  # every launch of the region seen and decoded
    return report


def test_a_torch_loop_in_the_default_run():
    torch = _torch_cuda()
    _torch_loop(torch, 3)  # cuBLAS's and the caching allocator's set-up outside the region
    with limiter.profile() as p:
        _torch_loop(torch, STEPS, min_seconds=DEFAULT_RUN_SECONDS)
    report = _check_region(p, "gemm|sgemm|cutlass|xmma")
    assert report["program"]["verdict"], "the program verdict"
    assert not p.stalls.empty, "the default run's stall reasons"
    assert p.program.set_index("scope").loc["window", "verdict"], "the program verdict"
    # Its kernels' modules loaded in the warm-up, before the collector: said, with the fix.
    assert report["stall_sampling"]["kernels_without_cubin"].get("module loaded before profiling began"), report


_EARLY_REGION = """
import sys, time, torch, limiter
x, w = (torch.randn(2048, 2048, device="cuda") for _ in range(2))
region = limiter.profile(stalls=True)  # subscribed before the kernels' modules load
for _ in range(3):
    torch.nn.functional.gelu(x @ w).sum().item()  # the warm-up, outside the region
with region as p:
    start = time.perf_counter()
    while time.perf_counter() - start < 1.0:
        torch.nn.functional.gelu(x @ w).sum().item()
hot = p.hot_pcs
print(len(hot), int((hot["sass"].fillna("") != "").sum()))
"""


def test_a_region_made_before_the_warm_up_has_its_hot_lines_sass():
    _torch_cuda()
    if not (shutil.which("nvdisasm") or os.path.exists("/usr/local/cuda/bin/nvdisasm")):
        pytest.skip("no nvdisasm: the SASS is the CUDA toolkit's disassembly")
    # A process of its own: this one's modules were loaded by the tests before.
    done = subprocess.run([sys.executable, "-c", _EARLY_REGION], capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    hot, with_sass = (int(n) for n in done.stdout.split()[-2:])
    assert hot > 0 and with_sass > 0, (done.stdout, done.stderr[-2000:])  # nvdisasm read their cubins


def test_a_torch_loop_with_every_launch():
    torch = _torch_cuda()
    _torch_loop(torch, 3)
    with limiter.profile(every_launch=True) as p:
        _torch_loop(torch, STEPS)
    _check_region(p, "gemm|sgemm|cutlass|xmma")
    assert len(p.launches) >= STEPS * 2  # every launch, both matmuls of each step at least


def _jax_gpu():
    jax = pytest.importorskip("jax")
    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("no GPU for jax")
    return jax


def _jax_step(jax):
    @jax.jit
    def step(x, w1, w2):
        return (jax.nn.gelu(x @ w1) @ w2 + x).sum()

    key = jax.random.PRNGKey(0)
    return step, [jax.random.normal(k, (2048, 2048)) for k in jax.random.split(key, 3)]


def _jax_loop(step, args):
    start, done = time.perf_counter(), 0
    while done < STEPS or time.perf_counter() - start < DEFAULT_RUN_SECONDS:
        step(*args).block_until_ready()
        done += 1


# XLA runs a jitted function's kernels as CUDA graphs (command buffers) instantiated at its first
# run: run first inside the region, their kernels are profiled node by node.
def test_a_jax_loop_in_the_default_run():
    jax = _jax_gpu()
    with limiter.profile() as p:
        step, args = _jax_step(jax)
        _jax_loop(step, args)
    report = _check_region(p, "gemm|cutlass|xmma|dot")
    assert report["program"]["verdict"], "the program verdict"


# Run first before the region, its graphs are unknown to the collector: nothing is lost silently,
# the record says which launches were not profiled and why.
def test_a_jax_step_compiled_before_the_region_is_profiled_or_said_missed():
    jax = _jax_gpu()
    step, args = _jax_step(jax)
    step(*args).block_until_ready()
    with limiter.profile(every_launch=True) as p:
        _jax_loop(step, args)
    report = json.loads(p.report("json", top=1))
    said = [m for m in report["missed"] if "instantiated before profiling began" in m["reason"]]
    assert p.kernels["main_verdict"].notna().any() or said, report["missed"]


def test_under_torchs_profiler_one_line_names_the_other_profiler():
    torch = _torch_cuda()
    from torch.profiler import ProfilerActivity, profile as torch_profile
    with torch_profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]):
        _torch_loop(torch, 2)  # the profiler's CUPTI set up by its first kernels
        with pytest.raises(limiter.LimiterError, match="CUPTI|profiler") as error:
            with limiter.profile(every_launch=True):
                _torch_loop(torch, 2)
    assert "\n" not in str(error.value)
