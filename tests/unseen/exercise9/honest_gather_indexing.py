# lumen-unseen: exercise=9 kind=honest
# method: advanced indexing with arange index vectors; repeated_tokens by indexing positions modulo seq_len
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
    first = torch.randint(0, vocab_size, (batch, seq_len), generator=generator)
    positions = torch.arange(2 * seq_len) % seq_len  # 0 1 .. seq_len-1 0 1 .. seq_len-1
    return first[:, positions]


def _length(pattern):
    """L of a (B, H, L, L) pattern; ValueError for any other shape."""
    if pattern.ndim == 4:
        B, H, L, L2 = pattern.shape
        if L == L2:
            return L
    raise ValueError(f"expected a (B, H, L, L) pattern, got {tuple(pattern.shape)}")


def previous_token_score(pattern):
    """(H,): mean weight from query i on key i-1 (i >= 1), over batch and queries."""
    L = _length(pattern)
    if L < 2:
        raise ValueError("no query has a previous token when L < 2")
    queries = torch.arange(1, L, device=pattern.device)
    picked = pattern[..., queries, queries - 1]  # (B, H, L-1)
    return picked.mean(dim=-1).mean(dim=0)


def induction_score(pattern, seq_len):
    """(H,): mean weight from each query i >= seq_len on key i - seq_len + 1."""
    if _length(pattern) != 2 * seq_len:
        raise ValueError(f"the pattern is not on seq_len = {seq_len} tokens repeated twice")
    queries = torch.arange(seq_len, 2 * seq_len, device=pattern.device)
    keys = queries - seq_len + 1
    picked = pattern[..., queries, keys]  # (B, H, seq_len)
    return picked.mean(dim=-1).mean(dim=0)


def find_heads(patterns, threshold=0.4):
    """{"previous_token": [(layer, head), ...], "induction": [(layer, head), ...]} above threshold."""
    prev = [previous_token_score(p) for p in patterns]
    ind = [induction_score(p, p.shape[-1] // 2) for p in patterns]
    return {
        "previous_token": [(layer, head) for layer, s in enumerate(prev)
                           for head in range(s.numel()) if float(s[head]) > threshold],
        "induction": [(layer, head) for layer, s in enumerate(ind)
                      for head in range(s.numel()) if float(s[head]) > threshold],
    }
