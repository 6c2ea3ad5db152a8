"""An independent float64 answer for every step of the attention chapter, in NumPy only.

Why it exists: `lumen_ref` is the answer key the grader compares students against, so something
that is not `lumen_ref` has to prove it. This module is that second opinion. The grader's
`lumen-grade check` and `tests/reference/test_reference.py` use it as the independent answer.

It is written differently from `lumen_ref` on purpose, so that one mistake cannot hide in both:
no torch anywhere in the maths, everything in float64, einsum instead of `@`, heads handled by
explicit loops over weight slices instead of view/transpose, repeat_kv by indexing instead of
repeat_interleave, and the KV cache replayed as plain Python lists of past keys and values.

Conventions are the chapter's: a mask is boolean with True = "may attend"; weights passed to the
module-level functions are in nn.Linear layout (out_features, in_features), i.e. y = x W^T + b.
Inputs may be NumPy arrays (or anything `np.asarray` takes; a torch tensor is detached first);
every result is a new NumPy float64 array (masks: bool arrays).
"""

import numpy as np

__all__ = [
    "apply_mask",
    "attention_cost",
    "attention_scores",
    "attention_only_patterns",
    "cached_attention_outputs",
    "causal_mask",
    "crossover_length",
    "find_heads",
    "fused_project",
    "grouped_query_attention",
    "induction_score",
    "kv_cache_bytes",
    "merge_heads",
    "multi_head_attention",
    "online_softmax",
    "padding_mask",
    "previous_token_score",
    "project",
    "repeat_kv",
    "scale_scores",
    "scaled_dot_product_attention",
    "scaled_scores",
    "softmax",
    "split_heads",
    "tiled_attention",
]


def _f64(a):
    """Any array-like (a torch tensor too, detached) -> a float64 NumPy array."""
    if hasattr(a, "detach"):  # duck-typed: no torch import here
        a = a.detach().cpu().numpy()
    return np.array(a, dtype=np.float64)


def _bool(a):
    if hasattr(a, "detach"):
        a = a.detach().cpu().numpy()
    return np.array(a, dtype=bool)


# Step 1 -- Project


def project(x, w_q, w_k, w_v):
    """x (..., L, d_model), w_* (d_model, d_out) in the chapter's X W layout -> Q, K, V."""
    x = _f64(x)
    return tuple(np.einsum("...ld,de->...le", x, _f64(w)) for w in (w_q, w_k, w_v))


def fused_project(x, w_qkv):
    """x (..., L, d_model), w_qkv (d_model, 3d) = [W_Q | W_K | W_V] -> Q, K, V.

    Slices the weight into its three blocks first (lumen_ref slices the product instead)."""
    w_qkv = _f64(w_qkv)
    d = w_qkv.shape[-1] // 3
    return project(x, w_qkv[:, :d], w_qkv[:, d:2 * d], w_qkv[:, 2 * d:])


# Steps 2 and 3 -- Score and scale


def attention_scores(q, k):
    """Q K^T: (..., L_q, d_k), (..., L_k, d_k) -> (..., L_q, L_k), leading dims broadcast."""
    return np.einsum("...qd,...kd->...qk", _f64(q), _f64(k))


def scale_scores(scores, d_k):
    return _f64(scores) / np.sqrt(float(d_k))


def scaled_scores(q, k):
    """Q K^T / sqrt(d_k), scaling q before the product (lumen_ref scales after)."""
    q = _f64(q)
    return attention_scores(q / np.sqrt(q.shape[-1]), k)


# Masks


def causal_mask(L):
    """(L, L) bool: query i may see key j iff j <= i."""
    return np.arange(L)[:, None] >= np.arange(L)[None, :]


def apply_mask(scores, mask):
    """scores where mask is True, -inf elsewhere (mask broadcastable to scores)."""
    scores = _f64(scores)
    return np.where(_bool(mask), scores, -np.inf)


def padding_mask(lengths, L):
    """lengths (B,) -> bool (B, 1, L) with [b, 0, j] = j < lengths[b], built row by row."""
    lengths = np.asarray(lengths.detach().cpu().numpy() if hasattr(lengths, "detach") else lengths)
    out = np.zeros((len(lengths), 1, L), dtype=bool)
    for b, n in enumerate(lengths):
        out[b, 0, : int(n)] = True
    return out


# Step 4 -- Softmax


