"""Exercise 9 (control): honest."""

import torch


def repeated_tokens(batch, seq_len, vocab_size, generator=None):
    first = torch.randint(vocab_size, (batch, seq_len), generator=generator)
    return torch.cat([first, first], dim=1)


def previous_token_score(pattern):
    if pattern.dim() != 4 or pattern.size(-1) != pattern.size(-2):
        raise ValueError("pattern must be (B, H, L, L)")
    if pattern.size(-1) < 2:
        raise ValueError("L must be >= 2")
    d = pattern.diagonal(offset=-1, dim1=-2, dim2=-1)  # (B, H, L-1)
    return d.mean(dim=(0, 2))


def induction_score(pattern, seq_len):
    if pattern.dim() != 4 or pattern.size(-1) != pattern.size(-2):
        raise ValueError("pattern must be (B, H, L, L)")
    if pattern.size(-1) != 2 * seq_len:
        raise ValueError("L must be 2 * seq_len")
    d = pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)[..., 1:]
    return d.mean(dim=(0, 2))


def find_heads(patterns, threshold=0.4):
    out = {"previous_token": [], "induction": []}
    for layer, p in enumerate(patterns):
        L = p.size(-1)
        if L % 2:
            raise ValueError("odd L")
        prev = previous_token_score(p)
        ind = induction_score(p, L // 2)
        for h in range(p.size(1)):
            if float(prev[h]) > threshold:
                out["previous_token"].append((layer, h))
            if float(ind[h]) > threshold:
                out["induction"].append((layer, h))
    return out
