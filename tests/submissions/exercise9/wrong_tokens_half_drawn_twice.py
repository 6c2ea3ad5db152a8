"""Exercise 9 — the first half of each row repeats itself too: seq_len // 2 draws, then the same again,
so that the sequence is the same few tokens four times (token i + seq_len / 2 is token i).

Diagnosis: repeated-tokens-rules.
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
    start = torch.randint(vocab_size, (batch, (seq_len + 1) // 2), generator=generator)  # (B, T/2)
    first = start.repeat(1, 2)[:, :seq_len]  # (B, T): its second half is its first again
    return torch.cat([first, first], dim=1)  # (B, 2T)


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
    below = pattern.diagonal(offset=-1, dim1=-2, dim2=-1)  # (B, H, L-1): [..., i-1] = pattern[..., i, i-1]
    return below.mean(dim=(0, 2))  # (H,)


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
    stripe = pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)  # (B, H, T+1): queries T-1 .. 2T-1
    return stripe[..., 1:].mean(dim=(0, 2))  # (H,): queries T .. 2T-1, the second half


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
