# lumen-unseen: exercise=9 kind=honest
# method: plain Python loops over batch, head and query, sums then one division; repeated_tokens with .repeat(1, 2)
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
    return first.repeat(1, 2)  # tile along the sequence: a b c a b c


def previous_token_score(pattern):
    """(H,): mean weight from query i on key i-1 (i >= 1), over batch and queries."""
    if len(pattern.shape) != 4 or pattern.shape[2] != pattern.shape[3] or pattern.shape[3] < 2:
        raise ValueError("previous_token_score needs a (B, H, L, L) pattern with L >= 2")
    B, H, L, _ = pattern.shape
    scores = torch.zeros(H, dtype=pattern.dtype, device=pattern.device)
    for h in range(H):
        total = 0.0
        for b in range(B):
            for i in range(1, L):
                total += pattern[b, h, i, i - 1].item()
        scores[h] = total / (B * (L - 1))
    return scores


def induction_score(pattern, seq_len):
    """(H,): mean weight from each query i >= seq_len on key i - seq_len + 1."""
    if len(pattern.shape) != 4 or pattern.shape[2] != pattern.shape[3] or pattern.shape[3] != 2 * seq_len:
        raise ValueError("induction_score needs a (B, H, 2*seq_len, 2*seq_len) pattern")
    B, H, L, _ = pattern.shape
    scores = torch.zeros(H, dtype=pattern.dtype, device=pattern.device)
    for h in range(H):
        total = 0.0
        count = 0
        for b in range(B):
            for i in range(seq_len, 2 * seq_len):
                total += pattern[b, h, i, i - seq_len + 1].item()
                count += 1
        scores[h] = total / count
    return scores


def find_heads(patterns, threshold=0.4):
    """{"previous_token": [(layer, head), ...], "induction": [(layer, head), ...]} above threshold."""
    result = {"previous_token": [], "induction": []}
    for layer in range(len(patterns)):
        pattern = patterns[layer]
        half = pattern.shape[-1] // 2
        prev = previous_token_score(pattern).tolist()
        ind = induction_score(pattern, half).tolist()
        for head in range(len(prev)):
            if prev[head] > threshold:
                result["previous_token"].append((layer, head))
        for head in range(len(ind)):
            if ind[head] > threshold:
                result["induction"].append((layer, head))
    return result
