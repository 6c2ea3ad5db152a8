"""Exercise 2 — Score every key.

S = Q K^T with torch.matmul and the `.mT` property (transpose of the last two dims). There is a
little timing context manager and an lru_cache'd helper that I used while exploring in the
notebook; neither is needed by attention_scores itself.
"""

import contextlib
import functools
import logging
import time

import torch

logger = logging.getLogger(__name__)


@functools.lru_cache(maxsize=None)
def score_flops(L_q: int, L_k: int, d_k: int) -> int:
    """FLOPs of Q K^T for one head: L_q * L_k dot products of length d_k, 2 FLOPs per mul-add."""
    return 2 * L_q * L_k * d_k


@contextlib.contextmanager
def timed(label: str):
    """Log how long the block took."""
    start = time.perf_counter()
    try:
        yield
    finally:
        logger.info("%s took %.3f ms", label, (time.perf_counter() - start) * 1e3)


def attention_scores(q, k):
    """Raw attention scores S = Q K^T (not scaled yet: that is exercise 3).

    q: (..., L_q, d_k); k: (..., L_k, d_k). Returns S (..., L_q, L_k).
    """
    if (dq := q.shape[-1]) != (dk := k.shape[-1]):
        raise ValueError(f"q has d_k={dq} but k has d_k={dk}")
    return torch.matmul(q, k.mT)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    q = torch.randn(2, 8, 256, 64)
    k = torch.randn(2, 8, 300, 64)
    with timed("scores"):
        s = attention_scores(q, k)
    print(s.shape, f"{score_flops(256, 300, 64) * 16 / 1e6:.1f} MFLOP")
