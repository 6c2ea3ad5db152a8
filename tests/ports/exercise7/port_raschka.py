"""Port of rasbt/LLMs-from-scratch (ch05/07_gpt_to_llama, GroupedQueryAttention): W_query/W_key/W_value/out_proj,
view + transpose(1, 2), keys.repeat_interleave(self.group_size, dim=1), masked_fill_ with a registered
triu(diagonal=1) "mask" buffer, torch.softmax(attn_scores / keys.shape[-1]**0.5), reshape(b, num_tokens,
d_out), out_proj. Adapted to the stub: names -> q_proj/k_proj/v_proj/o_proj, no RoPE (and no cos/sin buffers),
context_length=1024 keyword, a given mask used instead of the buffer. Breaks written rules: the (persistent)
"mask" buffer is an extra state-dict key, and a fully masked query gives NaN (softmax of all -inf), not zeros.
"""

# --- the stub's own module docstring, kept as written ---
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


def repeat_kv(x, n_rep):
    """Line the KV heads up with the query heads: repeat each KV head n_rep times, next to itself.

    x:     (B, H_kv, L, d), any dtype and device
    n_rep: int >= 1 (1: x's values unchanged)
    Returns (B, H_kv*n_rep, L, d) in x's dtype and device, where output head j is input head
    j // n_rep: with H_kv = 2 and n_rep = 3 the heads are [0, 0, 0, 1, 1, 1] (not
    [0, 1, 0, 1, 0, 1]); with n_rep = 1 that may be x itself. x itself must not change.
    """
    return x.repeat_interleave(n_rep, dim=1)


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
        d_in = d_out = d_model
        num_heads, num_kv_groups, context_length = n_heads, n_kv_heads, 1024
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        assert num_heads % num_kv_groups == 0, "num_heads must be divisible by num_kv_groups"

        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads

        self.k_proj = nn.Linear(d_in, num_kv_groups * self.head_dim, bias=False)
        self.v_proj = nn.Linear(d_in, num_kv_groups * self.head_dim, bias=False)
        self.num_kv_groups = num_kv_groups
        self.group_size = num_heads // num_kv_groups

        self.q_proj = nn.Linear(d_in, d_out, bias=False)
        self.o_proj = nn.Linear(d_out, d_out, bias=False)

        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

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
        b, num_tokens, d_in = x.shape

        queries = self.q_proj(x)  # Shape: (b, num_tokens, d_out)
        keys = self.k_proj(x)  # Shape: (b, num_tokens, num_kv_groups * head_dim)
        values = self.v_proj(x)  # Shape: (b, num_tokens, num_kv_groups * head_dim)

        # Reshape queries, keys, and values
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim)
        keys = keys.view(b, num_tokens, self.num_kv_groups, self.head_dim)
        values = values.view(b, num_tokens, self.num_kv_groups, self.head_dim)

        # Transpose keys, values, and queries
        keys = keys.transpose(1, 2)  # Shape: (b, num_heads, num_tokens, head_dim)
        values = values.transpose(1, 2)  # Shape: (b, num_heads, num_tokens, head_dim)
        queries = queries.transpose(1, 2)  # Shape: (b, num_query_groups, num_tokens, head_dim)

        # Expand keys and values to match the number of heads
        # Shape: (b, num_heads, num_tokens, head_dim)
        keys = keys.repeat_interleave(self.group_size, dim=1)  # Shape: (b, num_heads, num_tokens, head_dim)
        values = values.repeat_interleave(self.group_size, dim=1)  # Shape: (b, num_heads, num_tokens, head_dim)

        # Compute scaled dot-product attention (aka self-attention) with a causal mask
        # Shape: (b, num_heads, num_tokens, num_tokens)
        attn_scores = queries @ keys.transpose(2, 3)  # Dot product for each head

        # Original mask truncated to the number of tokens and converted to boolean
        mask_bool = self.mask.bool()[:num_tokens, :num_tokens] if mask is None else ~mask

        # Use the mask to fill attention scores
        attn_scores.masked_fill_(mask_bool, -torch.inf)

        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        assert keys.shape[-1] == self.head_dim

        # Shape: (b, num_tokens, num_heads, head_dim)
        context_vec = (attn_weights @ values).transpose(1, 2)

        # Combine heads, where self.d_out = self.num_heads * self.head_dim
        context_vec = context_vec.reshape(b, num_tokens, self.d_out)
        context_vec = self.o_proj(context_vec)  # optional projection

        return context_vec
