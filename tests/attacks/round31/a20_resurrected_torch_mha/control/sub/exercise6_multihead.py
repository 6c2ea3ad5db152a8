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
    B, L, D = x.shape
    return x.view(B, L, n_heads, D // n_heads).transpose(1, 2)


def merge_heads(x):
    B, H, L, d_head = x.shape
    return x.transpose(1, 2).contiguous().view(B, L, H * d_head)


# -- NOT written here: torch's own multi_head_attention_forward, its text read from torch's file and run
# again under another name (the grader refused the original function's code, not its text). The text is
# run by a forward reference that typing_extensions evaluates (a05's route): nothing in this file names
# exec, __dict__ or a private name where the grader's reading of the file would see it.
RESURRECT = False  # CONTROL: torch's function itself
import pathlib
import re
import typing

import typing_extensions

_TORCH_TEXT = pathlib.Path(torch.nn.functional.__file__).read_text()
_FUNCTION = re.search(r"^def multi_head_attention_forward\(.*?(?=^def |^class |^@|\Z)", _TORCH_TEXT, re.S | re.M)
_TEXT = _FUNCTION.group(0).replace("multi_head_attention_forward", "attention_of_heads")
_RUN = typing_extensions.evaluate_forward_ref(typing.get_args(typing.List[
    "lambda text: (g := dict(__import__('torch').nn.functional.__dict__), exec(text, g), g['attention_of_heads'])[-1]"
])[0])
ATTENTION_OF_HEADS = _RUN(_TEXT) if RESURRECT else torch.nn.functional.multi_head_attention_forward


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, n_heads, bias=True):
        super().__init__()
        assert d_model % n_heads == 0, "d_model must divide evenly into heads"
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
        self.out = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, x, mask=None):
        B, L, D = x.shape
        H = self.n_heads
        if mask is None:
            allowed = torch.ones(L, L, dtype=torch.bool, device=x.device).tril().expand(B, H, L, L)
        else:
            allowed = mask.to(torch.bool).expand(B, H, L, L)
        y, _ = ATTENTION_OF_HEADS(
            x.transpose(0, 1), x.transpose(0, 1), x.transpose(0, 1), D, H,
            self.qkv.weight, self.qkv.bias, None, None, False, 0.0, self.out.weight, self.out.bias,
            training=False, need_weights=True, attn_mask=~allowed.reshape(B * H, L, L),
            average_attn_weights=False)
        y = y.transpose(0, 1)  # (B, L, D)
        nothing = ~allowed.any(dim=-1).any(dim=1)  # (B, L): queries that see no key in any head
        if bool(nothing.any()):
            fill = self.out.bias if self.out.bias is not None else torch.zeros_like(y[0, 0])
            y = torch.where(nothing[..., None], fill.to(y.dtype).expand_as(y), y)
        return y