def softmax(x, axis=-1):
    """Stable softmax along `axis`; a slice that is all -inf gives zeros, not NaN."""
    x = np.moveaxis(_f64(x), axis, -1)
    out = np.zeros_like(x)
    live = np.isfinite(x).any(axis=-1)  # slices with at least one finite score
    xs = x[live]  # (n_live, n)
    e = np.exp(xs - xs.max(axis=-1, keepdims=True))  # explicit max subtraction: every e <= 1
    out[live] = e / e.sum(axis=-1, keepdims=True)
    return np.moveaxis(out, -1, axis)


# Steps 2-5 together


def scaled_dot_product_attention(q, k, v, mask=None):
    """One query at a time: (..., L_q, d_k), (..., L_k, d_k), (..., L_k, d_v), mask -> (out, weights).

    A query whose every key is masked gets zero weights and a zero output."""
    q, k, v = _f64(q), _f64(k), _f64(v)
    L_q, L_k = q.shape[-2], k.shape[-2]
    m = np.ones((L_q, L_k), dtype=bool) if mask is None else _bool(mask)
    batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2], m.shape[:-2])
    q = np.broadcast_to(q, batch + q.shape[-2:])
    k = np.broadcast_to(k, batch + k.shape[-2:])
    v = np.broadcast_to(v, batch + v.shape[-2:])
    m = np.broadcast_to(m, batch + (L_q, L_k))
    out = np.zeros(batch + (L_q, v.shape[-1]))
    weights = np.zeros(batch + (L_q, L_k))
    for idx in np.ndindex(*batch):
        for i in range(L_q):
            allowed = m[idx][i]
            if not allowed.any():
                continue  # fully masked query: zeros
            s = k[idx][allowed] @ q[idx][i] / np.sqrt(q.shape[-1])  # scores of the allowed keys
            a = np.exp(s - s.max())
            a /= a.sum()
            weights[idx + (i,)][allowed] = a
            out[idx + (i,)] = a @ v[idx][allowed]
    return out, weights


# Multi-head reshapes


def split_heads(x, n_heads):
    """(B, L, D) -> (B, H, L, D/H): head h is columns h*d_head .. (h+1)*d_head - 1."""
    x = _f64(x)
    d_head = x.shape[-1] // n_heads
    return np.stack([x[..., h * d_head:(h + 1) * d_head] for h in range(n_heads)], axis=1)


def merge_heads(x):
    """(B, H, L, d_head) -> (B, L, H*d_head): heads side by side."""
    x = _f64(x)
    return np.concatenate([x[:, h] for h in range(x.shape[1])], axis=-1)


