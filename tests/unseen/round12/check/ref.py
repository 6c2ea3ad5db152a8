"""Reference implementation written from the chapter (and the stubs' docstrings), for the corpus checker."""
import math
import torch
import torch.nn as nn


# ---- exercise 1
def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


def fused_project(x, w_qkv):
    d = w_qkv.size(-1) // 3
    return tuple((x @ w_qkv).split(d, dim=-1))


# ---- exercise 2/3
def attention_scores(q, k):
    return q @ k.transpose(-2, -1)


def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)


def scaled_scores(q, k):
    return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))


# ---- exercise 4
def causal_mask(L, device=None):
    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))


def apply_mask(scores, mask):
    return scores.masked_fill(~mask, float("-inf"))


def padding_mask(lengths, L):
    return (torch.arange(L, device=lengths.device)[None, :] < lengths[:, None])[:, None, :]


# ---- exercise 5
def softmax(x, dim=-1):
    m = x.amax(dim=dim, keepdim=True)
    m = torch.where(torch.isneginf(m), torch.zeros_like(m), m).detach()
    e = torch.exp(x - m)
    s = e.sum(dim=dim, keepdim=True)
    return e / torch.where(s == 0, torch.ones_like(s), s)


def sdpa5(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    w = softmax(scores, dim=-1)
    return w @ v, w


# ---- given attention for 6..8
def sdpa(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask, 0.0)
    return weights @ v, weights


# ---- exercise 6
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
        self.d_head = d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
        self.out = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, x, mask=None):
        B, L, D = x.shape
        q, k, v = self.qkv(x).split(D, dim=-1)
        q, k, v = (split_heads(t, self.n_heads) for t in (q, k, v))
        if mask is None:
            mask = causal_mask(L, x.device)
        y, _ = sdpa(q, k, v, mask)
        return self.out(merge_heads(y))


# ---- exercise 7
def repeat_kv(x, n_rep):
    return x.repeat_interleave(n_rep, dim=1)


class GroupedQueryAttention(nn.Module):
    def __init__(self, d_model, n_heads, n_kv_heads):
        super().__init__()
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.d_head = d_model // n_heads
        self.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
        self.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.o_proj = nn.Linear(n_heads * self.d_head, d_model, bias=False)

    def forward(self, x, mask=None):
        B, L, _ = x.shape
        q = self.q_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)
        k = self.k_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)
        v = self.v_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)
        rep = self.n_heads // self.n_kv_heads
        k, v = repeat_kv(k, rep), repeat_kv(v, rep)
        if mask is None:
            mask = causal_mask(L, x.device)
        y, _ = sdpa(q, k, v, mask)
        return self.o_proj(y.transpose(1, 2).contiguous().view(B, L, -1))


# ---- exercise 8
def kv_cache_bytes(n_layers, n_kv_heads, d_head, seq_len, batch_size=1, bytes_per_value=2):
    return 2 * n_layers * n_kv_heads * d_head * seq_len * batch_size * bytes_per_value


# ---- exercise 9
def repeated_tokens(batch, seq_len, vocab_size, generator=None):
    t = torch.randint(vocab_size, (batch, seq_len), generator=generator)
    return torch.cat([t, t], dim=1)


def previous_token_score(pattern):
    return pattern.diagonal(offset=-1, dim1=-2, dim2=-1).mean(dim=(0, 2))


def induction_score(pattern, seq_len):
    return pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)[..., 1:].mean(dim=(0, 2))


# ---- exercise 10
def attention_cost(L, d):
    return {"core_attention": 4 * L * L * d, "projections": 8 * L * d * d, "feed_forward": 16 * L * d * d}


def crossover_length(d):
    return 6 * d


def full_attention(q, k, v, causal=False):
    """softmax(QK^T/sqrt d) V with the kit's causal convention; zero for queries that see nothing."""
    Lq, Lk = q.size(-2), k.size(-2)
    mask = None
    if causal:
        mask = torch.ones(Lq, Lk, dtype=torch.bool, device=q.device).tril(diagonal=Lk - Lq)
    return sdpa5(q, k, v, mask)[0]
