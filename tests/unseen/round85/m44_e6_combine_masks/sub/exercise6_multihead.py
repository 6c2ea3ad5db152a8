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
    """Cut the model width into heads and make the heads a batch dim.

    x: (B, L, D) with D divisible by n_heads, any float dtype and device
    Returns (B, H, L, d_head) with H = n_heads, d_head = D // H: [b, h, l] is columns
    h*d_head .. (h+1)*d_head - 1 of token l, x[b, l]. No data needs to move: a view, then a
    transpose (a view of x is fine; x itself must not change).
    """
    B, L, D = x.shape  # batch, seq len, d_model
    x = x.view(B, L, n_heads, D // n_heads)  # (B, L, H, d_head): each D-vector as H chunks
    return x.transpose(1, 2)  # (B, H, L, d_head): heads become a batch dim


def merge_heads(x):
    """Undo split_heads: put each token's heads side by side again.

    x: (B, H, L, d_head), possibly not contiguous (the output of attention on split heads)
    Returns (B, L, H*d_head) in x's dtype and device: for each token, head 0's d_head numbers,
    then head 1's, and so on. x itself must not change.
    """
    B, H, L, d_head = x.shape
    x = x.transpose(1, 2).contiguous()  # (B, L, H, d_head), laid out so that view works
    return x.view(B, L, H * d_head)  # (B, L, H*d_head): the heads concatenated


class MultiHeadAttention(nn.Module):
    """The chapter's multi-head self-attention.

    MultiHeadAttention(d_model, n_heads, bias=True) must learn exactly two layers, and its state dict hold
    nothing else:
      qkv: nn.Linear(d_model, 3 * d_model, bias=bias)  W_Q, W_K, W_V fused side by side
      out: nn.Linear(d_model, d_model, bias=bias)      W_O, mixes the heads
    (the grader loads a state dict with the keys qkv.weight, qkv.bias, out.weight, out.bias).
    A query that may see no key reads nothing, never NaN (see forward).
    """

    def __init__(self, d_model, n_heads, bias=True):
        super().__init__()
        assert d_model % n_heads == 0, "d_model must divide evenly into heads"
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)  # W_Q, W_K, W_V fused side by side
        self.out = nn.Linear(d_model, d_model, bias=bias)  # W_O

    def forward(self, x, mask=None):
        """x: (B, L, D) -> (B, L, D), in x's dtype and device (the module's parameters are there).

        mask: None for causal attention (token i sees tokens 0..i), or a bool tensor broadcastable
        to the scores (B, H, L, L); True = may attend. A given mask replaces the causal one (it is
        not combined with it). A query whose mask row is all False (a sequence that is all padding)
        reads nothing: its heads give zeros, not NaN, as the given scaled_dot_product_attention
        makes them, so its output is out's bias (zeros with bias=False).
        Steps: qkv, split into q, k, v, split_heads each, attention, merge_heads, out.
        These steps are one way, not a requirement: the grader checks forward's outputs and
        gradients, not which functions it calls (split_heads and merge_heads are graded on their own).
        """
        B, L, D = x.shape  # batch, seq len, d_model
        q, k, v = self.qkv(x).split(D, dim=-1)  # three (B, L, D)
        q = split_heads(q, self.n_heads)  # (B, H, L, d_head)
        k = split_heads(k, self.n_heads)  # (B, H, L, d_head)
        v = split_heads(v, self.n_heads)  # (B, H, L, d_head)
        causal = causal_mask(L, x.device)
        mask = causal if mask is None else (mask & causal)
        y, _ = scaled_dot_product_attention(q, k, v, mask)  # (B, H, L, d_head)
        y = merge_heads(y)  # concat heads: (B, L, H*d_head) = (B, L, D)
        return self.out(y)  # mix heads with W_O: (B, L, D)
