"""Lumen's reference attention: the chapter's code, step by step, plus the KV cache, what heads learn
and attention without the (L, L) matrix.

The grader trusts these functions as the answer key, and `tests/reference/test_reference.py` proves them
against an independent float64 NumPy oracle and against torch's own built-ins.
"""

from lumen_ref.attention import (
    GroupedQueryAttention,
    MultiHeadAttention,
    causal_mask,
    scaled_dot_product_attention,
)
from lumen_ref.heads import (
    AttentionOnlyTransformer,
    find_heads,
    induction_model,
    induction_score,
    previous_token_score,
    repeated_tokens,
)
from lumen_ref.kv_cache import CachedGroupedQueryAttention, KVCache, kv_cache_bytes
from lumen_ref.steps import (
    apply_mask,
    attention_scores,
    fused_project,
    merge_heads,
    padding_mask,
    project,
    repeat_kv,
    scale_scores,
    scaled_scores,
    softmax,
    split_heads,
)
from lumen_ref.tiled import attention_cost, crossover_length, online_softmax, tiled_attention

__all__ = [
    "AttentionOnlyTransformer",
    "CachedGroupedQueryAttention",
    "GroupedQueryAttention",
    "KVCache",
    "MultiHeadAttention",
    "apply_mask",
    "attention_cost",
    "attention_scores",
    "causal_mask",
    "crossover_length",
    "find_heads",
    "fused_project",
    "induction_model",
    "induction_score",
    "kv_cache_bytes",
    "merge_heads",
    "online_softmax",
    "padding_mask",
    "previous_token_score",
    "project",
    "repeat_kv",
    "repeated_tokens",
    "scale_scores",
    "scaled_dot_product_attention",
    "scaled_scores",
    "softmax",
    "split_heads",
    "tiled_attention",
]
