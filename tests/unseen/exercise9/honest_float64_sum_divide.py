# lumen-unseen: exercise=9 kind=honest
# method: accumulates in float64 with sum() / count and casts back to the pattern's dtype; find_heads by sorting the pairs it collects
"""Exercise 9 — What heads learn: previous-token and induction heads.

Chapter sections: "What heads learn" and "Attention patterns as pictures".

A previous-token head puts its weight on the token just before the query (a bright sub-diagonal).
An induction head, on a sequence that repeats itself, looks at the earlier occurrence of the
current token and attends to the token that came right AFTER it (key i - seq_len + 1 for a query
i in the second half), so it can copy it forward.

pattern: attention weights (B, H, L, L), rows are queries, columns are keys.
"""

import torch

def repeated_tokens(batch, seq_len, vocab_size, generator=None):
    """Random tokens, then the same tokens again: a LongTensor (batch, 2*seq_len)."""
    half = torch.randint(vocab_size, (batch, seq_len), generator=generator, dtype=torch.int64)
    return torch.hstack((half, half.clone()))


def previous_token_score(pattern):
    """(H,): mean weight from query i on key i-1 (i >= 1), over batch and queries."""
    B, H, L, _ = pattern.shape
    sub = torch.diagonal(pattern.double(), -1, 2, 3)  # (B, H, L-1)
    return (sub.sum(dim=(0, 2)) / (B * (L - 1))).to(pattern.dtype)


def induction_score(pattern, seq_len):
    """(H,): mean weight from each query i >= seq_len on key i - seq_len + 1."""
    B = pattern.shape[0]
    second = pattern.double()[:, :, seq_len:2 * seq_len, 1:seq_len + 1]  # query seq_len + j, key 1 + j
    return (torch.diagonal(second, 0, 2, 3).sum(dim=(0, 2)) / (B * seq_len)).to(pattern.dtype)


def find_heads(patterns, threshold=0.4):
    """{"previous_token": [(layer, head), ...], "induction": [(layer, head), ...]} above threshold."""
    prev, ind = set(), set()
    for layer, pattern in enumerate(patterns):
        p = previous_token_score(pattern)
        s = induction_score(pattern, pattern.shape[-1] // 2)
        prev |= {(layer, h) for h in range(p.shape[0]) if p[h].item() > threshold}
        ind |= {(layer, h) for h in range(s.shape[0]) if s[h].item() > threshold}
    return {"previous_token": sorted(prev), "induction": sorted(ind)}
