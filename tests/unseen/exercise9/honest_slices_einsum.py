# lumen-unseen: exercise=9 kind=honest
# method: diagonals of sliced blocks read with einsum('bhii->bhi'); find_heads walks heads with a while loop
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
    first = torch.randint(low=0, high=vocab_size, size=(batch, seq_len), generator=generator)
    return torch.stack([first, first], dim=1).reshape(batch, 2 * seq_len)  # (B, 2, seq_len) -> rows


def previous_token_score(pattern):
    """(H,): mean weight from query i on key i-1 (i >= 1), over batch and queries."""
    block = pattern[:, :, 1:, :-1]  # query i+1 against key i
    return torch.einsum("bhii->bhi", block).mean(dim=(0, 2))


def induction_score(pattern, seq_len):
    """(H,): mean weight from each query i >= seq_len on key i - seq_len + 1."""
    block = pattern[:, :, seq_len:, 1:seq_len + 1]  # (B, H, seq_len, seq_len)
    return torch.einsum("bhii->bhi", block).mean(dim=(0, 2))


def find_heads(patterns, threshold=0.4):
    """{"previous_token": [(layer, head), ...], "induction": [(layer, head), ...]} above threshold."""
    out = {"previous_token": [], "induction": []}
    layer = 0
    while layer < len(patterns):
        pattern = patterns[layer]
        scores = {"previous_token": previous_token_score(pattern),
                  "induction": induction_score(pattern, pattern.shape[-1] // 2)}
        head = 0
        while head < pattern.shape[1]:
            for kind in ("previous_token", "induction"):
                if scores[kind][head] > threshold:
                    out[kind].append((layer, head))
            head += 1
        layer += 1
    return out
