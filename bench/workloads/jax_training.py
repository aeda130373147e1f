"""A JAX training loop nobody tuned: a jitted 3-layer MLP step (batch 256, widths
1024 -> 4096 -> 1024 -> 512 classes, GELU, softmax cross-entropy) with Adam written in plain jax
(no optax, no flax). DTYPE (float32, default, or bfloat16) is the matmuls' type (parameters and
Adam's state stay float32). WARMUP (default 5) steps compile it first, then STEPS (default 200)
steps are timed, synchronised with jax.block_until_ready. NVTX=1 wraps each step in an NVTX range
where the `nvtx` package or torch.cuda.nvtx imports (silently not otherwise).

The data and the initial parameters come from numpy (copies to the GPU, no kernels), so the
program's first kernel is its first step's."""
import os
import time

# JAX takes 75 % of the GPU's memory at start by default; a profiler beside it needs some.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

steps = int(os.environ.get("STEPS", "200"))
warmup = int(os.environ.get("WARMUP", "5"))
dtype_name = os.environ.get("DTYPE", "float32")
dtypes = {"float32": jnp.float32, "fp32": jnp.float32, "bfloat16": jnp.bfloat16, "bf16": jnp.bfloat16}
if dtype_name not in dtypes:
    raise SystemExit(f"jax_training: DTYPE={dtype_name}: one of {', '.join(dtypes)}")
dtype = dtypes[dtype_name]
batch, widths, classes = 256, (1024, 4096, 1024), 512
lr, beta1, beta2, eps = 1e-3, 0.9, 0.999, 1e-8


def nvtx_range():
    """A context manager factory for one step's NVTX range, or None."""
    if os.environ.get("NVTX", "0") != "1":
        return None
    try:
        import nvtx
        return lambda name: nvtx.annotate(name)
    except ImportError:
        pass
    try:
        import torch.cuda.nvtx as torch_nvtx
        return torch_nvtx.range
    except ImportError:
        return None


rng = np.random.default_rng(0)
sizes = list(widths) + [classes]
params = [{"w": jnp.asarray(rng.standard_normal((fan_in, fan_out), dtype=np.float32) * np.sqrt(2.0 / fan_in)),
           "b": jnp.asarray(np.zeros((fan_out,), np.float32))} for fan_in, fan_out in zip(sizes[:-1], sizes[1:])]
x = jnp.asarray(rng.standard_normal((batch, widths[0]), dtype=np.float32))
labels = jnp.asarray(rng.integers(0, classes, (batch,), dtype=np.int32))
zeros = jax.tree_util.tree_map(lambda p: np.zeros(p.shape, np.float32), params)
opt_state = {"m": jax.tree_util.tree_map(jnp.asarray, zeros), "v": jax.tree_util.tree_map(jnp.asarray, zeros),
             "t": jnp.asarray(0, jnp.int32)}


def forward(params, x):
    h = x
    for i, layer in enumerate(params):
        h = jnp.dot(h.astype(dtype), layer["w"].astype(dtype)).astype(jnp.float32) + layer["b"]
        if i < len(params) - 1:
            h = jax.nn.gelu(h)
    return h


def loss_fn(params, x, labels):
    log_probs = jax.nn.log_softmax(forward(params, x))
    return -jnp.mean(jnp.take_along_axis(log_probs, labels[:, None], axis=1))


def adam(params, grads, state):
    t = state["t"] + 1
    m = jax.tree_util.tree_map(lambda m, g: beta1 * m + (1 - beta1) * g, state["m"], grads)
    v = jax.tree_util.tree_map(lambda v, g: beta2 * v + (1 - beta2) * g * g, state["v"], grads)
    scale = lr * jnp.sqrt(1 - beta2 ** t) / (1 - beta1 ** t)
    params = jax.tree_util.tree_map(lambda p, m, v: p - scale * m / (jnp.sqrt(v) + eps), params, m, v)
    return params, {"m": m, "v": v, "t": t}


@jax.jit
def train_step(params, opt_state, x, labels):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, labels)
    params, opt_state = adam(params, grads, opt_state)
    return params, opt_state, loss


annotate = nvtx_range()


def step(i):
    global params, opt_state
    if annotate is None:
        params, opt_state, loss = train_step(params, opt_state, x, labels)
    else:
        with annotate(f"step {i}"):
            params, opt_state, loss = train_step(params, opt_state, x, labels)
    return loss


loss = None
for i in range(warmup):
    loss = step(i)
jax.block_until_ready((params, opt_state, loss))
started = time.perf_counter()
for i in range(steps):
    loss = step(warmup + i)
jax.block_until_ready((params, opt_state, loss))
loop_s = time.perf_counter() - started
loss_text = "-" if loss is None else f"{float(loss):.4f}"
print(f"jax_training: {steps} steps after {warmup} warm-up, {dtype_name} matmuls, loss {loss_text}, "
      f"loop {loop_s:.3f} s")
