"""Exercise 9 — What heads learn: previous-token and induction heads.

Advanced indexing with arange instead of diagonal; Tensor.repeat for the repeated tokens;
mean via sum / count; find_heads with comprehensions over nonzero() indices.
"""

from typing import Dict, List, Sequence, Tuple

import torch


def repeated_tokens(batch: int, seq_len: int, vocab_size: int, generator=None) -> torch.Tensor:
    tokens = torch.randint(0, vocab_size, (batch, seq_len), generator=generator)  # int64, CPU
    return tokens.repeat(1, 2)  # [a b c d] -> [a b c d a b c d]


def _validate(pattern: torch.Tensor) -> int:
    if not isinstance(pattern, torch.Tensor) or pattern.ndim != 4:
        raise ValueError("pattern must be a 4-D tensor (B, H, L, L)")
    B, H, Lq, Lk = pattern.shape
    if Lq != Lk:
        raise ValueError(f"pattern's last two dims differ: {Lq} != {Lk}")
    return Lq


def _stripe_mean(pattern: torch.Tensor, queries: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
    cells = pattern[:, :, queries, keys]  # (B, H, n): pattern[b, h, queries[n], keys[n]]
    count = cells.shape[0] * cells.shape[2]
    return cells.sum(dim=(0, 2)) / count


def previous_token_score(pattern: torch.Tensor) -> torch.Tensor:
    L = _validate(pattern)
    if L < 2:
        raise ValueError("L must be at least 2")
    i = torch.arange(1, L, device=pattern.device)
    return _stripe_mean(pattern, i, i - 1)


def induction_score(pattern: torch.Tensor, seq_len: int) -> torch.Tensor:
    L = _validate(pattern)
    if L != 2 * seq_len or seq_len < 1:
        raise ValueError(f"expected L == 2 * seq_len, got L={L}, seq_len={seq_len}")
    i = torch.arange(seq_len, 2 * seq_len, device=pattern.device)
    return _stripe_mean(pattern, i, i - seq_len + 1)


def find_heads(patterns: Sequence[torch.Tensor], threshold: float = 0.4) -> Dict[str, List[Tuple[int, int]]]:
    result: Dict[str, List[Tuple[int, int]]] = {"previous_token": [], "induction": []}
    for layer, pattern in enumerate(patterns):
        L = _validate(pattern)
        if L % 2 == 1:
            raise ValueError("odd L: not a sequence repeated twice")
        scores = {
            "previous_token": previous_token_score(pattern),
            "induction": induction_score(pattern, L // 2),
        }
        for name, s in scores.items():
            # compare as Python floats (the exact value of each score, whatever its dtype)
            result[name].extend((layer, int(h)) for h, val in enumerate(s.tolist()) if val > threshold)
    return result
