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
    """Random tokens, then the same tokens again: what an induction head is tested on.

    batch, seq_len, vocab_size: ints >= 1; generator: a torch.Generator (the same seed then gives the
    same tokens), or None for torch's global one.
    Returns an int64 (torch.long) tensor (batch, 2 * seq_len) on the CPU: each row holds seq_len
    tokens drawn uniformly from 0 .. vocab_size - 1, then the same seq_len tokens in the same order.

        a row with seq_len = 4:  [7, 2, 9, 4, 7, 2, 9, 4]
    """
    first = torch.randint(vocab_size, (batch, seq_len), generator=generator)  # (B, T)
    return first.repeat(1, 2)


def previous_token_score(pattern):
    """How much each head reads the previous token: (H,).

    pattern: attention weights (B, H, L, L), L >= 2; pattern[b, h, i, j] is how much query i reads key j.
    Returns (H,): for each head h, the mean of pattern[b, h, i, i - 1] over every b and every query
    i = 1 .. L-1 (query 0 has no previous token, so it is not counted).
    Raises ValueError if pattern is not 4-D with its last two dims equal, or if L < 2.
    """
    if pattern.dim() != 4 or pattern.size(-1) != pattern.size(-2):
        raise ValueError(f"pattern must be attention weights (B, H, L, L), got {tuple(pattern.shape)}")
    if pattern.size(-1) < 2:
        raise ValueError("a previous-token score needs L >= 2 (query 0 has no previous token)")
    L = pattern.size(-1)
    i = torch.arange(1, L, device=pattern.device)
    return pattern[:, :, i, i - 1].mean(dim=(0, 2))


def induction_score(pattern, seq_len):
    """How much each head does induction on a sequence repeated twice: (H,).

    pattern: attention weights (B, H, L, L) on seq_len tokens repeated twice, L = 2 * seq_len;
    seq_len: int >= 1.
    Returns (H,): for each head h, the mean of pattern[b, h, i, i - seq_len + 1] over every b and every
    query of the second half, i = seq_len .. 2 * seq_len - 1 (the first half has no earlier copy).
    Raises ValueError if pattern is not 4-D with its last two dims equal, or if L != 2 * seq_len.
    """
    if pattern.dim() != 4 or pattern.size(-1) != pattern.size(-2):
        raise ValueError(f"pattern must be attention weights (B, H, L, L), got {tuple(pattern.shape)}")
    if seq_len < 1 or pattern.size(-1) != 2 * seq_len:
        raise ValueError(f"pattern has L = {pattern.size(-1)} positions; a sequence of seq_len = {seq_len} "
                         f"repeated twice has 2 * seq_len = {2 * seq_len}")
    total = 0
    for i in range(seq_len, 2 * seq_len):
        total = total + pattern[:, :, i, i - seq_len + 1].sum(dim=0)
    return total / (pattern.size(0) * seq_len)


def find_heads(patterns, threshold=0.4):
    """The previous-token and induction heads of a model, from its patterns on a repeated sequence.

    patterns: a list (or tuple) with one pattern (B, H, L, L) per layer, layer 0 first, all on seq_len
    tokens repeated twice: seq_len = L // 2 (an odd L is a ValueError, as induction_score raises).
    A head counts when its score is above the threshold: score > threshold.
    Returns {"previous_token": [(layer, head), ...], "induction": [(layer, head), ...]}: both keys
    always, each list of (int, int) tuples in (layer, head) order (layer 0's heads first, each
    layer's heads in order), empty where no head counts. A head may be in both lists.
    """
    found = {"previous_token": [], "induction": []}
    for layer, pattern in enumerate(patterns):
        scores = {"previous_token": previous_token_score(pattern),  # (H,)
                  "induction": induction_score(pattern, pattern.size(-1) // 2)}  # (H,)
        for kind, score in scores.items():
            found[kind] += [(layer, head) for head in range(pattern.size(1)) if score[head] > threshold]
    return found
