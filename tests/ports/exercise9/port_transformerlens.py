"""Port of TransformerLens (transformer_lens/head_detector.py): detection patterns (previous-token: eye below the diagonal, tril; induction: the duplicate-token pattern
rolled one column right, first column zeroed, tril) scored with the default error_measure="mul": (attention_pattern * detection_pattern).sum() / attention_pattern.sum(),
.item(), into torch.zeros(n_layers, n_heads); a list of sequences averaged. Adapted to the stub: patterns are given (no model/cache); the induction tokens are seq_len
distinct ids repeated twice (only positions are known); ValueError shape checks added; repeated_tokens is not in TransformerLens and is written plainly. Breaks written
rules: the scores are sums over the detection cells divided by the whole pattern's sum (L rows), not the mean over the stub's queries, so a perfect induction head scores
0.5 and a perfect previous-token head (L-1)/L; the scores are a float32 CPU torch.zeros, not in the pattern's dtype and on its device.
"""

# --- the stub's own module docstring, kept as written ---
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

import numpy as np


def get_previous_token_head_detection_pattern(tokens):
    """Outputs a detection score for previous token heads."""
    detection_pattern = torch.zeros(tokens.shape[-1], tokens.shape[-1])
    # Adds a diagonal of 1's below the main diagonal.
    detection_pattern[1:, :-1] = torch.eye(tokens.shape[-1] - 1)
    return torch.tril(detection_pattern)


def get_duplicate_token_head_detection_pattern(tokens):
    """Outputs a detection score for duplicate token heads."""
    # [pos x pos]
    token_pattern = tokens.repeat(tokens.shape[-1], 1).numpy()

    # If token_pattern[i][j] matches its transpose, then token j and token i are duplicates.
    eq_mask = np.equal(token_pattern, token_pattern.T).astype(int)

    np.fill_diagonal(eq_mask, 0)  # Current token is always a duplicate of itself. Ignore that.
    detection_pattern = eq_mask.astype(int)
    return torch.tril(torch.as_tensor(detection_pattern).float())


def get_induction_head_detection_pattern(tokens):
    """Outputs a detection score for induction heads."""
    duplicate_pattern = get_duplicate_token_head_detection_pattern(tokens)

    # Shift all items one to the right
    shifted_tensor = torch.roll(duplicate_pattern, shifts=1, dims=1)

    # Replace first column with 0's
    # we don't care about bos but shifting to the right moves the last column to the first,
    # and the last column might contain non-zero values.
    zeros_column = torch.zeros(duplicate_pattern.shape[0], 1)
    result_tensor = torch.cat((zeros_column, shifted_tensor[:, 1:]), dim=-1)
    return torch.tril(result_tensor)


def compute_head_attention_similarity_score(
    attention_pattern, detection_pattern, *, exclude_bos, exclude_current_token, error_measure
):
    """Compute the similarity between `attention_pattern` and `detection_pattern`."""
    if error_measure == "mul":
        if exclude_bos:
            attention_pattern[:, 0] = 0
        if exclude_current_token:
            attention_pattern.fill_diagonal_(0)
        score = attention_pattern * detection_pattern
        return (score.sum() / attention_pattern.sum()).item()
    abs_diff = (attention_pattern - detection_pattern).abs()
    assert (abs_diff - torch.tril(abs_diff).to(abs_diff.device)).sum() == 0
    size = len(abs_diff)
    return 1 - round((abs_diff.mean() * size).item(), 3)


def _detect_head(pattern, detection_pattern, exclude_bos=False, exclude_current_token=False, error_measure="mul"):
    """detect_head for one layer's patterns (B, H, L, L): one score per head, averaged over the sequences."""
    detection_pattern = detection_pattern.to(pattern.device)
    batch_scores = []
    for b in range(pattern.shape[0]):
        head_scores = torch.zeros(pattern.shape[1])
        for head in range(pattern.shape[1]):
            head_attention_pattern = pattern[b, head, :, :]
            head_scores[head] = compute_head_attention_similarity_score(
                head_attention_pattern, detection_pattern, exclude_bos=exclude_bos,
                exclude_current_token=exclude_current_token, error_measure=error_measure,
            )
        batch_scores.append(head_scores)
    return torch.stack(batch_scores).mean(0)


