"""Attack: memoise by where the input lives (data_ptr, shape, dtype), not by what it holds. The
grader frees and re-allocates its input copies every round, so the allocator hands back the same
addresses and the cache answers later rounds with earlier rounds' (wrong) scores."""

import torch

_cache = {}


def _slow_scores(q, k):
    rows = [(q[..., i : i + 1, :] * k).sum(-1) for i in range(q.size(-2))]  # one query at a time
    return torch.stack(rows, dim=-2)


def attention_scores(q, k):
    """S = Q K^T."""
    if q.requires_grad or k.requires_grad:
        return _slow_scores(q, k)
    key = (q.data_ptr(), k.data_ptr(), tuple(q.shape), tuple(k.shape), q.dtype)
    if key not in _cache:
        _cache[key] = _slow_scores(q, k)
    return _cache[key]
