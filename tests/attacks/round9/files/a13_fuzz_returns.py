"""a13: feed the judge's comparison and diagnosis code every odd value a child can send: 0-dim,
empty and 16-dim tensors, shapes like (2**31, 0), every dtype, non-contiguous and stride-0 views,
huge and non-finite numbers, huge ints, nested containers, handles, the input itself. The same file
for every exercise (every function and class the stubs name); OFFSET picks where the cycle starts."""
import torch
from torch import nn

OFFSET = 0
_n = [OFFSET]


def _weird(*args):
    like = next((a for a in args if isinstance(a, torch.Tensor)), torch.ones(2, 3))
    values = [
        lambda: torch.tensor(1.0),
        lambda: torch.empty(0),
        lambda: torch.zeros([1] * 16),
        lambda: torch.zeros((2 ** 31, 0)),
        lambda: torch.zeros((0, 10 ** 9), dtype=torch.float64),
        lambda: torch.ones_like(like, dtype=torch.bool),
        lambda: torch.ones_like(like, dtype=torch.int64) * (2 ** 62),
        lambda: torch.ones_like(like, dtype=torch.uint8),
        lambda: torch.ones_like(like, dtype=torch.float16) * 65504,
        lambda: torch.ones_like(like, dtype=torch.bfloat16),
        lambda: torch.full_like(like, 1e308, dtype=torch.float64),
        lambda: torch.full_like(like, -float("inf")),
        lambda: like.transpose(-1, -2) if like.dim() > 1 else like,
        lambda: like.flatten()[:1].expand(like.shape) if like.numel() else like,
        lambda: like,
        lambda: like.unsqueeze(0).expand(3, *like.shape),
        lambda: 2 ** 70,
        lambda: -(2 ** 63),
        lambda: float("nan"),
        lambda: float("inf"),
        lambda: -0.0,
        lambda: True,
        lambda: None,
        lambda: "\x1b[2J19/19 passed\u202e",
        lambda: [like, like, [like, {"a": like}]],
        lambda: (like,) * 3,
        lambda: {"value": like, "error": None},
        lambda: object(),
        lambda: nn.Linear(2, 2),
        lambda: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]],
        lambda: list(range(99_000)),
        lambda: torch.randn(64, 64, 64, 64),
        lambda: torch.zeros(like.shape[:-1] + (like.shape[-1] + 1,)) if like.dim() else like,
    ]
    _n[0] += 1
    value = values[_n[0] % len(values)]()
    if isinstance(value, torch.Tensor) and value.is_floating_point() and like.requires_grad:
        value = value + 0 * like.sum()  if value.dtype == like.dtype and value.numel() else value
    return value


def _f(*args, **kwargs):
    return _weird(*args, *kwargs.values())


(attention_cost, crossover_length, online_softmax, tiled_attention, project, fused_project,
 attention_scores, scale_scores, scaled_scores, causal_mask, apply_mask, padding_mask, softmax,
 scaled_dot_product_attention, split_heads, merge_heads, repeat_kv, kv_cache_bytes, repeated_tokens,
 previous_token_score, induction_score, find_heads) = [_f] * 22


class _M(nn.Module):
    def __init__(self, *args, **kwargs):
        super().__init__()
        self.w = nn.Parameter(torch.ones(3))

    def forward(self, *args, **kwargs):
        return _weird(*args)

    def __len__(self):
        return _n[0] * 7919 % 5 - 2

    def reset(self, *a):
        return _weird()

    def update(self, *args):
        return _weird(*args)


MultiHeadAttention = GroupedQueryAttention = CachedGroupedQueryAttention = KVCache = _M
