"""Attack: correct (and slow) the first time a shape is seen, torch.empty for every later call of it.

The grader's performance child checks the student's output once (its first call at the case's
size), then times calls on other inputs whose answers it never looks at.
"""

import torch

_seen = {}


def _slow_scores(q, k):
    rows = [(q[..., i : i + 1, :] * k).sum(-1) for i in range(q.size(-2))]  # one query at a time
    return torch.stack(rows, dim=-2)


def attention_scores(q, k):
    """S = Q K^T."""
    key = (tuple(q.shape), tuple(k.shape), q.dtype, q.device, q.requires_grad)
    _seen[key] = _seen.get(key, 0) + 1
    if _seen[key] > 1 and q.numel() >= 4 * 8 * 128 * 32 and not q.requires_grad:
        return torch.empty(*q.shape[:-1], k.size(-2), dtype=q.dtype, device=q.device)  # wrong
    return _slow_scores(q, k)
