"""Exercise 6 — Multi-head attention.

Chapter section: "Multi-head attention".

One softmax gives each token one weighting of the context. Multi-head attention runs H attentions
in parallel, each with its own slice of W_Q, W_K, W_V, so head 1 can look for the subject while
head 2 looks at the previous word. To keep the cost the same, each head is narrower:
d_head = d_model / H.

The whole trick is two reshapes:

- split_heads: (B, L, D) -> (B, H, L, d_head). Each D-vector is cut into H chunks of d_head, and
  the heads become a batch dim, so one call of attention runs all B*H attentions at once.
- merge_heads: (B, H, L, d_head) -> (B, L, D). The heads' outputs side by side again (their
  concatenation), ready for W_O to mix them.

Every function and module here leaves its inputs unchanged and returns tensors in the inputs'
dtype (float32 or float64; float16 and bfloat16 too) and on their device.
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


def split_heads(x, n_heads):
    """unflatten the last axis, then movedim."""
    return x.unflatten(-1, (n_heads, -1)).movedim(-2, 1)


def merge_heads(x):
    """movedim back, then flatten (copies when it must)."""
    return x.movedim(1, -2).flatten(-2)


class MultiHeadAttention(nn.Module):
    """einsum over heads, F.linear with the layers' own weights, its own masking."""

    def __init__(self, d_model, n_heads, bias=True):
        super().__init__()
        self.n_heads, self.d_head = n_heads, d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
        self.out = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, x, mask=None):
        B, L, D = x.shape
        qkv = torch.nn.functional.linear(x, self.qkv.weight, self.qkv.bias)  # (B, L, 3D)
        q, k, v = qkv.unflatten(-1, (3, self.n_heads, self.d_head)).unbind(2)  # (B, L, H, dh) each
        scores = torch.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(self.d_head)
        if mask is None:
            mask = torch.ones(L, L, dtype=torch.bool, device=x.device).tril()
        scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1).masked_fill(~mask, 0.0)
        y = torch.einsum("bhqk,bkhd->bqhd", weights, v).reshape(B, L, D)
        return self.out(y)


