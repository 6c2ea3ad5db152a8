"""Exercise 7 — Grouped-query attention.

Chapter section: "Grouped-query and multi-query attention".

At generation time every layer caches the keys and values of every token, and that cache, not the
weights, is what fills GPU memory. Queries are what make heads different; keys and values are just
the context's labels and content. So grouped-query attention (GQA) keeps H query heads but only
H_kv key/value heads, each shared by a group of H / H_kv query heads:

- H_kv == H: ordinary multi-head attention.
- H_kv == 1: multi-query attention (one key head and one value head for everyone).
- in between: the KV cache is H / H_kv times smaller (Llama-2 70B and Llama-3 70B: H = 64 query
  heads, H_kv = 8, so each KV head serves 8 query heads).

The maths is ordinary per-head attention after one extra step: repeat each KV head H / H_kv times
so that it lines up with its group of query heads.

Every function and module here leaves its inputs unchanged and returns tensors in the inputs'
dtype (float32 or float64; float16 and bfloat16 too) and on their device. A float64 input is
computed in float64 all the way: no .float() and no float32 softmax on the way, as some
libraries do for speed.
It must train: autograd through your code gives the chapter's gradients (no .detach(), no
in-place edit of a tensor autograd still needs).
"""

import math

import torch
import torch.nn as nn


# Given: exercises 4 and 5, as the chapter writes them but for one difference: the chapter's attention
# returns NaN for a query whose mask row is all False (torch.softmax of a row of -inf is 0/0), and
# this one gives that query zero weights and a zero output, as your exercise 5 does. Padding can leave
# such rows, and a NaN there would spread to every later layer and every gradient. From here on you
# may use torch.softmax (writing it was exercise 5); torch's fused attention and nn.MultiheadAttention
# stay off limits.


def causal_mask(L, device=None):
    """Given: (L, L) lower-triangular bool matrix: row i may see columns 0..i."""
    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))  # (L, L)


def scaled_dot_product_attention(q, k, v, mask=None):
    """Given: one head of attention.

    q: (..., L_q, d_k)   k: (..., L_k, d_k)   v: (..., L_k, d_v)
    mask: bool broadcastable to (..., L_q, L_k); True = may attend.
    Returns (output (..., L_q, d_v), weights (..., L_q, L_k)); a fully masked query gets zeros.
    """
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))  # (..., L_q, L_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))  # -inf where NOT allowed
    weights = torch.softmax(scores, dim=-1)  # (..., L_q, L_k) rows sum to 1
    if mask is not None:
        weights = weights.masked_fill(~mask, 0.0)  # (..., L_q, L_k) a fully masked row: NaN -> 0
    return weights @ v, weights  # (..., L_q, d_v), (..., L_q, L_k)


# Your part.


def repeat_kv(x: torch.Tensor, n_rep: int) -> torch.Tensor:
    """Llama-style: insert a group axis, expand it (a stride-0 view), then reshape (one copy)."""
    B, H_kv, L, d = x.shape
    return x[:, :, None, :, :].expand(B, H_kv, n_rep, L, d).reshape(B, H_kv * n_rep, L, d)


class GroupedQueryAttention(nn.Module):
    """GQA that never copies the KV heads in forward: the query heads are grouped instead.

    q (B, H, L, d) is viewed as (B, H_kv, n_rep, L, d) — query head j = g*n_rep + r lands in group
    g = j // n_rep, exactly the head repeat_kv would pair it with — and k, v get a size-1 group axis
    (B, H_kv, 1, L, d) that broadcasts in the given attention's matmuls. The mask, broadcastable to
    (B, H, L, L), is broadcast to that shape and viewed the same way.
    """

    def __init__(self, d_model: int, n_heads: int, n_kv_heads: int) -> None:
        super().__init__()
        self.n_heads = n_heads
        self.n_kv_heads = n_kv_heads
        self.n_rep = n_heads // n_kv_heads
        self.d_head = d_model // n_heads
        self.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
        self.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.o_proj = nn.Linear(n_heads * self.d_head, d_model, bias=False)

    def forward(self, x: torch.Tensor, mask: torch.Tensor = None) -> torch.Tensor:
        B, L, _ = x.shape
        G, R, dh = self.n_kv_heads, self.n_rep, self.d_head
        q = self.q_proj(x).view(B, L, G, R, dh).permute(0, 2, 3, 1, 4)  # (B, G, R, L, dh)
        k = self.k_proj(x).view(B, L, G, 1, dh).permute(0, 2, 3, 1, 4)  # (B, G, 1, L, dh)
        v = self.v_proj(x).view(B, L, G, 1, dh).permute(0, 2, 3, 1, 4)  # (B, G, 1, L, dh)
        if mask is None:
            mask = causal_mask(L, x.device)  # (L, L) broadcasts against (B, G, R, L, L)
        else:
            mask = mask.broadcast_to(B, self.n_heads, L, L).view(B, G, R, L, L)
        y, _ = scaled_dot_product_attention(q, k, v, mask)  # (B, G, R, L, dh)
        y = y.permute(0, 3, 1, 2, 4).reshape(B, L, self.n_heads * dh)  # heads in order g*R + r
        return self.o_proj(y)
