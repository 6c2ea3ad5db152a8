"""Exercise 9 — What heads learn: previous-token and induction heads.

Tensor.diagonal for the stripes, torch.cat for the repeated tokens, a shared shape check.
"""

import torch


def repeated_tokens(batch, seq_len, vocab_size, generator=None):
    """(batch, 2*seq_len) int64 on the CPU: random tokens, then the same tokens again."""
    first = torch.randint(vocab_size, (batch, seq_len), generator=generator, dtype=torch.long, device="cpu")
    return torch.cat([first, first], dim=1)


def _check_square_4d(pattern):
    if pattern.dim() != 4 or pattern.shape[-1] != pattern.shape[-2]:
        raise ValueError(f"pattern must be (B, H, L, L), got {tuple(pattern.shape)}")
    return pattern.shape[-1]


def previous_token_score(pattern):
    """(H,): mean of pattern[b, h, i, i-1] over b and i = 1..L-1."""
    L = _check_square_4d(pattern)
    if L < 2:
        raise ValueError("need L >= 2 for a previous token")
    stripe = pattern.diagonal(offset=-1, dim1=-2, dim2=-1)  # (B, H, L-1): query i, key i-1
    return stripe.mean(dim=(0, 2))


def induction_score(pattern, seq_len):
    """(H,): mean of pattern[b, h, i, i-seq_len+1] over b and i = seq_len..2*seq_len-1."""
    L = _check_square_4d(pattern)
    if seq_len < 1 or L != 2 * seq_len:
        raise ValueError(f"L={L} is not 2 * seq_len = {2 * seq_len}")
    stripe = pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)  # queries seq_len-1 .. L-1
    return stripe[..., 1:].mean(dim=(0, 2))  # drop query seq_len - 1 (first half)


def find_heads(patterns, threshold=0.4):
    """{"previous_token": [(layer, head)...], "induction": [...]} for scores > threshold."""
    found = {"previous_token": [], "induction": []}
    for layer, pattern in enumerate(patterns):
        L = _check_square_4d(pattern)
        if L % 2:
            raise ValueError(f"layer {layer}: odd L={L} cannot be a sequence repeated twice")
        prev = previous_token_score(pattern)
        ind = induction_score(pattern, L // 2)
        for head in range(pattern.shape[1]):
            if prev[head].item() > threshold:
                found["previous_token"].append((layer, head))
            if ind[head].item() > threshold:
                found["induction"].append((layer, head))
    return found
