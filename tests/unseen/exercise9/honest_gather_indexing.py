# lumen-unseen: exercise=9 kind=honest
# method: advanced indexing with arange index vectors; repeated_tokens by indexing positions modulo seq_len
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
    first = torch.randint(0, vocab_size, (batch, seq_len), generator=generator)
    positions = torch.arange(2 * seq_len) % seq_len  # 0 1 .. seq_len-1 0 1 .. seq_len-1
    return first[:, positions]


def previous_token_score(pattern):
    """(H,): mean weight from query i on key i-1 (i >= 1), over batch and queries."""
    L = pattern.shape[-1]
    queries = torch.arange(1, L, device=pattern.device)
    picked = pattern[..., queries, queries - 1]  # (B, H, L-1)
    return picked.mean(dim=-1).mean(dim=0)


def induction_score(pattern, seq_len):
    """(H,): mean weight from each query i >= seq_len on key i - seq_len + 1."""
    queries = torch.arange(seq_len, 2 * seq_len, device=pattern.device)
    keys = queries - seq_len + 1
    picked = pattern[..., queries, keys]  # (B, H, seq_len)
    return picked.mean(dim=-1).mean(dim=0)


def find_heads(patterns, threshold=0.4):
    """{"previous_token": [(layer, head), ...], "induction": [(layer, head), ...]} above threshold."""
    prev = [previous_token_score(p) for p in patterns]
    ind = [induction_score(p, p.shape[-1] // 2) for p in patterns]
    return {
        "previous_token": [(layer, head) for layer, s in enumerate(prev)
                           for head in range(s.numel()) if float(s[head]) > threshold],
        "induction": [(layer, head) for layer, s in enumerate(ind)
                      for head in range(s.numel()) if float(s[head]) > threshold],
    }
