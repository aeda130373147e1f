"""An LLM-style decode loop: a small GPT (8 layers, width 1024, 16 heads) generating one token
at a time with a key/value cache, batch 1, greedy: ~100 small kernels per token, the GPU waiting
on launches (the short decode loop of the cost targets, ~1 s; the program verdict's launch-bound program). TOKENS
(default 120) tokens after a 32-token prompt; prints the loop's own seconds."""
import os
import time

import torch

torch.manual_seed(0)
dev = "cuda"
tokens = int(os.environ.get("TOKENS", "120"))
layers, width, heads, vocab = 8, 1024, 16, 32000
head_dim = width // heads


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1, self.norm2 = torch.nn.LayerNorm(width), torch.nn.LayerNorm(width)
        self.qkv, self.out = torch.nn.Linear(width, 3 * width), torch.nn.Linear(width, width)
        self.up, self.down = torch.nn.Linear(width, 4 * width), torch.nn.Linear(4 * width, width)

    def forward(self, x, cache):
        q, k, v = self.qkv(self.norm1(x)).split(width, dim=-1)
        shape = (x.shape[0], x.shape[1], heads, head_dim)
        q, k, v = (t.view(shape).transpose(1, 2) for t in (q, k, v))
        if cache:
            k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)
        attn = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=cache == ())
        x = x + self.out(attn.transpose(1, 2).reshape(x.shape))
        x = x + self.down(torch.nn.functional.gelu(self.up(self.norm2(x))))
        return x, (k, v)


embed = torch.nn.Embedding(vocab, width).to(dev).half()
blocks = torch.nn.ModuleList(Block() for _ in range(layers)).to(dev).half()
head = torch.nn.Linear(width, vocab, bias=False).to(dev).half()


@torch.no_grad()
def step(ids, caches):
    x = embed(ids)
    new = []
    for block, cache in zip(blocks, caches):
        x, kv = block(x, cache)
        new.append(kv)
    return head(x[:, -1]).argmax(dim=-1, keepdim=True), new


prompt = torch.randint(0, vocab, (1, 32), device=dev)
next_id, caches = step(prompt, [()] * layers)  # the prompt: caches filled
torch.cuda.synchronize()
started = time.perf_counter()
for _ in range(tokens):
    next_id, caches = step(next_id, caches)
torch.cuda.synchronize()
loop_s = time.perf_counter() - started
print(f"decode_loop: {tokens} tokens, last {next_id.item()}, loop {loop_s:.3f} s")