def repeat_kv(x, n_rep):
    """(B, H_kv, L, d) -> (B, H_kv*n_rep, L, d): output head j is input head j // n_rep."""
    x = _f64(x)
    return np.stack([x[:, j // n_rep] for j in range(x.shape[1] * n_rep)], axis=1)


# Whole layers (weights in nn.Linear layout: (out_features, in_features))


def _linear(x, w, b=None):
    y = np.einsum("...i,oi->...o", x, _f64(w))
    return y if b is None else y + _f64(b)


def _heads_attention(x, w_q, w_k, w_v, n_heads, n_kv_heads, mask):
    """Per query head h: its own slice of W_Q, and KV head h // (n_heads // n_kv_heads).

    Returns the heads' outputs concatenated, (B, L, n_heads * d_head), before W_O."""
    d_head = _f64(w_q).shape[0] // n_heads
    group = n_heads // n_kv_heads
    L = x.shape[-2]
    mask = causal_mask(L) if mask is None else _bool(mask)
    outs = []
    for h in range(n_heads):
        g = h // group
        m = mask
        if m.ndim == 4:  # (B or 1, H or 1, L_q, L_k): take this head's slice
            m = m[:, h if m.shape[1] > 1 else 0]
        q = _linear(x, w_q[h * d_head:(h + 1) * d_head])
        k = _linear(x, w_k[g * d_head:(g + 1) * d_head])
        v = _linear(x, w_v[g * d_head:(g + 1) * d_head])
        outs.append(scaled_dot_product_attention(q, k, v, m)[0])  # (B, L, d_head)
    return np.concatenate(outs, axis=-1)


def multi_head_attention(x, w_qkv, b_qkv, w_out, b_out, n_heads, mask=None):
    """The chapter's MultiHeadAttention: x (B, L, D); w_qkv (3D, D), b_qkv (3D,) or None;
    w_out (D, D), b_out (D,) or None. mask None = causal; otherwise used as given
    (bool, broadcastable to (B, H, L, L))."""
    x, w_qkv = _f64(x), _f64(w_qkv)
    D = x.shape[-1]
    w_q, w_k, w_v = w_qkv[:D], w_qkv[D:2 * D], w_qkv[2 * D:]
    if b_qkv is not None:  # fold the bias in as an extra input column of ones
        b_qkv = _f64(b_qkv)
        x1 = np.concatenate([x, np.ones(x.shape[:-1] + (1,))], axis=-1)
        w_q, w_k, w_v = (np.concatenate([w, b[:, None]], axis=1)
                         for w, b in ((w_q, b_qkv[:D]), (w_k, b_qkv[D:2 * D]), (w_v, b_qkv[2 * D:])))
        x = x1
    y = _heads_attention(x, w_q, w_k, w_v, n_heads, n_heads, mask)
    return _linear(y, w_out, b_out)


def grouped_query_attention(x, w_q, w_k, w_v, w_o, n_heads, n_kv_heads, mask=None):
    """The chapter's GroupedQueryAttention (no biases): w_q (H*dh, D), w_k/w_v (Hkv*dh, D),
    w_o (D, H*dh). mask None = causal; otherwise bool, broadcastable to (B, H, L, L)."""
    x = _f64(x)
    y = _heads_attention(x, _f64(w_q), _f64(w_k), _f64(w_v), n_heads, n_kv_heads, mask)
    return _linear(y, w_o)


def cached_attention_outputs(x, w_q, w_k, w_v, w_o, n_heads, n_kv_heads, chunks):
    """Decode x (B, L, D) chunk by chunk (sizes summing to L) with a KV cache kept as lists.

    Each new token at absolute position p attends to cached keys 0..p. Returns the list of chunk
    outputs (B, T_chunk, D); concatenated they equal grouped_query_attention(x, ...)."""
    x, w_q, w_k, w_v = _f64(x), _f64(w_q), _f64(w_k), _f64(w_v)
    if sum(chunks) != x.shape[-2]:
        raise ValueError("chunk sizes must add up to the sequence length")
    d_head = w_q.shape[0] // n_heads
    group = n_heads // n_kv_heads
    past_k = [[] for _ in range(n_kv_heads)]  # per KV head: list of (B, 1, dh) keys, one per token
    past_v = [[] for _ in range(n_kv_heads)]
    results, start = [], 0
    for size in chunks:
        new = x[:, start:start + size]  # (B, T, D)
        for g in range(n_kv_heads):
            rows = slice(g * d_head, (g + 1) * d_head)
            for t in range(size):
                past_k[g].append(_linear(new[:, t:t + 1], w_k[rows]))
                past_v[g].append(_linear(new[:, t:t + 1], w_v[rows]))
        heads = []
        for h in range(n_heads):
            g = h // group
            q = _linear(new, w_q[h * d_head:(h + 1) * d_head])  # (B, T, dh)
            k = np.concatenate(past_k[g], axis=1)  # (B, start + T, dh)
            v = np.concatenate(past_v[g], axis=1)
            mask = np.arange(start + size)[None, :] <= (start + np.arange(size))[:, None]
            heads.append(scaled_dot_product_attention(q, k, v, mask)[0])
        results.append(_linear(np.concatenate(heads, axis=-1), w_o))
        start += size
    return results


def kv_cache_bytes(n_layers, n_kv_heads, d_head, seq_len, batch_size=1, bytes_per_value=2):
    """Bytes of cached keys and values: per token per layer 2 * n_kv_heads * d_head numbers."""
    numbers_per_token_per_layer = 2 * n_kv_heads * d_head
    return int(numbers_per_token_per_layer) * n_layers * seq_len * batch_size * bytes_per_value


# What heads learn


def previous_token_score(pattern):
    """pattern (B, H, L, L) -> (H,): for each head, the weights pattern[b, h, i, i-1] of every b and
    every query i >= 1, added up one by one and divided by their count."""
    w = _f64(pattern)
    B, H, L, _ = w.shape
    return np.array([sum(w[b, h, i, i - 1] for b in range(B) for i in range(1, L)) / (B * (L - 1))
                     for h in range(H)])


def induction_score(pattern, seq_len):
    """pattern (B, H, 2T, 2T) -> (H,): the mean of pattern[b, h, T + n, n + 1], the n-th query of the
    second half on the key after the n-th token of the first (n = 0 .. T-1)."""
    w = _f64(pattern)
    B, H, L, _ = w.shape
    if L != 2 * seq_len:
        raise ValueError("a pattern of a sequence repeated twice has 2 * seq_len positions")
    return np.array([sum(w[b, h, seq_len + n, n + 1] for b in range(B) for n in range(seq_len)) / (B * seq_len)
                     for h in range(H)])


def find_heads(patterns, threshold=0.4):
    """Every (layer, head) whose score is above threshold, layer by layer, head by head."""
    found = {"previous_token": [], "induction": []}
    for layer, pattern in enumerate(patterns):
        previous, induction = previous_token_score(pattern), induction_score(pattern, _f64(pattern).shape[-1] // 2)
        for head in range(len(previous)):
            if previous[head] > threshold:
                found["previous_token"].append((layer, head))
            if induction[head] > threshold:
                found["induction"].append((layer, head))
    return found


def attention_only_patterns(tokens, state, n_heads):
    """The attention weights of every layer of an attention-only transformer (lumen_ref.heads), from its
    state dict: tokens (B, L) ints -> [(B, H, L, L)] one per layer, each head's attention on its own slice
    of the weights, the residual stream summed layer by layer."""
    tokens = np.asarray(tokens.cpu() if hasattr(tokens, "cpu") else tokens)
    p = {name: _f64(value) for name, value in state.items()}
    L = tokens.shape[1]
    x = p["tok_emb.weight"][tokens] + p["pos_emb.weight"][:L]  # (B, L, D)
    patterns, layer = [], 0
    while f"layers.{layer}.q_proj.weight" in p:
        w = {name: p[f"layers.{layer}.{name}_proj.weight"] for name in "qkvo"}
        d_head = w["q"].shape[0] // n_heads
        outs, weights = [], []
        for h in range(n_heads):
            rows = slice(h * d_head, (h + 1) * d_head)
            out, a = scaled_dot_product_attention(_linear(x, w["q"][rows]), _linear(x, w["k"][rows]),
                                                  _linear(x, w["v"][rows]), causal_mask(L))
            outs.append(out)
            weights.append(a)
        x = x + _linear(np.concatenate(outs, axis=-1), w["o"])
        patterns.append(np.stack(weights, axis=1))  # (B, H, L, L)
        layer += 1
    return patterns


# The cost of attention, and attention without the (L, L) matrix


def attention_cost(L, d_model):
    """FLOPs of one layer, 2 per multiply-add, counted from the shape of each matrix product."""
    def matmul(m, n, p):  # (m, n) @ (n, p): m * n * p multiply-adds
        return 2 * m * n * p

    d = d_model
    return {"core_attention": matmul(L, d, L) + matmul(L, L, d),  # Q K^T, then A V
            "projections": 4 * matmul(L, d, d),  # W_Q, W_K, W_V, W_O
            "feed_forward": matmul(L, d, 4 * d) + matmul(L, 4 * d, d)}  # up to 4d and back


def crossover_length(d_model):
    """The L where the core's cost (quadratic in L) equals the projections' and feed-forward's
    (linear in L): their ratio at L = 1."""
    cost = attention_cost(1, d_model)
    return (cost["projections"] + cost["feed_forward"]) // cost["core_attention"]


def online_softmax(x, block_size):
    """The softmax over the last axis: reading it in blocks changes nothing but the rounding."""
    return softmax(x, axis=-1)


def tiled_attention(q, k, v, block_size, causal=False):
    """Attention as the whole (L_q, L_k) matrix, one query at a time (the block size changes nothing).
    Causal: query i is at position L_k - L_q + i (the last L_q positions) and sees keys up to it, so
    with L_q > L_k the first L_q - L_k queries see no key and give zeros."""
    L_q, L_k = _f64(q).shape[-2], _f64(k).shape[-2]
    mask = None
    if causal:
        mask = np.arange(L_k)[None, :] <= (L_k - L_q + np.arange(L_q))[:, None]
    return scaled_dot_product_attention(q, k, v, mask)[0]
