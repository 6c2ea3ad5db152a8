"""Exercise 9 — What heads learn.

Scores with advanced indexing (an index tensor of query rows and one of key columns), a
NamedTuple for a head's two scores, and an Enum for the two kinds of head.
"""

import enum
import itertools
from typing import NamedTuple

import torch


class HeadKind(str, enum.Enum):
    PREVIOUS_TOKEN = "previous_token"
    INDUCTION = "induction"


class HeadScores(NamedTuple):
    layer: int
    head: int
    previous_token: float
    induction: float


def repeated_tokens(batch, seq_len, vocab_size, generator=None):
    """Random tokens (batch, seq_len), then the same tokens again: (batch, 2 * seq_len) long."""
    tokens = torch.randint(vocab_size, (batch, seq_len), generator=generator, dtype=torch.long)
    return tokens.repeat(1, 2)


def _validate(pattern):
    if not (pattern.ndim == 4 and pattern.shape[-1] == pattern.shape[-2]):
        raise ValueError(f"expected a (B, H, L, L) pattern, got {tuple(pattern.shape)}")


def _mean_cells(pattern, rows, cols):
    """Mean over the batch and the given (row, col) cells, one value per head."""
    return pattern[:, :, rows, cols].mean(dim=(0, 2))


def previous_token_score(pattern):
    """(H,): mean weight from query i on key i - 1, i = 1 .. L-1."""
    _validate(pattern)
    if (L := pattern.shape[-1]) < 2:
        raise ValueError(f"L must be at least 2, got {L}")
    rows = torch.arange(1, L, device=pattern.device)
    return _mean_cells(pattern, rows, rows - 1)


def induction_score(pattern, seq_len):
    """(H,): mean weight from query i on key i - seq_len + 1 over the second half."""
    _validate(pattern)
    if (L := pattern.shape[-1]) != 2 * seq_len:
        raise ValueError(f"L={L} is not 2 * seq_len (seq_len={seq_len})")
    rows = torch.arange(seq_len, L, device=pattern.device)
    return _mean_cells(pattern, rows, rows - seq_len + 1)


def score_heads(patterns):
    """One HeadScores per (layer, head), layer 0 first."""
    per_layer = [
        (previous_token_score(p), induction_score(p, p.shape[-1] // 2)) for p in patterns
    ]
    return [
        HeadScores(layer, head, float(prev[head]), float(ind[head]))
        for layer, (prev, ind) in enumerate(per_layer)
        for head in range(prev.numel())
    ]


def find_heads(patterns, threshold=0.4):
    """{"previous_token": [(layer, head), ...], "induction": [(layer, head), ...]}."""
    scores = score_heads(patterns)
    return {
        kind.value: [(s.layer, s.head) for s in scores if getattr(s, kind.value) > threshold]
        for kind in HeadKind
    }


if __name__ == "__main__":
    seq_len = 5
    L = 2 * seq_len
    ind = torch.zeros(2, 3, L, L)
    for i, h in itertools.product(range(L), range(3)):
        j = i - seq_len + 1 if i >= seq_len else 0
        ind[:, h, i, j] = 1.0
    print(find_heads([ind, ind[:, :1]]))
    print(score_heads([ind])[0])
