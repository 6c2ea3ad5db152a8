# lumen-unseen: exercise=9 kind=wrong
# mistake: repeated_tokens passes high=vocab_size - 1 to torch.randint as if high were inclusive: the last token id vocab_size - 1 is never drawn (vocab_size=2 gives all zeros)
# expect: vocab|high|exclusive|inclusive|never (drawn|appears)|range
# reject: dtype|shape|generator|second half|interleav
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
    first = torch.randint(0, vocab_size - 1, (batch, seq_len), generator=generator)  # tokens 0..vocab_size-1
    return torch.cat([first, first], dim=1)  # (B, 2*seq_len)


def previous_token_score(pattern):
    """(H,): mean weight from query i on key i-1 (i >= 1), over batch and queries."""
    prev = pattern.diagonal(offset=-1, dim1=-2, dim2=-1)  # (B, H, L-1): [i, i-1] for i = 1..L-1
    return prev.mean(dim=(0, 2))  # (H,)


def induction_score(pattern, seq_len):
    """(H,): mean weight from each query i >= seq_len on key i - seq_len + 1."""
    diag = pattern.diagonal(offset=-(seq_len - 1), dim1=-2, dim2=-1)  # queries seq_len-1 .. 2*seq_len-1
    return diag[..., 1:].mean(dim=(0, 2))  # second half only: (H,)


def find_heads(patterns, threshold=0.4):
    """{"previous_token": [(layer, head), ...], "induction": [(layer, head), ...]} above threshold."""
    found = {"previous_token": [], "induction": []}
    for layer, pattern in enumerate(patterns):
        seq_len = pattern.size(-1) // 2  # the patterns are on a sequence repeated twice
        prev = previous_token_score(pattern)
        ind = induction_score(pattern, seq_len)
        for head in range(pattern.size(1)):
            if prev[head] > threshold:
                found["previous_token"].append((layer, head))
            if ind[head] > threshold:
                found["induction"].append((layer, head))
    return found
