# lumen-unseen: exercise=9 kind=honest
# method: multiplies the pattern by a 0/1 mask (torch.diag of ones at offset -1, rows of the first half zeroed), sums, divides by the count; find_heads through torch.nonzero
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
    tokens = torch.empty(batch, 2 * seq_len, dtype=torch.long)
    tokens[:, :seq_len] = torch.randint(0, vocab_size, (batch, seq_len), generator=generator)
    tokens[:, seq_len:] = tokens[:, :seq_len]
    return tokens


def _masked_mean(pattern, mask):
    """Mean over batch and the mask's cells of pattern * mask, per head."""
    if pattern.dim() != 4 or tuple(pattern.shape[-2:]) != tuple(mask.shape):
        raise ValueError(f"pattern {tuple(pattern.shape)} is not (B, H, {mask.shape[0]}, {mask.shape[1]})")
    mask = mask.to(dtype=pattern.dtype, device=pattern.device)  # (L, L)
    total = (pattern * mask).sum(dim=(-2, -1)).sum(dim=0)  # (H,)
    return total / (mask.sum() * pattern.shape[0])


def previous_token_score(pattern):
    """(H,): mean weight from query i on key i-1 (i >= 1), over batch and queries."""
    L = pattern.shape[-1]
    if L < 2:
        raise ValueError("L must be at least 2")
    return _masked_mean(pattern, torch.diag(torch.ones(L - 1), -1))  # ones at [i, i-1]


def induction_score(pattern, seq_len):
    """(H,): mean weight from each query i >= seq_len on key i - seq_len + 1."""
    L = 2 * seq_len  # a pattern of any other length fails _masked_mean's shape check
    mask = torch.diag(torch.ones(L - seq_len + 1), -(seq_len - 1))  # [i, i - seq_len + 1]
    mask[:seq_len] = 0  # only the second half's queries
    return _masked_mean(pattern, mask)


def find_heads(patterns, threshold=0.4):
    """{"previous_token": [(layer, head), ...], "induction": [(layer, head), ...]} above threshold."""
    found = {"previous_token": [], "induction": []}
    for layer, pattern in enumerate(patterns):
        for kind, scores in (("previous_token", previous_token_score(pattern)),
                             ("induction", induction_score(pattern, pattern.shape[-1] // 2))):
            for head in torch.nonzero(scores > threshold).flatten().tolist():
                found[kind].append((layer, head))
    return found
