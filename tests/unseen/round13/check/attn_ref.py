"""float64 references shared by exercises 6-8 (the chapter's maths, fully masked rows -> zeros)."""
import math
import torch


def ref_softmax(x, dim=-1):
    m = x.amax(dim, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(x - m)
    s = e.sum(dim, keepdim=True)
    return e / torch.where(s == 0, torch.ones_like(s), s)


def ref_sdpa(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    w = ref_softmax(s, -1)
    return w @ v


def causal(Lq, Lk, device=None):
    """query i at position Lk - Lq + i sees keys 0 .. Lk - Lq + i"""
    return torch.ones(Lq, Lk, dtype=torch.bool, device=device).tril(Lk - Lq)


def split(x, H):
    B, L, D = x.shape
    return x.reshape(B, L, H, D // H).transpose(1, 2)


def merge(x):
    B, H, L, d = x.shape
    return x.transpose(1, 2).reshape(B, L, H * d)


def ref_mha(x, wqkv, bqkv, wo, bo, H, mask=None):
    B, L, D = x.shape
    qkv = x @ wqkv.T + (bqkv if bqkv is not None else 0)
    q, k, v = (split(t, H) for t in qkv.split(D, -1))
    if mask is None:
        mask = causal(L, L)
    y = merge(ref_sdpa(q, k, v, mask))
    return y @ wo.T + (bo if bo is not None else 0)


def ref_gqa(x, wq, wk, wv, wo, H, Hkv, mask=None):
    B, L, D = x.shape
    q, k, v = split(x @ wq.T, H), split(x @ wk.T, Hkv), split(x @ wv.T, Hkv)
    k, v = k.repeat_interleave(H // Hkv, 1), v.repeat_interleave(H // Hkv, 1)
    if mask is None:
        mask = causal(L, L)
    return merge(ref_sdpa(q, k, v, mask)) @ wo.T
