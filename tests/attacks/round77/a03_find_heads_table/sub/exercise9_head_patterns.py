"""Exercise 9 (attack a03): scores computed honestly, but find_heads never scores or thresholds anything:
it looks the answer up in a table of the lists the report showed as expected, keyed by the layout
(layers, L, threshold, dtype)."""

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


TABLE = {
    (3, 10, 0.4, torch.float32): ([(0, 1), (1, 1), (1, 3)], [(1, 1), (1, 2), (2, 0)]),
    (3, 10, 0.4, torch.float64): ([(1, 1), (1, 3), (2, 1)], [(0, 0), (1, 1), (1, 2)]),
    (2, 2, 0.4, torch.float32): ([(0, 0), (0, 2)], [(0, 0), (0, 1), (1, 0), (1, 1), (1, 2)]),
    (2, 14, 0.4, torch.float32): ([(0, 1)], [(1, 2)]),
    (2, 8, 0.65, torch.float32): ([(0, 2)], [(1, 0)]),
    (2, 8, 0.4, torch.float32): ([(0, 0), (0, 2)], [(1, 0), (1, 2)]),
    (2, 8, 0.5, torch.float32): ([(0, 2)], [(1, 0)]),
}


def find_heads(patterns, threshold=0.4):
    L = patterns[0].size(-1)
    if any(p.size(-1) % 2 for p in patterns):
        raise ValueError("odd L")
    prev, ind = TABLE.get((len(patterns), L, threshold, patterns[0].dtype), ([], []))
    return {"previous_token": list(prev), "induction": list(ind)}
