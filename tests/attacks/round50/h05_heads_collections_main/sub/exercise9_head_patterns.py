"""Exercise 9 — What heads learn: previous-token and induction heads.

Chapter sections: "What heads learn", "Previous-token heads and positional heads", "Induction
heads", "Attention patterns as pictures".

A head's pattern is its attention weights, (B, H, L, L): row i (query i) says how much token i
reads from each key j <= i. Drawn as a picture, some heads have a job you can see at a glance:

- a previous-token head reads the token just before: weight on key i-1 from query i, a bright
  sub-diagonal;
- an induction head, on a sequence that repeats ("... Mr Dursley ... Mr"), reads the token AFTER
  the earlier occurrence of the current token, to copy it forward. On seq_len random tokens
  repeated twice (L = 2 * seq_len), query i of the second half (i >= seq_len) holds the same
  token as position i - seq_len, so it reads key i - seq_len + 1: a stripe seq_len - 1 below
  the diagonal, in the second half.

Each score below is the mean weight a head puts on those cells, one number per head: near 1 for a
head that does that job, small otherwise. Positions count from 0. Scores come back in the
pattern's dtype and on its device, and inputs are left unchanged. Off limits, as in every
exercise: the answer key (lumen_ref, solutions/) and the grader's own code.
"""

import torch


import itertools
from collections import defaultdict
from typing import Dict, List, Sequence, Tuple

Head = Tuple[int, int]


def _check_square(pattern: torch.Tensor) -> Tuple[int, int, int, int]:
    match tuple(pattern.shape):
        case (b, h, lq, lk) if lq == lk:
            return b, h, lq, lk
        case other:
            raise ValueError(f"pattern must be (B, H, L, L), got {other}")


def repeated_tokens(batch, seq_len, vocab_size, generator=None):
    """Random tokens, then the same tokens again."""
    first = torch.randint(0, vocab_size, (batch, seq_len), generator=generator, dtype=torch.long)
    return first.repeat(1, 2)


def previous_token_score(pattern):
    """Mean weight on the previous token, per head."""
    _, _, length, _ = _check_square(pattern)
    if length < 2:
        raise ValueError("need L >= 2")
    rows = torch.arange(1, length)
    return pattern[:, :, rows, rows - 1].mean(dim=(0, 2))


def induction_score(pattern, seq_len):
    """Mean weight on the token after the earlier copy, per head."""
    _, _, length, _ = _check_square(pattern)
    if length != 2 * seq_len:
        raise ValueError(f"L = {length} is not 2 * {seq_len}")
    queries = torch.arange(seq_len, 2 * seq_len)
    return pattern[:, :, queries, queries - seq_len + 1].mean(dim=(0, 2))


def find_heads(patterns: Sequence[torch.Tensor], threshold: float = 0.4) -> Dict[str, List[Head]]:
    """The previous-token and induction heads."""
    found: Dict[str, List[Head]] = defaultdict(list)
    scorers = {"previous_token": lambda p: previous_token_score(p),
               "induction": lambda p: induction_score(p, p.size(-1) // 2)}
    for (layer, pattern), (kind, scorer) in itertools.product(enumerate(patterns), scorers.items()):
        if pattern.size(-1) % 2:
            raise ValueError("odd L")
        score = scorer(pattern)
        found[kind].extend((layer, head) for head, value in enumerate(score.tolist()) if value > threshold)
    return {kind: sorted(found[kind]) for kind in ("previous_token", "induction")}


if __name__ == "__main__":
    import sys
    print(find_heads([torch.rand(1, 2, 4, 4).softmax(-1)]), file=sys.stderr)
