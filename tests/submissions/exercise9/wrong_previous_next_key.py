"""Exercise 9 — the previous-token score on key i+1 (the sign of the offset confused).

Diagnosis: previous-token-reads-next.
"""

import torch


def repeated_tokens(batch, seq_len, vocab_size, generator=None):
    half = torch.randint(0, vocab_size, (batch, seq_len), generator=generator)
    return half.repeat(1, 2)


def previous_token_score(pattern):
    if pattern.ndim != 4 or pattern.shape[-1] != pattern.shape[-2] or pattern.shape[-1] < 2:
        raise ValueError(f"expected (B, H, L, L) with L >= 2, got {tuple(pattern.shape)}")
    L = pattern.shape[-1]
    i = torch.arange(L - 1, device=pattern.device)
    return pattern[:, :, i, i + 1].mean(dim=(0, 2))  # query i, key next to it


def induction_score(pattern, seq_len):
    if pattern.ndim != 4 or pattern.shape[-1] != pattern.shape[-2] or pattern.shape[-1] != 2 * seq_len:
        raise ValueError(f"expected (B, H, 2*seq_len, 2*seq_len), got {tuple(pattern.shape)}")
    queries = torch.arange(seq_len, 2 * seq_len, device=pattern.device)
    return pattern[:, :, queries, queries - seq_len + 1].mean(dim=(0, 2))


def find_heads(patterns, threshold=0.4):
    result = {"previous_token": [], "induction": []}
    for layer, pattern in enumerate(patterns):
        L = pattern.shape[-1]
        if L % 2:
            raise ValueError("patterns must come from a sequence repeated twice")
        prev, ind = previous_token_score(pattern), induction_score(pattern, L // 2)
        for head in range(pattern.shape[1]):
            if prev[head] > threshold:
                result["previous_token"].append((layer, head))
            if ind[head] > threshold:
                result["induction"].append((layer, head))
    return result
