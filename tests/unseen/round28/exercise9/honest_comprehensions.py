from collections import defaultdict

import torch


def repeated_tokens(batch, seq_len, vocab_size, generator=None):
    half = torch.randint(0, vocab_size, (batch, seq_len), generator=generator, dtype=torch.long)
    return half.repeat(1, 2)


def _check(pattern):
    if pattern.ndim != 4 or pattern.shape[-1] != pattern.shape[-2]:
        raise ValueError(f"expected (B, H, L, L) attention weights, got shape {tuple(pattern.shape)}")


def previous_token_score(pattern):
    _check(pattern)
    L = pattern.shape[-1]
    if L < 2:
        raise ValueError("need L >= 2")
    rows = torch.arange(1, L)
    return pattern[:, :, rows, rows - 1].mean(dim=(0, 2))


def induction_score(pattern, seq_len):
    _check(pattern)
    if pattern.shape[-1] != 2 * seq_len:
        raise ValueError(f"L={pattern.shape[-1]} but 2*seq_len={2 * seq_len}")
    rows = torch.arange(seq_len, 2 * seq_len)
    return pattern[:, :, rows, rows - seq_len + 1].mean(dim=(0, 2))


def find_heads(patterns, threshold=0.4):
    found = defaultdict(list)
    for layer, p in enumerate(patterns):
        prev = previous_token_score(p)
        ind = induction_score(p, p.shape[-1] // 2)
        found["previous_token"].extend((layer, h) for h, s in enumerate(prev.tolist()) if s > threshold)
        found["induction"].extend((layer, h) for h, s in enumerate(ind.tolist()) if s > threshold)
    return {"previous_token": found["previous_token"], "induction": found["induction"]}
