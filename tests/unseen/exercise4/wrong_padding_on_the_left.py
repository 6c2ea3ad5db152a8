# lumen-unseen: exercise=4 kind=wrong
# mistake: padding_mask assumes left padding: marks the LAST lengths[b] keys real instead of the first
# expect: left|start|beginning|front|\bend\b|first
# reject: wrong way round|polarity|~mask
"""Exercise 4 — Causal and padding masks.

Chapter section: "Causal masking: no peeking at the future".

A mask is a bool tensor that says, for every (query, key) pair, whether the query may read the key:
True = may attend, False = must not. Before the softmax, every score where the mask is False is set
to -inf, and since e^-inf = 0 those keys get exactly zero weight.

- The causal mask lets token i read tokens 0..i only, so a language model cannot copy the answer
  from the future. It depends only on L: build it with torch.tril.
- The padding mask hides the padding at the end of the shorter sequences in a batch.
"""

import torch


def causal_mask(L, device=None):
    """The (L, L) causal mask: row i (query i) may see columns (keys) 0..i.

    Returns a bool tensor (L, L), True on and below the diagonal, False above it:

        L = 3:  [[ True, False, False],
                 [ True,  True, False],
                 [ True,  True,  True]]
    """
    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))


def apply_mask(scores, mask):
    """Hide the keys a query may not see: -inf where the mask is False.

    scores: (..., L_q, L_k)  float
    mask:   bool, broadcastable to scores' shape, e.g. (L_q, L_k) or (B, 1, L_k); True = may attend
    Returns a NEW tensor (..., L_q, L_k): scores where mask is True, -inf where it is False.
    `scores` itself is left untouched.
    """
    return scores.masked_fill(~mask, float("-inf"))


def padding_mask(lengths, L):
    """Mask out padding keys: sequence b has only lengths[b] real tokens, then padding up to L.

    lengths: (B,) int  number of real tokens in each sequence
    L:       int       padded length
    Returns a bool tensor (B, 1, L): [b, 0, j] is True where key j is real (j < lengths[b]).
    The 1 lets it broadcast over the queries of scores (B, L_q, L): every query of sequence b
    sees the same real keys.
    """
    pos = torch.arange(L, device=lengths.device)
    real = pos[None, :] >= (L - lengths)[:, None]      # padding sits in front
    return real.unsqueeze(1)
