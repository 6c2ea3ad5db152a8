"""Exercise 9 — the cells picked by boolean masks, the heads by torch.nonzero, the repeat by expand.

Diagnosis: none.
"""

import torch


def repeated_tokens(batch, seq_len, vocab_size, generator=None):
    first = torch.randint(low=0, high=vocab_size, size=(batch, 1, seq_len), generator=generator)
    return first.expand(batch, 2, seq_len).reshape(batch, 2 * seq_len)


def _cells(L, offset, first_query, device):
    rows = torch.arange(L, device=device)[:, None]
    cols = torch.arange(L, device=device)[None, :]
    return (cols - rows == offset) & (rows >= first_query)  # (L, L)


def _shape(pattern):
    if pattern.dim() != 4 or pattern.size(2) != pattern.size(3):
        raise ValueError(f"a pattern is (B, H, L, L); this one is {list(pattern.shape)}")
    return pattern.size(-1)


def previous_token_score(pattern):
    L = _shape(pattern)
    if L < 2:
        raise ValueError("L must be at least 2")
    keep = _cells(L, -1, 1, pattern.device)
    picked = pattern[:, :, keep]  # (B, H, L-1)
    return picked.mean(dim=(0, 2))


def induction_score(pattern, seq_len):
    L = _shape(pattern)
    if 2 * seq_len != L:
        raise ValueError(f"seq_len={seq_len} does not fit a pattern of length {L}")
    keep = _cells(L, 1 - seq_len, seq_len, pattern.device)
    return torch.einsum("bhij,ij->h", pattern, keep.to(pattern.dtype)) / (pattern.size(0) * seq_len)


def find_heads(patterns, threshold=0.4):
    found = {"previous_token": [], "induction": []}
    for layer, pattern in enumerate(patterns):
        if pattern.size(-1) % 2:
            raise ValueError("every pattern must have an even length")
        for key, score in (("previous_token", previous_token_score(pattern)),
                           ("induction", induction_score(pattern, pattern.size(-1) // 2))):
            found[key].extend((layer, int(h)) for h in torch.nonzero(score > threshold).flatten().tolist())
    return found
