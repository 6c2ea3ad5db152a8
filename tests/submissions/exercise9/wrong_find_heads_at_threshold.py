"""Exercise 9 — a head whose score equals the threshold is kept (>=, where the stub says score > threshold).

Diagnosis: head-at-the-threshold.
"""

import torch


def repeated_tokens(batch, seq_len, vocab_size, generator=None):
    rows = []
    for _ in range(batch):
        tokens = torch.randint(vocab_size, (seq_len,), generator=generator)
        rows.append(torch.cat((tokens, tokens)))
    return torch.stack(rows)


def _check(pattern):
    if len(pattern.shape) != 4:
        raise ValueError("pattern must have 4 dims (B, H, L, L)")
    if pattern.shape[2] != pattern.shape[3]:
        raise ValueError("pattern must be square in its last two dims")


def previous_token_score(pattern):
    _check(pattern)
    B, H, L, _ = pattern.shape
    if L < 2:
        raise ValueError("need at least 2 positions")
    scores = torch.zeros(H, dtype=pattern.dtype, device=pattern.device)
    for h in range(H):
        total = 0.0
        for b in range(B):
            for i in range(1, L):
                total = total + pattern[b, h, i, i - 1]
        scores[h] = total / (B * (L - 1))
    return scores


def induction_score(pattern, seq_len):
    _check(pattern)
    B, H, L, _ = pattern.shape
    if L != 2 * seq_len:
        raise ValueError("L must be 2 * seq_len")
    scores = torch.zeros(H, dtype=pattern.dtype, device=pattern.device)
    for h in range(H):
        total = 0.0
        for b in range(B):
            for i in range(seq_len, L):
                total = total + pattern[b, h, i, i - seq_len + 1]
        scores[h] = total / (B * seq_len)
    return scores


def find_heads(patterns, threshold=0.4):
    prev, ind = [], []
    for layer in range(len(patterns)):
        pattern = patterns[layer]
        L = pattern.shape[-1]
        if L % 2 == 1:
            raise ValueError("odd length: not a repeated sequence")
        p, s = previous_token_score(pattern).tolist(), induction_score(pattern, L // 2).tolist()
        prev += [(layer, h) for h, value in enumerate(p) if value >= threshold]
        ind += [(layer, h) for h, value in enumerate(s) if value >= threshold]
    return {"induction": sorted(ind), "previous_token": sorted(prev)}
