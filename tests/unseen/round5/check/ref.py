"""Independent float64 reference, written from the chapter's maths (not from any kit file)."""

import math

import torch

F64 = torch.float64


def softmax(x, dim=-1):
    """Safe softmax: a slice that is entirely -inf gives zeros."""
    m = x.amax(dim=dim, keepdim=True)
    m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
    e = torch.exp(x - m)
    s = e.sum(dim=dim, keepdim=True)
    return e / torch.where(s == 0, torch.ones_like(s), s)


def attention(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    w = softmax(s, -1)
    return w @ v, w


def causal(L, device="cpu"):
    i = torch.arange(L, device=device)
    return i[None, :] <= i[:, None]


def shifted_causal(L_q, L_k):
    """query i at position L_k - L_q + i sees keys 0 .. L_k - L_q + i."""
    qpos = torch.arange(L_q) + (L_k - L_q)
    return torch.arange(L_k)[None, :] <= qpos[:, None]


def padding(lengths, L):
    return (torch.arange(L)[None, :] < lengths[:, None])[:, None, :]


def split_heads(x, H):
    B, L, D = x.shape
    dh = D // H
    return torch.stack([x[:, :, h * dh:(h + 1) * dh] for h in range(H)], dim=1)


def merge_heads(x):
    return torch.cat([x[:, h] for h in range(x.shape[1])], dim=-1)


def mha(x, sd, H, mask=None):
    """sd: state dict with qkv.weight (3D, D), qkv.bias, out.weight, out.bias (bias may be None)."""
    B, L, D = x.shape
    qkv = x @ sd["qkv.weight"].T
    if sd.get("qkv.bias") is not None:
        qkv = qkv + sd["qkv.bias"]
    q, k, v = qkv[..., :D], qkv[..., D:2 * D], qkv[..., 2 * D:]
    if mask is None:
        mask = causal(L)
    y, _ = attention(split_heads(q, H), split_heads(k, H), split_heads(v, H), mask)
    y = merge_heads(y) @ sd["out.weight"].T
    if sd.get("out.bias") is not None:
        y = y + sd["out.bias"]
    return y


def gqa(x, sd, H, H_kv, mask=None, past_mask=None):
    B, L, D = x.shape
    dh = D // H
    q = split_heads(x @ sd["q_proj.weight"].T, H)
    k = split_heads(x @ sd["k_proj.weight"].T, H_kv)
    v = split_heads(x @ sd["v_proj.weight"].T, H_kv)
    rep = H // H_kv
    idx = [j // rep for j in range(H)]
    k, v = k[:, idx], v[:, idx]
    if mask is None:
        mask = causal(L)
    y, _ = attention(q, k, v, mask)
    return merge_heads(y) @ sd["o_proj.weight"].T


def prev_score(p):
    B, H, L, _ = p.shape
    tot = torch.zeros(H, dtype=F64)
    for i in range(1, L):
        tot += p[:, :, i, i - 1].double().sum(0)
    return tot / (B * (L - 1))


def ind_score(p, T):
    B, H, L, _ = p.shape
    tot = torch.zeros(H, dtype=F64)
    for i in range(T, 2 * T):
        tot += p[:, :, i, i - T + 1].double().sum(0)
    return tot / (B * T)
