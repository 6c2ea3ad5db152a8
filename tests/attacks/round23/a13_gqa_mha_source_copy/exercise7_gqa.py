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
    # BEGIN SOLUTION
    # HINT: Exercise 7: Tensor.repeat_interleave along the heads dim (dim=1); plain repeat gives the wrong order — see 'Grouped-query and multi-query attention' in the chapter
    return x.repeat_interleave(n_rep, dim=1)  # (B, H_kv*n_rep, L, d)
    # END SOLUTION



# --- the attack: torch's nn.MultiheadAttention maths (F.multi_head_attention_forward), copied from torch's
# source file under another name, run with the K/V weights repeated per group (GQA as MHA)
import ast as _ast
import torch.nn.functional as _F

def _copy_torch_mha():
    text = open(_F.__file__).read()
    node = next(n for n in _ast.parse(text).body
                if isinstance(n, _ast.FunctionDef) and n.name == "multi_head_attention_forward")
    code = _ast.get_source_segment(text, node).replace("multi_head_attention_forward", "_torch_mha_copy")
    scope = dict(vars(_F))
    exec(compile(code, "<copied>", "exec"), scope)
    return scope["_torch_mha_copy"]

_torch_mha_copy = _copy_torch_mha()
_CALL = _torch_mha_copy


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
        B, L, D = x.shape
        H, rep, dh = self.n_heads, self.n_heads // self.n_kv_heads, self.d_head
        if mask is None:
            mask = causal_mask(L, x.device)
        allowed = mask.expand(B, H, L, L)
        dead = ~allowed.any(-1, keepdim=True)
        blocked = (~allowed) & ~dead
        wk = self.k_proj.weight.view(self.n_kv_heads, dh, D).repeat_interleave(rep, 0).reshape(H * dh, D)
        wv = self.v_proj.weight.view(self.n_kv_heads, dh, D).repeat_interleave(rep, 0).reshape(H * dh, D)
        t = x.transpose(0, 1)
        y, _ = _CALL(
            t, t, t, H * dh, H, None, None, None, None, False, 0.0,
            self.o_proj.weight, None, training=False, need_weights=True,
            attn_mask=blocked.reshape(B * H, L, L), use_separate_proj_weight=True,
            q_proj_weight=self.q_proj.weight, k_proj_weight=wk, v_proj_weight=wv, average_attn_weights=False)
        y = y.transpose(0, 1)
        every_head_dead = dead.all(1).squeeze(-1)
        return torch.where(every_head_dead[..., None], torch.zeros_like(y), y)
