"""Float64 reference implementations, written from the chapter and the stubs' docstrings."""
import math

import torch

NEG_INF = float("-inf")


def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


def fused_project(x, w_qkv):
    d = w_qkv.shape[-1] // 3
    return x @ w_qkv[:, :d], x @ w_qkv[:, d:2 * d], x @ w_qkv[:, 2 * d:]


def scores(q, k):
    return q @ k.transpose(-2, -1)


def scale_scores(s, d_k):
    return s / math.sqrt(d_k)


def scaled_scores(q, k):
    return scores(q, k) / math.sqrt(q.shape[-1])


def causal_mask(L, device=None):
    i = torch.arange(L, device=device)
    return i[:, None] >= i[None, :]


def apply_mask(s, mask):
    return torch.where(mask, s, torch.full((), NEG_INF, dtype=s.dtype, device=s.device))


def padding_mask(lengths, L):
    j = torch.arange(L, device=lengths.device)
    return (j[None, :] < lengths[:, None])[:, None, :]


def softmax(x, dim=-1):
    """Stable softmax; an all -inf slice gives zeros with finite (zero) gradients."""
    m = x.amax(dim=dim, keepdim=True)
    m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
    e = torch.exp(x - m)
    s = e.sum(dim=dim, keepdim=True)
    return e / torch.where(s == 0, torch.ones_like(s), s)


def sdpa(q, k, v, mask=None):
    s = scaled_scores(q, k)
    if mask is not None:
        s = apply_mask(s, mask)
    w = softmax(s, -1)
    return w @ v, w


def split_heads(x, H):
    B, L, D = x.shape
    return x.reshape(B, L, H, D // H).permute(0, 2, 1, 3)


def merge_heads(x):
    B, H, L, d = x.shape
    return x.permute(0, 2, 1, 3).reshape(B, L, H * d)


def mha(p, x, n_heads, mask=None):
    """p: dict with qkv.weight (3D, D), qkv.bias or None, out.weight, out.bias or None."""
    B, L, D = x.shape
    y = torch.nn.functional.linear(x, p["qkv.weight"], p.get("qkv.bias"))
    q, k, v = (split_heads(t, n_heads) for t in y.split(D, dim=-1))
    if mask is None:
        mask = causal_mask(L, x.device)
    o, _ = sdpa(q, k, v, mask)
    return torch.nn.functional.linear(merge_heads(o), p["out.weight"], p.get("out.bias"))


def repeat_kv(x, n_rep):
    idx = torch.arange(x.shape[1] * n_rep, device=x.device) // n_rep
    return x.index_select(1, idx)


def gqa(p, x, H, Hkv, mask=None, past_k=None, past_v=None):
    """Reference GQA; with past keys/values (B, Hkv, P, d) it is the cached step, causal by position."""
    B, T, D = x.shape
    dh = D // H
    q = (x @ p["q_proj.weight"].T).reshape(B, T, H, dh).permute(0, 2, 1, 3)
    k = (x @ p["k_proj.weight"].T).reshape(B, T, Hkv, dh).permute(0, 2, 1, 3)
    v = (x @ p["v_proj.weight"].T).reshape(B, T, Hkv, dh).permute(0, 2, 1, 3)
    P = 0
    if past_k is not None:
        P = past_k.shape[2]
        k = torch.cat([past_k, k], 2)
        v = torch.cat([past_v, v], 2)
    k, v = repeat_kv(k, H // Hkv), repeat_kv(v, H // Hkv)
    if mask is None:
        mask = torch.arange(T, device=x.device)[:, None] + P >= torch.arange(P + T, device=x.device)[None, :]
    o, _ = sdpa(q, k, v, mask)
    return merge_heads(o) @ p["o_proj.weight"].T


def kv_cache_bytes(n_layers, n_kv_heads, d_head, seq_len, batch_size=1, bytes_per_value=2):
    return 2 * n_layers * n_kv_heads * d_head * seq_len * batch_size * bytes_per_value


def previous_token_score(p):
    L = p.shape[-1]
    i = torch.arange(1, L)
    return p[:, :, i, i - 1].mean(dim=(0, 2))


def induction_score(p, seq_len):
    i = torch.arange(seq_len, 2 * seq_len)
    return p[:, :, i, i - seq_len + 1].mean(dim=(0, 2))


def find_heads(patterns, threshold=0.4):
    prev, ind = [], []
    for layer, p in enumerate(patterns):
        L = p.shape[-1]
        ps, isc = previous_token_score(p), induction_score(p, L // 2)
        for h in range(p.shape[1]):
            if float(ps[h]) > threshold:
                prev.append((layer, h))
            if float(isc[h]) > threshold:
                ind.append((layer, h))
    return {"previous_token": prev, "induction": ind}


def attention_cost(L, d):
    return {"core_attention": 4 * L * L * d, "projections": 8 * L * d * d, "feed_forward": 16 * L * d * d}


def crossover_length(d):
    return 6 * d


def full_attention(q, k, v, causal=False):
    Lq, Lk = q.shape[-2], k.shape[-2]
    mask = None
    if causal:
        mask = torch.arange(Lq, device=q.device)[:, None] + (Lk - Lq) >= torch.arange(Lk, device=q.device)[None, :]
    return sdpa(q, k, v, mask)[0]
