"""Small float64 references written from the chapter (not from the kit)."""
import math

import torch

NEG = float("-inf")


def project(x, wq, wk, wv):
    return x @ wq, x @ wk, x @ wv


def scores(q, k):
    return q @ k.transpose(-2, -1)


def softmax(x, dim=-1):
    x = x.double()
    m = x.amax(dim=dim, keepdim=True)
    m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
    e = torch.exp(x - m)
    s = e.sum(dim=dim, keepdim=True)
    return e / torch.where(s == 0, torch.ones_like(s), s)


def sdpa(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        s = s.masked_fill(~mask, NEG)
    w = softmax(s, -1).to(q.dtype)
    if mask is not None:
        w = w.masked_fill(~mask, 0.0)
    return w @ v, w


def causal(L, device=None):
    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))


def causal_offset(Lq, Lk):
    qpos = torch.arange(Lq) + (Lk - Lq)
    return torch.arange(Lk)[None, :] <= qpos[:, None]


def split_heads(x, H):
    B, L, D = x.shape
    return x.reshape(B, L, H, D // H).permute(0, 2, 1, 3)


def merge_heads(x):
    B, H, L, d = x.shape
    return x.permute(0, 2, 1, 3).reshape(B, L, H * d)


def mha(sd, x, H, mask=None, bias=True):
    B, L, D = x.shape
    W, Wo = sd["qkv.weight"], sd["out.weight"]
    qkv = x @ W.T + (sd["qkv.bias"] if bias else 0)
    q, k, v = qkv[..., :D], qkv[..., D:2 * D], qkv[..., 2 * D:]
    q, k, v = (split_heads(t, H) for t in (q, k, v))
    if mask is None:
        mask = causal(L)
    y, _ = sdpa(q, k, v, mask)
    return merge_heads(y) @ Wo.T + (sd["out.bias"] if bias else 0)


def repeat_kv(x, n):
    idx = torch.arange(x.size(1) * n) // n
    return x[:, idx]


def gqa(sd, x, H, Hkv, mask=None, past_len=None):
    B, L, D = x.shape
    d = D // H
    q = (x @ sd["q_proj.weight"].T).view(B, L, H, d).transpose(1, 2)
    k = (x @ sd["k_proj.weight"].T).view(B, L, Hkv, d).transpose(1, 2)
    v = (x @ sd["v_proj.weight"].T).view(B, L, Hkv, d).transpose(1, 2)
    k, v = repeat_kv(k, H // Hkv), repeat_kv(v, H // Hkv)
    if mask is None:
        mask = causal(L)
    y, _ = sdpa(q, k, v, mask)
    return merge_heads(y) @ sd["o_proj.weight"].T


def kv_bytes(n_layers, n_kv_heads, d_head, seq_len, batch_size=1, bytes_per_value=2):
    return 2 * n_layers * n_kv_heads * d_head * seq_len * batch_size * bytes_per_value


def prev_score(p):
    L = p.size(-1)
    vals = torch.stack([p[:, :, i, i - 1] for i in range(1, L)], dim=-1)
    return vals.mean(dim=(0, 2))


def induction(p, n):
    vals = torch.stack([p[:, :, i, i - n + 1] for i in range(n, 2 * n)], dim=-1)
    return vals.mean(dim=(0, 2))


def attention_full(q, k, v, causal_=False):
    Lq, Lk = q.size(-2), k.size(-2)
    mask = causal_offset(Lq, Lk) if causal_ else None
    return sdpa(q, k, v, mask)[0]
