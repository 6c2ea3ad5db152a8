"""An independent float64 reference for every function and class of the ten stubs.

Written from the chapter's maths and the stubs' docstrings only. Every function is plain,
differentiable torch; call it on float64 tensors (the checker does) to get reference values and,
through autograd, reference gradients. Nothing here is imported by the corpus files.
"""

import math

import torch
import torch.nn as nn

F64 = torch.float64
NEG_INF = float("-inf")


# ----------------------------------------------------------------------------------- exercise 1
def project(x, w_q, w_k, w_v):
    return (torch.einsum("...i,ij->...j", x, w_q), torch.einsum("...i,ij->...j", x, w_k),
            torch.einsum("...i,ij->...j", x, w_v))


def fused_project(x, w_qkv):
    d = w_qkv.shape[-1] // 3
    return project(x, w_qkv[:, :d], w_qkv[:, d:2 * d], w_qkv[:, 2 * d:])


# ----------------------------------------------------------------------------------- exercise 2
def attention_scores(q, k):
    return torch.einsum("...id,...jd->...ij", q, k)


# ----------------------------------------------------------------------------------- exercise 3
def scale_scores(scores, d_k):
    return scores * (1.0 / math.sqrt(d_k))


def scaled_scores(q, k):
    return scale_scores(attention_scores(q, k), q.shape[-1])


# ----------------------------------------------------------------------------------- exercise 4
def causal_mask(L, device=None):
    i = torch.arange(L, device=device)
    return i.view(L, 1) >= i.view(1, L)


def apply_mask(scores, mask):
    return torch.where(mask, scores, torch.full((), NEG_INF, dtype=scores.dtype, device=scores.device))


def padding_mask(lengths, L):
    j = torch.arange(L, device=lengths.device)
    return (j.view(1, 1, L) < lengths.view(-1, 1, 1))


# ----------------------------------------------------------------------------------- exercise 5
def softmax(x, dim=-1):
    """softmax with an all -inf slice giving zeros (and zero gradient)."""
    dead = torch.isneginf(x).all(dim=dim, keepdim=True)
    xs = torch.where(dead, torch.zeros_like(x), x)
    c = xs.detach().amax(dim=dim, keepdim=True)
    e = torch.exp(xs - c)
    out = e / e.sum(dim=dim, keepdim=True)
    return torch.where(dead, torch.zeros_like(out), out)


def scaled_dot_product_attention(q, k, v, mask=None):
    s = attention_scores(q, k) / math.sqrt(q.shape[-1])
    if mask is not None:
        s = apply_mask(s, mask)
    w = softmax(s, dim=-1)
    return torch.einsum("...ij,...jd->...id", w, v), w


# ----------------------------------------------------------------------------------- exercise 6
def split_heads(x, n_heads):
    B, L, D = x.shape
    dh = D // n_heads
    return torch.stack([x[:, :, h * dh:(h + 1) * dh] for h in range(n_heads)], dim=1)


def merge_heads(x):
    return torch.cat([x[:, h] for h in range(x.shape[1])], dim=-1)


class RefMHA(nn.Module):
    """Same parameter names as the stub: qkv, out."""

    def __init__(self, d_model, n_heads, bias=True):
        super().__init__()
        self.n_heads = n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
        self.out = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, x, mask=None):
        B, L, D = x.shape
        qkv = self.qkv(x)
        q, k, v = qkv[..., :D], qkv[..., D:2 * D], qkv[..., 2 * D:]
        q, k, v = (split_heads(t, self.n_heads) for t in (q, k, v))
        if mask is None:
            mask = causal_mask(L, x.device)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.out(merge_heads(y))


# ----------------------------------------------------------------------------------- exercise 7
def repeat_kv(x, n_rep):
    idx = torch.arange(x.shape[1] * n_rep, device=x.device) // n_rep
    return x.index_select(1, idx)


class RefGQA(nn.Module):
    def __init__(self, d_model, n_heads, n_kv_heads):
        super().__init__()
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.d_head = d_model // n_heads
        self.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
        self.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.o_proj = nn.Linear(n_heads * self.d_head, d_model, bias=False)

    def heads(self, t, n):
        B, L, _ = t.shape
        return split_heads(t, n)

    def forward(self, x, mask=None, past=0):
        """`past`: positions of x start at `past` (keys = the whole x; used for chunk checks)."""
        B, L, _ = x.shape
        q = self.heads(self.q_proj(x), self.n_heads)
        k = self.heads(self.k_proj(x), self.n_kv_heads)
        v = self.heads(self.v_proj(x), self.n_kv_heads)
        rep = self.n_heads // self.n_kv_heads
        k, v = repeat_kv(k, rep), repeat_kv(v, rep)
        if mask is None:
            mask = causal_mask(L, x.device)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.o_proj(merge_heads(y))


# ----------------------------------------------------------------------------------- exercise 8
def kv_cache_bytes(n_layers, n_kv_heads, d_head, seq_len, batch_size=1, bytes_per_value=2):
    return 2 * n_layers * n_kv_heads * d_head * seq_len * batch_size * bytes_per_value


# ----------------------------------------------------------------------------------- exercise 9
def previous_token_score(pattern):
    B, H, L, _ = pattern.shape
    i = torch.arange(1, L, device=pattern.device)
    return pattern[:, :, i, i - 1].mean(dim=(0, 2))


def induction_score(pattern, seq_len):
    L = pattern.shape[-1]
    i = torch.arange(seq_len, L, device=pattern.device)
    return pattern[:, :, i, i - seq_len + 1].mean(dim=(0, 2))


def find_heads(patterns, threshold=0.4):
    out = {"previous_token": [], "induction": []}
    for layer, p in enumerate(patterns):
        pt = previous_token_score(p)
        ind = induction_score(p, p.shape[-1] // 2)
        for h in range(p.shape[1]):
            if float(pt[h]) > threshold:
                out["previous_token"].append((layer, h))
            if float(ind[h]) > threshold:
                out["induction"].append((layer, h))
    return out


# ---------------------------------------------------------------------------------- exercise 10
def attention_cost(L, d_model):
    return {"core_attention": 4 * L * L * d_model, "projections": 8 * L * d_model ** 2,
            "feed_forward": 16 * L * d_model ** 2}


def crossover_length(d_model):
    return 6 * d_model


def online_softmax(x, block_size):
    return softmax(x, dim=-1)


def bottom_right_causal(L_q, L_k, device=None):
    qpos = torch.arange(L_q, device=device).view(L_q, 1) + (L_k - L_q)
    return torch.arange(L_k, device=device).view(1, L_k) <= qpos


def tiled_attention(q, k, v, block_size, causal=False):
    mask = bottom_right_causal(q.shape[-2], k.shape[-2], q.device) if causal else None
    return scaled_dot_product_attention(q, k, v, mask)[0]
