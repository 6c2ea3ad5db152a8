"""a14: points for code that computes nothing: every function returns a zero tensor shaped like
its first tensor argument (on its device, in its dtype), every module returns zeros like its
input. No exercise is solved; the stubs score 0. The same file for every exercise."""
import torch
from torch import nn


def _zeros(*args, **kwargs):
    for a in (*args, *kwargs.values()):
        if isinstance(a, torch.Tensor):
            return torch.zeros_like(a)
    return torch.zeros(1)


(attention_cost, crossover_length, online_softmax, tiled_attention, project, fused_project,
 attention_scores, scale_scores, scaled_scores, causal_mask, apply_mask, padding_mask, softmax,
 scaled_dot_product_attention, split_heads, merge_heads, repeat_kv, kv_cache_bytes, repeated_tokens,
 previous_token_score, induction_score, find_heads) = [_zeros] * 22


class _M(nn.Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, x, *args, **kwargs):
        return torch.zeros_like(x)

    def __len__(self):
        return 0

    def reset(self):
        pass

    def update(self, k, v):
        return k, v


MultiHeadAttention = GroupedQueryAttention = CachedGroupedQueryAttention = KVCache = _M
