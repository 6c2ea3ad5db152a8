"""Exercise 4 — Causal and padding masks.

Chapter section: "Causal masking: no peeking at the future".

A mask is a bool tensor that says, for every (query, key) pair, whether the query may read the key:
True = may attend, False = must not. Before the softmax, every score where the mask is False is set
to -inf, and since e^-inf = 0 those keys get exactly zero weight.

- The causal mask lets token i read tokens 0..i only, so a language model cannot copy the answer
  from the future. It depends only on L: build it with torch.tril.
- The padding mask hides the padding at the end of the shorter sequences in a batch.

Positions count from 0: token 0 is the first. Inputs are left unchanged. Off limits, as in every
exercise: the answer key (lumen_ref, solutions/) and the grader's own code.

It must train: autograd through your code gives the chapter's gradients (no .detach(), no
in-place edit of a tensor autograd still needs).
"""

import torch


def causal_mask(L, device=None):
    """The (L, L) causal mask: row i (query i) may see columns (keys) 0..i.

    L: int >= 1; device: where to make the mask (None: the CPU).
    Returns a bool tensor (L, L) on `device`, True on and below the diagonal, False above it:

        L = 3:  [[ True, False, False],
                 [ True,  True, False],
                 [ True,  True,  True]]
    """
    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))  # (L, L)


def apply_mask(scores, mask):
    """Hide the keys a query may not see: -inf where the mask is False.

    scores: (..., L_q, L_k)  float, any dtype and device
    mask:   bool on the same device, broadcastable to scores' shape, e.g. (L_q, L_k) or (B, 1, L_k);
            True = may attend
    Returns a NEW tensor of scores' shape, dtype and device: scores where mask is True, -inf where
    it is False. A row whose mask is all False becomes all -inf (exercise 5's softmax turns such a
    row into zero weights). `scores` itself is left untouched.
    """
    return scores + torch.where(mask, 0.0, float("-inf"))  # (..., L_q, L_k)


def padding_mask(lengths, L):
    """Mask out padding keys: sequence b has only lengths[b] real tokens, then padding up to L.

    lengths: (B,) int64  number of real tokens in each sequence, 0 <= lengths[b] <= L (the longest
                         may be shorter than L)
    L:       int         padded length
    Returns a bool tensor (B, 1, L) on lengths' device: [b, 0, j] is True where key j is real
    (j < lengths[b]). The 1 is the query axis: it broadcasts over the queries of scores
    (B, L_q, L), so every query of sequence b sees the same real keys.
    """
    positions = torch.arange(L, device=lengths.device)  # (L,) 0, 1, ..., L-1
    real = positions < lengths[:, None]  # (B, L): True where j < lengths[b]
    return real[:, None, :]  # (B, 1, L)
