"""Exercise 8 — The KV cache.

update returns a collections.namedtuple (keys, values), which unpacks like a tuple. The cache
also remembers the sizes of its recent updates in a bounded deque, which I print in the demo to
see prefill vs decode steps. Storage slices are taken with Tensor.narrow.
"""

import collections
import math
from contextlib import contextmanager

import torch
import torch.nn as nn


# Given: exercises 5 and 7.


def scaled_dot_product_attention(q, k, v, mask=None):
    """Given: one head of attention; a fully masked query gets zeros."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))  # (..., L_q, L_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))  # -inf where NOT allowed
    weights = torch.softmax(scores, dim=-1)  # (..., L_q, L_k) rows sum to 1
    if mask is not None:
        weights = weights.masked_fill(~mask, 0.0)  # (..., L_q, L_k) a fully masked row: NaN -> 0
    return weights @ v, weights  # (..., L_q, d_v), (..., L_q, L_k)


def repeat_kv(x, n_rep):
    """Given: (B, H_kv, L, d) -> a new (B, H_kv*n_rep, L, d); output head j is input head j // n_rep."""
    return x.repeat_interleave(n_rep, dim=1)  # (B, H_kv*n_rep, L, d)


# My part.

CachedKV = collections.namedtuple("CachedKV", ["keys", "values"])

BYTES_PER_DTYPE = {torch.float16: 2, torch.bfloat16: 2, torch.float32: 4, torch.float64: 8}


def kv_cache_bytes(n_layers, n_kv_heads, d_head, seq_len, batch_size=1, bytes_per_value=2):
    """Keys AND values, every layer, KV head, d_head number, token and sequence, in bytes."""
    per_token = 2 * n_layers * n_kv_heads * d_head
    return per_token * seq_len * batch_size * bytes_per_value


class KVCache:
    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        self.max_len = max_len
        self.k_store = torch.zeros(batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
        self.v_store = torch.zeros_like(self.k_store)
        self.pos = 0
        self.history = collections.deque(maxlen=32)

    @classmethod
    def for_module(cls, module, batch_size, max_len, dtype=torch.float32, device=None):
        return cls(batch_size, module.n_kv_heads, module.d_head, max_len, dtype, device)

    def __len__(self):
        return self.pos

    def __repr__(self):
        return f"{type(self).__name__}(len={self.pos}, max_len={self.max_len}, recent={list(self.history)})"

    def reset(self):
        self.pos = 0
        self.history.clear()

    def update(self, k, v):
        n = k.size(2)
        if self.pos + n > self.max_len:
            raise ValueError(f"cannot append {n} tokens: {self.pos}/{self.max_len} already cached")
        self.k_store.narrow(2, self.pos, n).copy_(k)
        self.v_store.narrow(2, self.pos, n).copy_(v)
        self.pos += n
        self.history.append(n)
        return CachedKV(self.k_store.narrow(2, 0, self.pos), self.v_store.narrow(2, 0, self.pos))

    @contextmanager
    def scratch(self):
        """Run some steps (e.g. a speculative draft) and forget them afterwards."""
        saved = self.pos
        try:
            yield self
        finally:
            self.pos = saved


class CachedGroupedQueryAttention(nn.Module):
    """Grouped-query attention for generation: each call takes the NEXT tokens of the sequence."""

    def __init__(self, d_model, n_heads, n_kv_heads):
        """Given: exactly exercise 7's layers."""
        super().__init__()
        assert d_model % n_heads == 0, "d_model must divide evenly into heads"
        assert n_heads % n_kv_heads == 0, "n_heads must be a multiple of n_kv_heads"
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.d_head = d_model // n_heads
        self.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
        self.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.o_proj = nn.Linear(n_heads * self.d_head, d_model, bias=False)

    def forward(self, x, cache=None):
        B, T, _ = x.shape
        shapes = ((self.q_proj, self.n_heads), (self.k_proj, self.n_kv_heads), (self.v_proj, self.n_kv_heads))
        q, k, v = (p(x).view(B, T, h, self.d_head).transpose(1, 2) for p, h in shapes)
        past = len(cache) if cache is not None else 0
        if cache is not None:
            k, v = cache.update(k, v)
        mask = torch.tril(torch.ones(T, past + T, dtype=torch.bool, device=x.device), diagonal=past)
        n_rep = self.n_heads // self.n_kv_heads
        out, _ = scaled_dot_product_attention(q, repeat_kv(k, n_rep), repeat_kv(v, n_rep), mask=mask)
        return self.o_proj(out.transpose(1, 2).flatten(2))


if __name__ == "__main__":
    import argparse
    import time

    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=32)
    a = ap.parse_args()
    torch.manual_seed(0)
    m = CachedGroupedQueryAttention(64, 8, 2).eval()
    cache = KVCache.for_module(m, 1, max_len=9 + a.steps)  # +1 for the scratch step
    with torch.no_grad():
        m(torch.randn(1, 8, 64), cache)  # prefill
        t = time.perf_counter()
        for _ in range(a.steps):
            m(torch.randn(1, 1, 64), cache)  # decode
        print(cache, f"{(time.perf_counter() - t) / a.steps * 1e3:.2f} ms/step")
        with cache.scratch():
            m(torch.randn(1, 1, 64), cache)
            print("inside scratch:", len(cache))
        print("after scratch:", len(cache))
