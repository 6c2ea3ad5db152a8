"""Exercise 4: the misconceptions first seen in this exercise (see grader/diagnosis/mutants.py).

In catalogue order: the first one named decides an "either … or" diagnosis. `edits` turn the
instructor's solution of each exercise into a student file making the mistake."""

import torch

import lumen_ref as ref
from grader.diagnosis.mutants import Misconception, MASKING, masked_fill_with

# lines of the solutions that the edits below rewrite
SOLUTION_APPLY = "    return scores.masked_fill(~mask, float(\"-inf\"))  # (..., L_q, L_k)\n"
SOLUTION_CAUSAL = "    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))  # (L, L)\n    # END"
SOLUTION_MHA_MASK = ("        if mask is None:\n            mask = causal_mask(L, x.device)  # (L, L) broadcasts over "
                     "(B, H)\n        y, _ = scaled_dot_product_attention(q, k, v, mask)  # (B, H, L, d_head)\n")
SOLUTION_PADDING = "    real = positions < lengths[:, None]  # (B, L): True where j < lengths[b]\n"
SOLUTION_SDPA_MASK = "        scores = scores.masked_fill(~mask, float(\"-inf\"))  # -inf where NOT allowed"

MISCONCEPTIONS = (
    Misconception(
        "mask-inverted", (4, 5),
        "Your mask is the wrong way round: True means 'may attend' (the future and the padding are False), "
        "and -inf goes where the mask is False, masked_fill(~mask, -inf): see " + MASKING,
        ({"causal_mask": lambda self, L, device=None: ~ref.causal_mask(L),
          "padding_mask": lambda self, lengths, L: ~ref.padding_mask(lengths, L)},
         {"apply_mask": lambda self, scores, mask: scores.masked_fill(mask, float("-inf"))}),
        {4: [(SOLUTION_CAUSAL, SOLUTION_CAUSAL.replace("torch.tril(", "~torch.tril("))],
         5: [(SOLUTION_SDPA_MASK, SOLUTION_SDPA_MASK.replace("(~mask", "(mask"))]},
    ),
    Misconception(
        "mask-excludes-diagonal", (4,),
        "Your causal mask leaves out the diagonal: token i may always read itself (torch.tril with "
        "diagonal=0), which also keeps a finite score in every row: see " + MASKING,
        ({"causal_mask": lambda self, L, device=None: ref.causal_mask(L).tril(diagonal=-1)},),
        {4: [(SOLUTION_CAUSAL, SOLUTION_CAUSAL.replace("device=device))", "device=device), diagonal=-1)"))]},
    ),
    Misconception(
        "mask-upper-triangle", (4,),
        "Your causal mask is the upper triangle: row i is query i, and it may see keys 0..i, on and below "
        "the diagonal (torch.tril), not on and above it (torch.triu): see " + MASKING,
        ({"causal_mask": lambda self, L, device=None: ref.causal_mask(L).T.contiguous()},),
        {4: [(SOLUTION_CAUSAL, SOLUTION_CAUSAL.replace("torch.tril(", "torch.triu("))]},
    ),
    Misconception(
        "causal-mask-missing", (4, 6, 7, 8),
        "Your attention is not causal: token i reads the tokens after it; a causal mask is True only for "
        "keys j <= i (torch.tril), and with mask=None a module attends with causal_mask(L): see " + MASKING,
        ({"causal_mask": lambda self, L, device=None: torch.ones(L, L, dtype=torch.bool),
          "decode_mask": lambda self, T_new, past: torch.ones(T_new, past + T_new, dtype=torch.bool)},),
        {4: [(SOLUTION_CAUSAL, "    return torch.ones(L, L, dtype=torch.bool, device=device)\n    # END")],
         6: [(SOLUTION_MHA_MASK, "        y, _ = scaled_dot_product_attention(q, k, v, mask)\n")]},
    ),
    Misconception(
        "mask-ignored", (4, 5),
        "The mask you were given changes nothing: every score where it is False must become -inf before the "
        "softmax: see " + MASKING,
        ({"apply_mask": lambda self, scores, mask: torch.broadcast_tensors(scores, mask)[0].clone()},),
        {4: [(SOLUTION_APPLY, "    return scores.clone()\n")]},
    ),
    Misconception(
        "mask-fill-zero", (4, 5),
        "You set masked scores to 0 (or multiplied by the mask): e^0 = 1, so a masked key still gets weight; "
        "masked scores must be -inf, since e^-inf = 0: see " + MASKING,
        (masked_fill_with(0.0),),
        {4: [(SOLUTION_APPLY, "    return scores * mask\n")]},
    ),
    Misconception(
        "mask-fill-finite", (4, 5),
        "You filled masked scores with a large finite number instead of -inf: a row whose every key is masked "
        "then softmaxes to equal weights over keys it must not see (and -1e9 does not even fit in float16); "
        "fill with float('-inf'): see " + MASKING,
        tuple(masked_fill_with(value) for value in (-1e4, -1e5, -1e6, -1e8, -1e9, -1e10, -1e12, -1e20, -1e30,
                                         lambda dtype: torch.finfo(dtype).min)),
        {4: [(SOLUTION_APPLY, SOLUTION_APPLY.replace('float("-inf")', "-1e9"))]},
    ),
    Misconception(
        "padding-mask-missing-query-axis", (4,),
        "Your padding mask is (B, L): add the query axis, mask[:, None, :], so that it is (B, 1, L) and "
        "broadcasts over every query of the scores (B, L_q, L): see " + MASKING,
        ({"padding_mask": lambda self, lengths, L: ref.padding_mask(lengths, L)[:, 0, :]},),
        {4: [("    return real[:, None, :]", "    return real")]},
    ),
    Misconception(
        "padding-mask-masks-queries", (4,),
        "Your padding mask is (B, L, 1), which masks queries; padding is about keys: the mask is (B, 1, L), the "
        "same real keys for every query of sequence b: see " + MASKING,
        ({"padding_mask": lambda self, lengths, L: ref.padding_mask(lengths, L).transpose(-2, -1)},),
        {4: [("    return real[:, None, :]", "    return real[:, :, None]")]},
    ),
    Misconception(
        "padding-off-by-one", (4,),
        "Key j is real when j < lengths[b], not j <= lengths[b]: a length of 3 means keys 0, 1 and 2: see "
        + MASKING,
        ({"padding_mask": lambda self, lengths, L: ref.padding_mask(lengths + 1, L)},),
        {4: [(SOLUTION_PADDING, SOLUTION_PADDING.replace("positions < lengths", "positions <= lengths"))]},
    ),
)
