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


def repeat_kv(x, n_rep):
    """Line the KV heads up with the query heads: repeat each KV head n_rep times, next to itself.

    x:     (B, H_kv, L, d), any dtype and device
    n_rep: int >= 1 (1: x's values unchanged)
    Returns (B, H_kv*n_rep, L, d) in x's dtype and device, where output head j is input head
    j // n_rep: with H_kv = 2 and n_rep = 3 the heads are [0, 0, 0, 1, 1, 1] (not
    [0, 1, 0, 1, 0, 1]); with n_rep = 1 that may be x itself. x itself must not change.
    """
    B, H_kv, L, d = x.shape
    return x[:, :, None].expand(B, H_kv, n_rep, L, d).reshape(B, H_kv * n_rep, L, d)


class GroupedQueryAttention(nn.Module):
    """The chapter's grouped-query self-attention.

    GroupedQueryAttention(d_model, n_heads, n_kv_heads), with d_head = d_model // n_heads, must have
    exactly four bias-free linear layers:
      q_proj: nn.Linear(d_model, n_heads * d_head, bias=False)     W_Q, H query heads
      k_proj: nn.Linear(d_model, n_kv_heads * d_head, bias=False)  W_K, only H_kv heads: smaller!
      v_proj: nn.Linear(d_model, n_kv_heads * d_head, bias=False)  W_V, only H_kv heads: smaller!
      o_proj: nn.Linear(n_heads * d_head, d_model, bias=False)     W_O
    (the grader loads a state dict with the keys q_proj.weight, k_proj.weight, v_proj.weight,
    o_proj.weight). The grader builds only modules where d_model is a multiple of n_heads (so
    n_heads * d_head = d_model) and n_heads is a multiple of n_kv_heads; you need not check either.
    A query that may see no key gets a zero output, never NaN (see forward).
    """

    def __init__(self, d_model, n_heads, n_kv_heads):
        super().__init__()
        assert d_model % n_heads == 0, "d_model must divide evenly into heads"
        assert n_heads % n_kv_heads == 0, "n_heads must be a multiple of n_kv_heads"
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.d_head = d_model // n_heads
        self.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
        self.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)  # smaller!
        self.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)  # smaller!
        self.o_proj = nn.Linear(n_heads * self.d_head, d_model, bias=False)

    def forward(self, x, mask=None):
        """x: (B, L, D) -> (B, L, D), in x's dtype and device (the module's parameters are there).

        mask: None for causal attention (token i sees tokens 0..i), or a bool tensor broadcastable
        to the scores (B, H, L, L); True = may attend. A given mask replaces the causal one.
        A query whose mask row is all False (a sequence that is all padding) reads nothing: its
        output is zeros, not NaN, as the given scaled_dot_product_attention makes it, and the
        gradients through it are zeros, not NaN.
        Steps: project q (H heads) and k, v (H_kv heads), split into heads, repeat_kv on k and v,
        attention, concatenate the heads, o_proj.
        These steps are one way, not a requirement: the grader checks forward's outputs and
        gradients, not which functions it calls (repeat_kv is graded on its own).
        """
        B, L, _ = x.shape
        q = self.q_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)  # (B, H, L, dh)
        k = self.k_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)  # (B, Hkv, L, dh)
        v = self.v_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)  # (B, Hkv, L, dh)
        rep = self.n_heads // self.n_kv_heads
        idx = torch.arange(self.n_heads, device=x.device) // rep  # query head -> its KV head
        k = k.index_select(1, idx)
        v = v.index_select(1, idx)
        if mask is None:
            mask = causal_mask(L, x.device)  # (L, L) broadcasts over (B, H)
        y, _ = scaled_dot_product_attention(q, k, v, mask)  # (B, H, L, dh)
        y = y.transpose(1, 2).contiguous().view(B, L, -1)  # concat heads: (B, L, H*dh)
        return self.o_proj(y)  # (B, L, D)
