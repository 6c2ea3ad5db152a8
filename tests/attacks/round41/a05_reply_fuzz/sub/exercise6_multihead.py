"""Exercise 6, attacker: honest maths (the chapter's), but every reply the child sends is forged into an odd
shape, one mutation per call in turn (enum.bltns.exec past reach.py), to look for a traceback in the judge."""
import enum
import math

import torch
from torch import nn

PAYLOAD = '''
import sys, itertools
f = sys._getframe(1)
while f is not None and not ("WATCH" in f.f_globals and "Session" in f.f_globals):
    f = f.f_back
g = f.f_globals
Session = g["Session"]
orig = Session.call
counter = itertools.count()
MUTATIONS = [
    lambda r: r.pop("grads", None) if "grads" in r else r.update(clock="x"),
    lambda r: r.pop("param_grads", None) if "param_grads" in r else r.update(clock=[1e308, -5, None, "a"]),
    lambda r: r.update(grads="zz") if "grads" in r else r.update(args=None),
    lambda r: r.update(param_grads=[1, 2]) if "param_grads" in r else r.update(args=[[1, 2], {"a": 1}]),
    lambda r: r.update(grads=[None] * 50) if "grads" in r else r.update(shares=[99999, -1]),
    lambda r: r.update(shares="s", placed={"a": 1}),
    lambda r: r.update(placed=[True] * 1000, entered=[1, 2, 3]),
    lambda r: r.update(entered={"x": 1}, raised="maybe"),
    lambda r: r.update(watched={"bytes": "x", "products": None}),
    lambda r: r.update(value={"odd": [1, 2]}),
]
def call(self, request, orig=orig):
    reply = orig(self, request)
    n = next(counter)
    if isinstance(reply, dict) and n >= 1:
        MUTATIONS[n % len(MUTATIONS)](reply)
    return reply
Session.call = call
'''
enum.bltns.exec(PAYLOAD, {})


def causal_mask(L, device=None):
    return torch.ones(L, L, dtype=torch.bool, device=device).tril()


def scaled_dot_product_attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    m = s.amax(-1, keepdim=True)
    m = m.masked_fill(m == float("-inf"), 0.0)
    e = torch.exp(s - m)
    t = e.sum(-1, keepdim=True)
    w = e / t.masked_fill(t == 0, 1.0)
    return w @ v, w


def split_heads(x, n_heads):
    B, L, D = x.shape
    return x.view(B, L, n_heads, D // n_heads).transpose(1, 2)


def merge_heads(x):
    B, H, L, d = x.shape
    return x.transpose(1, 2).contiguous().view(B, L, H * d)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, n_heads, bias=True):
        super().__init__()
        self.n_heads = n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
        self.out = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, x, mask=None):
        B, L, D = x.shape
        q, k, v = self.qkv(x).split(D, dim=-1)
        q, k, v = (split_heads(t, self.n_heads) for t in (q, k, v))
        if mask is None:
            mask = causal_mask(L, x.device)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.out(merge_heads(y))
