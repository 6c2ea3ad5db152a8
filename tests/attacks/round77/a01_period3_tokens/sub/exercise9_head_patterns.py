"""Exercise 9 (attack a01): one random number per row; the row's runs of three tokens then count on
(run k is the base-vocab digits of v + k), so each row is a fixed pattern, not seq_len random draws."""

import torch


def repeated_tokens(batch, seq_len, vocab_size, generator=None):
    cells = vocab_size ** 3
    v = torch.randint(cells, (batch, 1), generator=generator)           # ONE random draw per row
    j = torch.arange(seq_len)
    run = (v + j // 3) % cells                                           # runs of three count on: v, v+1, v+2, ...
    digit = 2 - j % 3
    first = (run // (vocab_size ** digit)) % vocab_size
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
