import math
from typing import Iterator, Tuple

import torch

NEG_INF = float("-inf")


def attention_cost(L: int, d_model: int) -> dict:
    return {"core_attention": 4 * L ** 2 * d_model,
            "projections": 8 * L * d_model ** 2,
            "feed_forward": 16 * L * d_model ** 2}


def crossover_length(d_model: int) -> int:
    # 4 L^2 d = 24 L d^2  =>  L = 6 d
    return 6 * d_model


def _blocks(n: int, size: int) -> Iterator[Tuple[int, int]]:
    """(start, stop) of each block"""
    for start in range(0, n, size):
        yield start, min(start + size, n)


def _safe(m: torch.Tensor) -> torch.Tensor:
    return torch.where(m == NEG_INF, torch.zeros_like(m), m)


def online_softmax(x, block_size):
    run_max = x.new_full(x.shape[:-1] + (1,), NEG_INF)
    run_sum = x.new_zeros(x.shape[:-1] + (1,))
    for a, b in _blocks(x.shape[-1], block_size):
        chunk = x[..., a:b]
        new_max = torch.maximum(run_max, chunk.max(dim=-1, keepdim=True).values)
        run_sum = run_sum * torch.exp(run_max - _safe(new_max)) + torch.exp(chunk - _safe(new_max)).sum(-1, keepdim=True)
        run_max = new_max
    denom = torch.where(run_sum == 0, torch.ones_like(run_sum), run_sum)
    return torch.exp(x - _safe(run_max)) / denom


def tiled_attention(q, k, v, block_size, causal=False):
    Lq, Lk, scale = q.shape[-2], k.shape[-2], 1.0 / math.sqrt(q.shape[-1])
    run_max = q.new_full(q.shape[:-1] + (1,), NEG_INF)
    run_sum = q.new_zeros(q.shape[:-1] + (1,))
    acc = q.new_zeros(q.shape[:-1] + (v.shape[-1],))
    query_pos = torch.arange(Lk - Lq, Lk, device=q.device).unsqueeze(-1)
    for a, b in _blocks(Lk, block_size):
        s = (q @ k[..., a:b, :].transpose(-1, -2)) * scale
        if causal:
            s = s.masked_fill(torch.arange(a, b, device=q.device) > query_pos, NEG_INF)
        new_max = torch.maximum(run_max, s.max(dim=-1, keepdim=True).values)
        correction = torch.exp(run_max - _safe(new_max))
        p = torch.exp(s - _safe(new_max))
        run_sum = run_sum * correction + p.sum(-1, keepdim=True)
        acc = acc * correction + p @ v[..., a:b, :]
        run_max = new_max
    return acc / torch.where(run_sum == 0, torch.ones_like(run_sum), run_sum)
