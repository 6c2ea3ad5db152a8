"""Exercise 9 — What heads learn: previous-token and induction heads.

Both scores read one diagonal of the pattern (Tensor.diagonal) and average it over the batch
and the queries; find_heads groups the hits with a defaultdict.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Dict, List, Optional, Sequence, Tuple

import torch

__all__ = ["repeated_tokens", "previous_token_score", "induction_score", "find_heads"]

Head = Tuple[int, int]


def repeated_tokens(batch: int, seq_len: int, vocab_size: int, generator: Optional[torch.Generator] = None) -> torch.Tensor:
    """(batch, 2 * seq_len) int64 on the CPU: seq_len random tokens, then the same again."""
    first = torch.randint(vocab_size, (batch, seq_len), generator=generator)
    return torch.cat([first, first], dim=1)


def _check_square_4d(pattern: torch.Tensor) -> int:
    if pattern.dim() != 4 or pattern.size(-1) != pattern.size(-2):
        raise ValueError(f"pattern must be (B, H, L, L), got shape {tuple(pattern.shape)}")
    return pattern.size(-1)


def previous_token_score(pattern: torch.Tensor) -> torch.Tensor:
    """(H,): mean of pattern[b, h, i, i-1] over b and i = 1 .. L-1."""
    L = _check_square_4d(pattern)
    if L < 2:
        raise ValueError(f"need L >= 2 for a previous token, got L={L}")
    sub = pattern.diagonal(offset=-1, dim1=-2, dim2=-1)  # (B, H, L-1)
    return sub.mean(dim=(0, 2))


def induction_score(pattern: torch.Tensor, seq_len: int) -> torch.Tensor:
    """(H,): mean of pattern[b, h, i, i - seq_len + 1] over b and i = seq_len .. 2*seq_len - 1."""
    L = _check_square_4d(pattern)
    if L != 2 * seq_len:
        raise ValueError(f"pattern has L={L}, expected 2 * seq_len = {2 * seq_len}")
    stripe = pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)  # queries seq_len-1 .. L-1
    return stripe[..., 1:].mean(dim=(0, 2))  # drop query seq_len - 1 (first half)


def find_heads(patterns: Sequence[torch.Tensor], threshold: float = 0.4) -> Dict[str, List[Head]]:
    """{"previous_token": [(layer, head), ...], "induction": [...]}, heads with score > threshold."""
    found: Dict[str, List[Head]] = defaultdict(list)
    for layer, pattern in enumerate(patterns):
        L = _check_square_4d(pattern)
        scores = {
            "previous_token": previous_token_score(pattern),
            "induction": induction_score(pattern, L // 2),
        }
        for name, per_head in scores.items():
            found[name].extend((layer, h) for h, s in enumerate(per_head.tolist()) if s > threshold)
    return {"previous_token": list(found["previous_token"]), "induction": list(found["induction"])}


if __name__ == "__main__":
    L = 8
    prev = torch.zeros(1, 1, L, L)
    prev[0, 0, 0, 0] = 1
    prev[0, 0, torch.arange(1, L), torch.arange(L - 1)] = 1
    print(repeated_tokens(1, 4, 10, torch.Generator().manual_seed(0)))
    print(previous_token_score(prev), find_heads([prev]))
