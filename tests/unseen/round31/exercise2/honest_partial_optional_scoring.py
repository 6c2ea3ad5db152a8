"""Exercise 2 — Score every key: S = Q K^T.

A `functools.partial` of torch.transpose swaps the last two dims (negative dims, so any batch
and head dims in front keep working).
"""

from functools import partial
from typing import Optional

import torch

__all__ = ["attention_scores"]
__version__ = "0.2"

# k (..., L_k, d_k) -> (..., d_k, L_k)
swap_last_two = partial(torch.transpose, dim0=-2, dim1=-1)


def attention_scores(q: torch.Tensor, k: torch.Tensor, out_dtype: Optional[torch.dtype] = None) -> torch.Tensor:
    """Raw attention scores S = Q K^T (unscaled).

    q: (..., L_q, d_k); k: (..., L_k, d_k). Returns (..., L_q, L_k), S[..., i, j] = q_i · k_j.
    out_dtype: only for my own experiments; None keeps the inputs' dtype.
    """
    assert q.size(-1) == k.size(-1), (
        f"queries have width {q.size(-1)} but keys have width {k.size(-1)}: cannot dot them"
    )
    scores = q @ swap_last_two(k)
    return scores if out_dtype is None else scores.to(out_dtype)


if __name__ == "__main__":
    q = torch.tensor([[1.0, 2.0, 0.0]])
    k = torch.tensor([[0.0, 1.0, 1.0], [1.0, 2.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 1.0]])
    print(attention_scores(q, k))  # "cat" (row 1) scores highest
