# lumen-unseen: exercise=9 kind=honest
# method: multiplies the pattern by a 0/1 mask (torch.diag of ones at offset -1, rows of the first half zeroed), sums, divides by the count; find_heads through torch.nonzero
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
    tokens = torch.empty(batch, 2 * seq_len, dtype=torch.long)
    tokens[:, :seq_len] = torch.randint(0, vocab_size, (batch, seq_len), generator=generator)
    tokens[:, seq_len:] = tokens[:, :seq_len]
    return tokens


def _masked_mean(pattern, mask):
    """Mean over batch and the mask's cells of pattern * mask, per head."""
    mask = mask.to(dtype=pattern.dtype, device=pattern.device)  # (L, L)
    total = (pattern * mask).sum(dim=(-2, -1)).sum(dim=0)  # (H,)
    return total / (mask.sum() * pattern.shape[0])


def previous_token_score(pattern):
    """(H,): mean weight from query i on key i-1 (i >= 1), over batch and queries."""
    L = pattern.shape[-1]
    return _masked_mean(pattern, torch.diag(torch.ones(L - 1), -1))  # ones at [i, i-1]


def induction_score(pattern, seq_len):
    """(H,): mean weight from each query i >= seq_len on key i - seq_len + 1."""
    L = pattern.shape[-1]
    mask = torch.diag(torch.ones(L - seq_len + 1), -(seq_len - 1))  # [i, i - seq_len + 1]
    mask[:seq_len] = 0  # only the second half's queries
    return _masked_mean(pattern, mask)


def find_heads(patterns, threshold=0.4):
    """{"previous_token": [(layer, head), ...], "induction": [(layer, head), ...]} above threshold."""
    found = {"previous_token": [], "induction": []}
    for layer, pattern in enumerate(patterns):
        for kind, scores in (("previous_token", previous_token_score(pattern)),
                             ("induction", induction_score(pattern, pattern.shape[-1] // 2))):
            for head in torch.nonzero(scores > threshold).flatten().tolist():
                found[kind].append((layer, head))
    return found
