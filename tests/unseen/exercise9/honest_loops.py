# lumen-unseen: exercise=9 kind=honest
# method: plain Python loops over batch, head and query, sums then one division; repeated_tokens with .repeat(1, 2)
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
    return first.repeat(1, 2)  # tile along the sequence: a b c a b c


def previous_token_score(pattern):
    """(H,): mean weight from query i on key i-1 (i >= 1), over batch and queries."""
    B, H, L, _ = pattern.shape
    scores = torch.zeros(H, dtype=pattern.dtype, device=pattern.device)
    for h in range(H):
        total = 0.0
        for b in range(B):
            for i in range(1, L):
                total += pattern[b, h, i, i - 1].item()
        scores[h] = total / (B * (L - 1))
    return scores


def induction_score(pattern, seq_len):
    """(H,): mean weight from each query i >= seq_len on key i - seq_len + 1."""
    B, H, L, _ = pattern.shape
    scores = torch.zeros(H, dtype=pattern.dtype, device=pattern.device)
    for h in range(H):
        total = 0.0
        count = 0
        for b in range(B):
            for i in range(seq_len, 2 * seq_len):
                total += pattern[b, h, i, i - seq_len + 1].item()
                count += 1
        scores[h] = total / count
    return scores


def find_heads(patterns, threshold=0.4):
    """{"previous_token": [(layer, head), ...], "induction": [(layer, head), ...]} above threshold."""
    result = {"previous_token": [], "induction": []}
    for layer in range(len(patterns)):
        pattern = patterns[layer]
        half = pattern.shape[-1] // 2
        prev = previous_token_score(pattern).tolist()
        ind = induction_score(pattern, half).tolist()
        for head in range(len(prev)):
            if prev[head] > threshold:
                result["previous_token"].append((layer, head))
        for head in range(len(ind)):
            if ind[head] > threshold:
                result["induction"].append((layer, head))
    return result
