# lumen-unseen: exercise=9 kind=wrong
# mistake: repeated_tokens repeats each token in place (a a b b c c, repeat_interleave) instead of repeating the whole sequence (a b c a b c)
# expect: repeat_interleave|each token twice|interleav|pairs|a a b b|in place|second half|same (tokens|sequence) again|whole sequence|first half
# reject: dtype|shape|generator|seed
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



def _check_pattern(pattern):
    """ValueError unless pattern is (B, H, L, L)."""
    if pattern.dim() != 4 or pattern.size(-1) != pattern.size(-2):
        raise ValueError(f"pattern must be (B, H, L, L), got shape {tuple(pattern.shape)}")


def repeated_tokens(batch, seq_len, vocab_size, generator=None):
    """Random tokens, then the same tokens again: a LongTensor (batch, 2*seq_len)."""
    first = torch.randint(0, vocab_size, (batch, seq_len), generator=generator)  # (B, seq_len)
    return first.repeat_interleave(2, dim=1)  # (B, 2*seq_len)


def previous_token_score(pattern):
    """(H,): mean weight from query i on key i-1 (i >= 1), over batch and queries."""
    _check_pattern(pattern)
    if pattern.size(-1) < 2:
        raise ValueError(f"pattern needs L >= 2, got L = {pattern.size(-1)}")
    prev = pattern.diagonal(offset=-1, dim1=-2, dim2=-1)  # (B, H, L-1): [i, i-1] for i = 1..L-1
    return prev.mean(dim=(0, 2))  # (H,)


def induction_score(pattern, seq_len):
    """(H,): mean weight from each query i >= seq_len on key i - seq_len + 1."""
    _check_pattern(pattern)
    if pattern.size(-1) != 2 * seq_len:
        raise ValueError(f"pattern has L = {pattern.size(-1)}, not 2 * seq_len = {2 * seq_len}")
    diag = pattern.diagonal(offset=-(seq_len - 1), dim1=-2, dim2=-1)  # queries seq_len-1 .. 2*seq_len-1
    return diag[..., 1:].mean(dim=(0, 2))  # second half only: (H,)


def find_heads(patterns, threshold=0.4):
    """{"previous_token": [(layer, head), ...], "induction": [(layer, head), ...]} above threshold."""
    found = {"previous_token": [], "induction": []}
    for layer, pattern in enumerate(patterns):
        seq_len = pattern.size(-1) // 2  # the patterns are on a sequence repeated twice
        prev = previous_token_score(pattern)
        ind = induction_score(pattern, seq_len)
        for head in range(pattern.size(1)):
            if prev[head] > threshold:
                found["previous_token"].append((layer, head))
            if ind[head] > threshold:
                found["induction"].append((layer, head))
    return found
