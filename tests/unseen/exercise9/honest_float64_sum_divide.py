# lumen-unseen: exercise=9 kind=honest
# method: accumulates in float64 with sum() / count and casts back to the pattern's dtype; find_heads by sorting the pairs it collects
# note: written from issue 14, then brought to the released stub's contract: the shape checks (ValueError) the stub asks of previous_token_score and induction_score
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


def repeated_tokens(batch, seq_len, vocab_size, generator=None):
    """Random tokens, then the same tokens again: a LongTensor (batch, 2*seq_len)."""
    half = torch.randint(vocab_size, (batch, seq_len), generator=generator, dtype=torch.int64)
    return torch.hstack((half, half.clone()))


def _shape(pattern):
    try:
        B, H, L, L2 = pattern.shape
    except ValueError:
        raise ValueError(f"pattern must have 4 dims (B, H, L, L), got {pattern.dim()}") from None
    if L != L2:
        raise ValueError(f"pattern must be square in its last two dims, got {L} x {L2}")
    return B, H, L, L2


def previous_token_score(pattern):
    """(H,): mean weight from query i on key i-1 (i >= 1), over batch and queries."""
    B, H, L, L2 = _shape(pattern)
    if L < 2:
        raise ValueError("L < 2: no previous tokens")
    sub = torch.diagonal(pattern.double(), -1, 2, 3)  # (B, H, L-1)
    return (sub.sum(dim=(0, 2)) / (B * (L - 1))).to(pattern.dtype)


def induction_score(pattern, seq_len):
    """(H,): mean weight from each query i >= seq_len on key i - seq_len + 1."""
    B, _, L, _ = _shape(pattern)
    if L != 2 * seq_len:
        raise ValueError(f"L = {L}, expected 2 * seq_len = {2 * seq_len}")
    second = pattern.double()[:, :, seq_len:2 * seq_len, 1:seq_len + 1]  # query seq_len + j, key 1 + j
    return (torch.diagonal(second, 0, 2, 3).sum(dim=(0, 2)) / (B * seq_len)).to(pattern.dtype)


def find_heads(patterns, threshold=0.4):
    """{"previous_token": [(layer, head), ...], "induction": [(layer, head), ...]} above threshold."""
    prev, ind = set(), set()
    for layer, pattern in enumerate(patterns):
        p = previous_token_score(pattern)
        s = induction_score(pattern, pattern.shape[-1] // 2)
        prev |= {(layer, h) for h in range(p.shape[0]) if p[h].item() > threshold}
        ind |= {(layer, h) for h in range(s.shape[0]) if s[h].item() > threshold}
    return {"previous_token": sorted(prev), "induction": sorted(ind)}
