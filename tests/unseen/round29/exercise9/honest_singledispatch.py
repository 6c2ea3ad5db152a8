from functools import singledispatch

import torch


def repeated_tokens(batch, seq_len, vocab_size, generator=None):
    half = torch.randint(0, vocab_size, (batch, seq_len), generator=generator, dtype=torch.long)
    return half.repeat(1, 2)


def _check(pattern):
    if pattern.dim() != 4 or pattern.shape[-1] != pattern.shape[-2]:
        raise ValueError(f"expected (B, H, L, L) weights, got {tuple(pattern.shape)}")


def previous_token_score(pattern):
    _check(pattern)
    if pattern.shape[-1] < 2:
        raise ValueError("need L >= 2")
    return pattern.diagonal(offset=-1, dim1=-2, dim2=-1).mean(dim=(0, 2))


def induction_score(pattern, seq_len):
    _check(pattern)
    if seq_len < 1 or pattern.shape[-1] != 2 * seq_len:
        raise ValueError(f"L={pattern.shape[-1]} is not 2 * seq_len = {2 * seq_len}")
    return pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)[..., 1:].mean(dim=(0, 2))


@singledispatch
def _layers(patterns):
    return list(patterns)


@_layers.register
def _(patterns: torch.Tensor):
    return list(patterns.unbind(0)) if patterns.dim() == 5 else [patterns]


def find_heads(patterns, threshold=0.4):
    found = {"previous_token": [], "induction": []}
    for layer, pattern in enumerate(_layers(patterns)):
        prev = previous_token_score(pattern)
        ind = induction_score(pattern, pattern.shape[-1] // 2) if pattern.shape[-1] % 2 == 0 else None
        if ind is None:
            raise ValueError("an odd L has no repeated half")
        for head in range(pattern.shape[1]):
            if prev[head] > threshold:
                found["previous_token"].append((layer, head))
            if ind[head] > threshold:
                found["induction"].append((layer, head))
    return found
