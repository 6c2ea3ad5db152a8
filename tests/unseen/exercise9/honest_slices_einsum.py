# lumen-unseen: exercise=9 kind=honest
# method: diagonals of sliced blocks read with einsum('bhii->bhi'); find_heads walks heads with a while loop
# note: written from issue 14, then brought to the released stub's contract: the shape checks (ValueError) the stub asks of previous_token_score and induction_score
"""Exercise 9 — What heads learn: previous-token and induction heads.

Chapter sections: "What heads learn", "Previous-token heads and positional heads", "Induction
heads", "Attention patterns as pictures".

A head's pattern is its attention weights, (B, H, L, L): row i (query i) says how much token i
reads from each key j <= i. Drawn as a picture, some heads have a job you can see at a glance:

- a previous-token head reads the token just before: weight on key i-1 from query i, a bright
  sub-diagonal;
- an induction head, on a sequence that repeats ("... Mr Dursley ... Mr"), reads the token AFTER
  the earlier occurrence of the current token, to copy it forward. On seq_len random tokens
  repeated twice (L = 2 * seq_len), query i of the second half (i >= seq_len) holds the same
  token as position i - seq_len, so it reads key i - seq_len + 1: a stripe seq_len - 1 below
  the diagonal, in the second half.

Each score below is the mean weight a head puts on those cells, one number per head: near 1 for a
head that does that job, small otherwise. Positions count from 0. Scores come back in the
pattern's dtype and on its device, and inputs are left unchanged. Off limits, as in every
exercise: the answer key (lumen_ref, solutions/) and the grader's own code.
"""

import torch


def repeated_tokens(batch, seq_len, vocab_size, generator=None):
    """Random tokens, then the same tokens again: a LongTensor (batch, 2*seq_len)."""
    first = torch.randint(low=0, high=vocab_size, size=(batch, seq_len), generator=generator)
    return torch.stack([first, first], dim=1).reshape(batch, 2 * seq_len)  # (B, 2, seq_len) -> rows


def _validate(pattern, min_len=1, length=None):
    shape = tuple(pattern.shape)
    ok = len(shape) == 4 and shape[2] == shape[3] and shape[3] >= min_len
    if not ok or (length is not None and shape[3] != length):
        raise ValueError(f"bad pattern shape {shape}")


def previous_token_score(pattern):
    """(H,): mean weight from query i on key i-1 (i >= 1), over batch and queries."""
    _validate(pattern, min_len=2)
    block = pattern[:, :, 1:, :-1]  # query i+1 against key i
    return torch.einsum("bhii->bhi", block).mean(dim=(0, 2))


def induction_score(pattern, seq_len):
    """(H,): mean weight from each query i >= seq_len on key i - seq_len + 1."""
    _validate(pattern, length=2 * seq_len)
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
