"""Independent float64 reference for every exercise function, written from the chapter."""
import math

import torch
import torch.nn as nn

NEG = float("-inf")


# exercise 1
def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


def fused_project(x, w_qkv):
    d = w_qkv.shape[-1] // 3
    return project(x, w_qkv[:, :d], w_qkv[:, d:2 * d], w_qkv[:, 2 * d:])


# exercise 2, 3
def attention_scores(q, k):
    return q @ k.transpose(-2, -1)


def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)


def scaled_scores(q, k):
    return attention_scores(q, k) / math.sqrt(q.shape[-1])


# exercise 4
def causal_mask(L, device=None):
    i = torch.arange(L, device=device)
    return i[:, None] >= i[None, :]


def apply_mask(scores, mask):
    return torch.where(mask, scores, torch.full((), NEG, dtype=scores.dtype, device=scores.device))


def padding_mask(lengths, L):
    return (torch.arange(L, device=lengths.device)[None, :] < lengths[:, None])[:, None, :]


# exercise 5
def softmax(x, dim=-1):
    m = x.amax(dim, keepdim=True)
    m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
    e = torch.exp(x - m)
    s = e.sum(dim, keepdim=True)
    return e / torch.where(s == 0, torch.ones_like(s), s)


def sdpa(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        s = s.masked_fill(~mask, NEG)
    w = softmax(s, -1)
    return w @ v, w


# exercise 6
def split_heads(x, H):
    B, L, D = x.shape
    return torch.stack([x[:, :, h * (D // H):(h + 1) * (D // H)] for h in range(H)], dim=1)


def merge_heads(x):
    return torch.cat([x[:, h] for h in range(x.shape[1])], dim=-1)


def mha_forward(params, x, n_heads, mask=None):
    """params: dict with qkv.weight, qkv.bias (opt), out.weight, out.bias (opt)."""
    B, L, D = x.shape
    y = x @ params["qkv.weight"].T
    if "qkv.bias" in params:
        y = y + params["qkv.bias"]
    q, k, v = y[..., :D], y[..., D:2 * D], y[..., 2 * D:]
    q, k, v = (split_heads(t, n_heads) for t in (q, k, v))
    if mask is None:
        mask = causal_mask(L)
    o, _ = sdpa(q, k, v, mask)
    o = merge_heads(o) @ params["out.weight"].T
    if "out.bias" in params:
        o = o + params["out.bias"]
    return o


# exercise 7
def repeat_kv(x, n_rep):
    return torch.stack([x[:, j // n_rep] for j in range(x.shape[1] * n_rep)], dim=1)


def gqa_forward(params, x, H, Hkv, mask=None, past_k=None, past_v=None, positions_offset=0):
    B, L, D = x.shape
    dh = D // H
    q = split_heads(x @ params["q_proj.weight"].T, H)
    k = split_heads(x @ params["k_proj.weight"].T, Hkv)
    v = split_heads(x @ params["v_proj.weight"].T, Hkv)
    k, v = repeat_kv(k, H // Hkv), repeat_kv(v, H // Hkv)
    if mask is None:
        mask = causal_mask(L)
    o, _ = sdpa(q, k, v, mask)
    return merge_heads(o) @ params["o_proj.weight"].T


# exercise 8
def kv_cache_bytes(n_layers, n_kv_heads, d_head, seq_len, batch_size=1, bytes_per_value=2):
    return 2 * n_layers * n_kv_heads * d_head * seq_len * batch_size * bytes_per_value


# exercise 9
def repeated_tokens_check(t, batch, seq_len, vocab_size):
    return (t.dtype == torch.int64 and tuple(t.shape) == (batch, 2 * seq_len)
            and bool((t[:, :seq_len] == t[:, seq_len:]).all()) and int(t.min()) >= 0
            and int(t.max()) < vocab_size)


def previous_token_score(p):
    B, H, L, _ = p.shape
    tot = torch.zeros(H, dtype=torch.float64)
    for i in range(1, L):
        tot = tot + p[:, :, i, i - 1].double().sum(0)
    return tot / (B * (L - 1))


def induction_score(p, T):
    B, H, L, _ = p.shape
    tot = torch.zeros(H, dtype=torch.float64)
    for i in range(T, 2 * T):
        tot = tot + p[:, :, i, i - T + 1].double().sum(0)
    return tot / (B * T)


def find_heads(patterns, threshold=0.4):
    res = {"previous_token": [], "induction": []}
    for l, p in enumerate(patterns):
        ps, ind = previous_token_score(p), induction_score(p, p.shape[-1] // 2)
        for h in range(p.shape[1]):
            if float(ps[h]) > threshold:
                res["previous_token"].append((l, h))
            if float(ind[h]) > threshold:
                res["induction"].append((l, h))
    return res


# exercise 10
def attention_cost(L, d):
    return {"core_attention": 4 * L * L * d, "projections": 8 * L * d * d, "feed_forward": 16 * L * d * d}


def crossover_length(d):
    return 6 * d


def causal_offset_mask(Lq, Lk):
    qpos = torch.arange(Lq)[:, None] + (Lk - Lq)
    return torch.arange(Lk)[None, :] <= qpos


def full_attention(q, k, v, causal=False):
    mask = causal_offset_mask(q.shape[-2], k.shape[-2]) if causal else None
    return sdpa(q, k, v, mask)[0]
