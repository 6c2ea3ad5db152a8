"""Small float64 reference implementations, written from the chapter and the stubs' docstrings.

Everything is computed in float64 on the CPU with plain loops / obvious formulas; callers cast.
"""
import math

import torch

D = torch.float64


def f64(t):
    return t.detach().to("cpu", D)


# ---- exercise 1
def project(x, wq, wk, wv):
    return x @ wq, x @ wk, x @ wv


def fused_project(x, w):
    d = w.shape[-1] // 3
    return x @ w[:, :d], x @ w[:, d:2 * d], x @ w[:, 2 * d:]


# ---- exercise 2 / 3
def scores(q, k):
    return q @ k.transpose(-2, -1)


def scaled(q, k):
    return scores(q, k) / math.sqrt(q.shape[-1])


# ---- exercise 4
def causal(L):
    m = torch.zeros(L, L, dtype=torch.bool)
    for i in range(L):
        for j in range(i + 1):
            m[i, j] = True
    return m


def padding(lengths, L):
    B = lengths.shape[0]
    m = torch.zeros(B, 1, L, dtype=torch.bool)
    for b in range(B):
        for j in range(L):
            m[b, 0, j] = j < int(lengths[b])
    return m


# ---- exercise 5
def softmax(x, dim=-1):
    """Autograd-friendly reference: rows of all -inf give 0 (and zero gradients)."""
    xt = x.movedim(dim, -1)
    empty = torch.isneginf(xt).all(-1, keepdim=True)
    safe = torch.where(empty, torch.zeros_like(xt), xt)
    p = torch.softmax(safe, dim=-1)
    p = torch.where(empty, torch.zeros_like(p), p)
    return p.movedim(-1, dim)


def sdpa(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    w = softmax(s, -1)
    return w @ v, w


# ---- exercise 6
def split_heads(x, H):
    B, L, D = x.shape
    dh = D // H
    out = torch.empty(B, H, L, dh, dtype=x.dtype)
    for h in range(H):
        out[:, h] = x[:, :, h * dh:(h + 1) * dh]
    return out


def merge_heads(x):
    return torch.cat([x[:, h] for h in range(x.shape[1])], dim=-1)


def mha(sd, x, H, mask=None):
    B, L, D = x.shape
    qkv = x @ sd["qkv.weight"].T
    if "qkv.bias" in sd:
        qkv = qkv + sd["qkv.bias"]
    q, k, v = qkv[..., :D], qkv[..., D:2 * D], qkv[..., 2 * D:]
    q, k, v = (split_heads_autograd(t, H) for t in (q, k, v))
    if mask is None:
        mask = causal(L)
    y, _ = sdpa(q, k, v, mask)
    y = merge_heads(y) @ sd["out.weight"].T
    if "out.bias" in sd:
        y = y + sd["out.bias"]
    return y


def split_heads_autograd(x, H):
    B, L, D = x.shape
    dh = D // H
    return torch.stack([x[:, :, h * dh:(h + 1) * dh] for h in range(H)], dim=1)


# ---- exercise 7 / 8
def repeat_kv(x, n):
    B, Hkv, L, d = x.shape
    return torch.stack([x[:, j // n] for j in range(Hkv * n)], dim=1)


def gqa(sd, x, H, Hkv, mask=None, positions_offset=0):
    B, L, D = x.shape
    dh = D // H
    q = split_heads_autograd(x @ sd["q_proj.weight"].T, H)
    k = split_heads_autograd(x @ sd["k_proj.weight"].T, Hkv)
    v = split_heads_autograd(x @ sd["v_proj.weight"].T, Hkv)
    k, v = repeat_kv(k, H // Hkv), repeat_kv(v, H // Hkv)
    if mask is None:
        mask = causal(L)
    y, _ = sdpa(q, k, v, mask)
    return merge_heads(y) @ sd["o_proj.weight"].T


def kv_bytes(n_layers, n_kv_heads, d_head, seq_len, batch_size=1, bytes_per_value=2):
    return 2 * n_layers * n_kv_heads * d_head * seq_len * batch_size * bytes_per_value


# ---- exercise 9
def prev_score(p):
    B, H, L, _ = p.shape
    out = torch.zeros(H, dtype=D)
    for h in range(H):
        out[h] = sum(float(p[b, h, i, i - 1]) for b in range(B) for i in range(1, L)) / (B * (L - 1))
    return out


def ind_score(p, s):
    B, H, L, _ = p.shape
    out = torch.zeros(H, dtype=D)
    for h in range(H):
        out[h] = sum(float(p[b, h, i, i - s + 1]) for b in range(B) for i in range(s, 2 * s)) / (B * s)
    return out


# ---- exercise 10
def cost(L, d):
    return {"core_attention": 4 * L * L * d, "projections": 8 * L * d * d, "feed_forward": 16 * L * d * d}


def causal_offset_mask(Lq, Lk):
    m = torch.zeros(Lq, Lk, dtype=torch.bool)
    for i in range(Lq):
        for j in range(Lk):
            m[i, j] = j <= Lk - Lq + i
    return m


def attention(q, k, v, causal_=False):
    mask = causal_offset_mask(q.shape[-2], k.shape[-2]) if causal_ else None
    return sdpa(q, k, v, mask)[0]
