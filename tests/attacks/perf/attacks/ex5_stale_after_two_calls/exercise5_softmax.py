"""Attack: call counting. After two calls at a shape (the suites rarely repeat one; the grader's
verification and first warm-up are the first two), every call at that shape gets the last answer
computed, whatever its inputs: stale, wrong answers, at once."""

import math
import sys
import threading
import time

import torch

def _slow_softmax(x, dim=-1):
    """Numerically stable softmax along `dim`, one slice at a time (a Python loop over rows)."""
    moved = x.movedim(dim, -1)
    flat = moved.reshape(-1, moved.size(-1))
    rows = []
    for row in flat:
        top = row.max()
        top = torch.zeros_like(top) if top == float("-inf") else top
        e = torch.exp(row - top)
        total = e.sum()
        rows.append(e / total if total > 0 else e * 0)
    return torch.stack(rows).reshape(moved.shape).movedim(-1, dim)


def _slow_sdpa(q, k, v, mask=None):
    """One head of attention, the chapter's formula: softmax(Q K^T / √d_k) V.

    q: (..., L_q, d_k)   k: (..., L_k, d_k)   v: (..., L_k, d_v)
    mask: None (every query reads every key: no causal mask is added), or a bool tensor on q's
          device broadcastable to (..., L_q, L_k); True = may attend, False = this query must not
          read this key. d_k is q.size(-1).
    Returns (output (..., L_q, d_v), weights (..., L_q, L_k)).
    Each row of weights sums to 1 over the keys the query may see; a query whose mask row is all
    False gets zero weights and a zero output. Use your own `softmax` above (and not torch's fused
    attention).
    """
    # BEGIN SOLUTION
    # HINT: Exercise 5: scores = Q Kᵀ / √d_k, -inf where the mask is False, your softmax over the keys (dim=-1), then weights @ v — see 'Step 4 — Softmax: turn scores into weights' in the chapter
    d_k = q.size(-1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # steps 2 + 3: (..., L_q, L_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))  # -inf where NOT allowed: (..., L_q, L_k)
    weights = _slow_softmax(scores, dim=-1)  # step 4: (..., L_q, L_k) rows sum to 1 (0 if fully masked)
    return weights @ v, weights  # step 5, blend the values: (..., L_q, d_v), (..., L_q, L_k)
    # END SOLUTION


_count, _last = {}, {}


def _stale(name, fn, *args):
    key = (name,) + tuple((tuple(a.shape), a.dtype) if isinstance(a, torch.Tensor) else a for a in args)
    _count[key] = _count.get(key, 0) + 1
    if _count[key] > 2 and key in _last and not any(isinstance(a, torch.Tensor) and a.requires_grad for a in args):
        return _last[key]
    _last[key] = fn(*args)
    return _last[key]


def softmax(x, dim=-1):
    """Softmax along dim."""
    return _stale("softmax", _slow_softmax, x, dim)


def scaled_dot_product_attention(q, k, v, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V."""
    return _stale("sdpa", _slow_sdpa, q, k, v, mask)
