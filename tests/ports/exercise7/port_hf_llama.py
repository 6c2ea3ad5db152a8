"""Port of Hugging Face transformers (models/llama/modeling_llama.py): repeat_kv (expand a new axis, reshape),
eager_attention_forward (matmul * head_dim**-0.5, + additive mask, softmax in float32 then .to(query.dtype), dropout, matmul,
transpose), LlamaAttention.forward (view(hidden_shape).transpose(1, 2), reshape(*input_shape, -1), o_proj) and the additive
finfo.min causal mask of _prepare_4d_causal_attention_mask_with_cache_position. Adapted to the stub: no RoPE (the kit has
none), a given bool mask turned additive as HF does for 4-D masks (1 - mask, masked_fill finfo.min). Breaks the written rule
"A query whose mask row is all False ... output is zeros": HF's finite finfo.min spreads its weight evenly.
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

import torch.nn.functional as F


def _additive_causal_mask(sequence_length, target_length, dtype, device, cache_position):
    """transformers' _prepare_4d_causal_attention_mask_with_cache_position, one batch."""
    min_dtype = torch.finfo(dtype).min
    causal_mask = torch.full((sequence_length, target_length), fill_value=min_dtype, dtype=dtype, device=device)
    if sequence_length != 1:
        causal_mask = torch.triu(causal_mask, diagonal=1)
    causal_mask *= torch.arange(target_length, device=device) > cache_position.reshape(-1, 1)
    return causal_mask[None, None, :, :]


def eager_attention_forward(module, query, key, value, attention_mask, scaling, dropout=0.0, **kwargs):
    key_states = repeat_kv(key, module.num_key_value_groups)
    value_states = repeat_kv(value, module.num_key_value_groups)

    attn_weights = torch.matmul(query, key_states.transpose(2, 3)) * scaling
    if attention_mask is not None:
        causal_mask = attention_mask[:, :, :, : key_states.shape[-2]]
        attn_weights = attn_weights + causal_mask

    attn_weights = F.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query.dtype)
    attn_weights = F.dropout(attn_weights, p=dropout, training=module.training)
    attn_output = torch.matmul(attn_weights, value_states)
    attn_output = attn_output.transpose(1, 2).contiguous()

    return attn_output, attn_weights


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
    """
    This is the equivalent of torch.repeat_interleave(x, dim=1, repeats=n_rep). The hidden states go from (batch,
    num_key_value_heads, seqlen, head_dim) to (batch, num_attention_heads, seqlen, head_dim)
    """
    hidden_states = x
    batch, num_key_value_heads, slen, head_dim = hidden_states.shape
    if n_rep == 1:
        return hidden_states
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, num_key_value_heads, n_rep, slen, head_dim)
    return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)


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
        hidden_size = d_model
        self.num_heads = n_heads
        self.num_key_value_heads = n_kv_heads
        self.head_dim = hidden_size // n_heads
        self.num_key_value_groups = n_heads // n_kv_heads
        self.scaling = self.head_dim**-0.5
        self.attention_dropout = 0.0
        self.is_causal = True

        self.q_proj = nn.Linear(hidden_size, n_heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(hidden_size, n_kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(hidden_size, n_kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(n_heads * self.head_dim, hidden_size, bias=False)

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
        hidden_states = x
        input_shape = hidden_states.shape[:-1]
        hidden_shape = (*input_shape, -1, self.head_dim)

        query_states = self.q_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        key_states = self.k_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        value_states = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)

        dtype, device = hidden_states.dtype, hidden_states.device
        if mask is None:
            L = input_shape[-1]
            attention_mask = _additive_causal_mask(L, L, dtype, device, torch.arange(L, device=device))
        else:
            # a 4-D (or broadcastable) mask given by the caller: inverted and filled with finfo.min
            inverted_mask = 1.0 - mask.to(dtype)
            attention_mask = inverted_mask.masked_fill(inverted_mask.to(torch.bool), torch.finfo(dtype).min)
            while attention_mask.dim() < 4:
                attention_mask = attention_mask[None]

        attn_output, attn_weights = eager_attention_forward(
            self, query_states, key_states, value_states, attention_mask,
            dropout=0.0 if not self.training else self.attention_dropout, scaling=self.scaling,
        )

        attn_output = attn_output.reshape(*input_shape, -1).contiguous()
        attn_output = self.o_proj(attn_output)
        return attn_output