def repeated_tokens(batch, seq_len, vocab_size, generator=None):
    """Random tokens, then the same tokens again: what an induction head is tested on.

    batch, seq_len, vocab_size: ints >= 1; generator: a torch.Generator (the same seed then gives the
    same tokens), or None for torch's global one.
    Returns an int64 (torch.long) tensor (batch, 2 * seq_len) on the CPU: each row holds seq_len
    tokens drawn uniformly from 0 .. vocab_size - 1, then the same seq_len tokens in the same order.

        a row with seq_len = 4:  [7, 2, 9, 4, 7, 2, 9, 4]
    """
    half = torch.randint(vocab_size, (batch, seq_len), generator=generator)
    return torch.cat([half, half], dim=1)


def previous_token_score(pattern):
    """How much each head reads the previous token: (H,).

    pattern: attention weights (B, H, L, L), L >= 2; pattern[b, h, i, j] is how much query i reads key j.
    Returns (H,): for each head h, the mean of pattern[b, h, i, i - 1] over every b and every query
    i = 1 .. L-1 (query 0 has no previous token, so it is not counted).
    Raises ValueError if pattern is not 4-D with its last two dims equal, or if L < 2.
    """
    if pattern.dim() != 4 or pattern.shape[-1] != pattern.shape[-2] or pattern.shape[-1] < 2:
        raise ValueError(f"pattern must be (B, H, L, L) with L >= 2, got {tuple(pattern.shape)}")
    tokens = torch.arange(pattern.shape[-1])
    return _detect_head(pattern, get_previous_token_head_detection_pattern(tokens))


def induction_score(pattern, seq_len):
    """How much each head does induction on a sequence repeated twice: (H,).

    pattern: attention weights (B, H, L, L) on seq_len tokens repeated twice, L = 2 * seq_len;
    seq_len: int >= 1.
    Returns (H,): for each head h, the mean of pattern[b, h, i, i - seq_len + 1] over every b and every
    query of the second half, i = seq_len .. 2 * seq_len - 1 (the first half has no earlier copy).
    Raises ValueError if pattern is not 4-D with its last two dims equal, or if L != 2 * seq_len.
    """
    if pattern.dim() != 4 or pattern.shape[-1] != pattern.shape[-2] or pattern.shape[-1] != 2 * seq_len:
        raise ValueError(f"pattern must be (B, H, 2*seq_len, 2*seq_len), got {tuple(pattern.shape)}, seq_len={seq_len}")
    tokens = torch.arange(seq_len).repeat(2)  # seq_len distinct tokens, repeated
    return _detect_head(pattern, get_induction_head_detection_pattern(tokens))


def find_heads(patterns, threshold=0.4):
    """The previous-token and induction heads of a model, from its patterns on a repeated sequence.

    patterns: a list (or tuple) with one pattern (B, H, L, L) per layer, layer 0 first, all on seq_len
    tokens repeated twice: seq_len = L // 2 (an odd L is a ValueError, as induction_score raises).
    A head counts when its score is above the threshold: score > threshold.
    Returns {"previous_token": [(layer, head), ...], "induction": [(layer, head), ...]}: both keys
    always, each list of (int, int) tuples in (layer, head) order (layer 0's heads first, each
    layer's heads in order), empty where no head counts. A head may be in both lists.
    """
    found = {"previous_token": [], "induction": []}
    for layer, pattern in enumerate(patterns):
        L = pattern.shape[-1]
        if L % 2:
            raise ValueError(f"an odd L ({L}) is not a sequence repeated twice")
        prev = previous_token_score(pattern)
        ind = induction_score(pattern, L // 2)
        for head in range(pattern.shape[1]):
            if prev[head] > threshold:
                found["previous_token"].append((layer, head))
            if ind[head] > threshold:
                found["induction"].append((layer, head))
    return found
