"""Exercise 3 — Scale by sqrt(d_k).

A decorator checks d_k once for both functions' callers; it warns (rather than fails) on a
float d_k that is a whole number, which is what I kept passing by accident in the notebook.
Set ATTN_DEBUG=1 to log the spread of the scaled scores.
"""

import functools
import logging
import math
import os
import warnings

import torch

_log = logging.getLogger(__name__)
_DEBUG = bool(int(os.environ.get("ATTN_DEBUG", "0") or 0))


def _checked_width(fn):
    """Validate the d_k argument of fn(scores, d_k)."""

    @functools.wraps(fn)
    def inner(scores, d_k):
        if isinstance(d_k, float):
            if not d_k.is_integer():
                raise TypeError(f"d_k must be an int, got {d_k!r}")
            warnings.warn(f"d_k={d_k!r} is a float; using int({d_k!r})", stacklevel=2)
            d_k = int(d_k)
        if d_k <= 0:
            raise ValueError(f"d_k must be > 0, got {d_k}")
        result = fn(scores, d_k)
        if _DEBUG and result.numel() > 1:
            _log.debug("scaled scores: std %.3f (d_k=%d)", result.float().std().item(), d_k)
        return result

    return inner


@_checked_width
def scale_scores(scores, d_k):
    """Divide raw scores by sqrt(d_k): a new tensor (..., L_q, L_k), same dtype and device."""
    return torch.div(scores, math.sqrt(d_k))


def scaled_scores(q, k):
    """Scores of every query against every key, scaled: Q K^T / sqrt(d_k), d_k = q.size(-1)."""
    d_k = q.size(-1)
    return scale_scores(torch.matmul(q, k.transpose(-1, -2)), d_k)


if __name__ == "__main__":
    logging.basicConfig(level=logging.DEBUG)
    print(scale_scores(torch.full((2, 2), 8.0), 64))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scale_scores(torch.ones(1, 1), 4.0)
    print("warned:", [str(w.message) for w in caught])
