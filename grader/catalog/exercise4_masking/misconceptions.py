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
        principle="A mask says where attention is allowed: True means 'may attend' (the past, the real tokens) and "
                  "False means hidden (the future, the padding). In yours, the allowed and the hidden pairs swap "
                  "places. Reread " + MASKING + ".",
        cause="Your mask is inverted: it is True where attention must be hidden (or you hid the scores where the "
              "mask is True, not where it is False).",
    ),
    Misconception(
        "mask-excludes-diagonal", (4,),
        "Your causal mask leaves out the diagonal: token i may always read itself (torch.tril with "
        "diagonal=0), which also keeps a finite score in every row: see " + MASKING,
        ({"causal_mask": lambda self, L, device=None: ref.causal_mask(L).tril(diagonal=-1)},),
        {4: [(SOLUTION_CAUSAL, SOLUTION_CAUSAL.replace("device=device))", "device=device), diagonal=-1)"))]},
        principle="A token may always read itself: query i sees keys 0 .. i, the diagonal included, which also "
                  "guarantees every row at least one finite score. Yours hides the diagonal. Reread " + MASKING + ".",
        cause="Your causal mask stops one below the diagonal: query i sees keys 0 .. i-1 only, and query 0 sees "
              "nothing.",
    ),
    Misconception(
        "mask-upper-triangle", (4,),
        "Your causal mask is the upper triangle: row i is query i, and it may see keys 0..i, on and below "
        "the diagonal (torch.tril), not on and above it (torch.triu): see " + MASKING,
        ({"causal_mask": lambda self, L, device=None: ref.causal_mask(L).T.contiguous()},),
        {4: [(SOLUTION_CAUSAL, SOLUTION_CAUSAL.replace("torch.tril(", "torch.triu("))]},
        principle="In the mask, rows are queries and columns are keys: query i may see keys 0 .. i, the past, which "
                  "lie on and below the diagonal. Yours lets each query see its future instead. "
                  "Reread " + MASKING + ".",
        cause="Your causal mask is the upper triangle: query i sees keys i .. L-1, the future, not 0 .. i.",
    ),
    Misconception(
        "causal-mask-missing", (4, 6, 7, 8),
        "Your attention is not causal: token i reads the tokens after it; a causal mask is True only for "
        "keys j <= i (torch.tril), and with mask=None a module attends with causal_mask(L): see " + MASKING,
        ({"causal_mask": lambda self, L, device=None: torch.ones(L, L, dtype=torch.bool),
          "decode_mask": lambda self, T_new, past: torch.ones(T_new, past + T_new, dtype=torch.bool)},),
        {4: [(SOLUTION_CAUSAL, "    return torch.ones(L, L, dtype=torch.bool, device=device)\n    # END")],
         6: [(SOLUTION_MHA_MASK, "        y, _ = scaled_dot_product_attention(q, k, v, mask)\n")]},
        principle="A language model is trained to predict the next token, so token i may read only tokens 0 .. i: if "
                  "it can see the ones after it, it learns to copy the answer from the future. In yours, token i "
                  "reads the tokens after it. Reread " + MASKING + ".",
        cause="Your attention is not causal: every query sees every key (no causal mask is applied, or yours allows "
              "all).",
    ),
    Misconception(
        "mask-ignored", (4, 5),
        "The mask you were given changes nothing: every score where it is False must become -inf before the "
        "softmax: see " + MASKING,
        ({"apply_mask": lambda self, scores, mask: torch.broadcast_tensors(scores, mask)[0].clone()},),
        {4: [(SOLUTION_APPLY, "    return scores.clone()\n")]},
        principle="A mask hides keys: a query must put exactly zero weight on every key its mask hides, and the "
                  "weights it keeps still sum to 1. In yours, the scores come out as if there were no mask at all. "
                  "Reread " + MASKING + ".",
        cause="You returned the scores without applying the mask: the hidden scores are unchanged.",
    ),
    Misconception(
        "mask-fill-zero", (4, 5),
        "You set masked scores to 0 (or multiplied by the mask): e^0 = 1, so a masked key still gets weight; "
        "masked scores must be -inf, since e^-inf = 0: see " + MASKING,
        (masked_fill_with(0.0),),
        {4: [(SOLUTION_APPLY, "    return scores * mask\n")]},
        principle="After the softmax a hidden key must weigh exactly nothing, and the softmax gives each score s a "
                  "weight proportional to e^s: a score of 0 weighs e^0 = 1, as much as any visible key scoring 0. In "
                  "yours, hidden keys keep their weight. Reread " + MASKING + ".",
        cause="You set the masked scores to 0 (or multiplied the scores by the mask), so each hidden key still gets "
              "e^0 = 1.",
    ),
    Misconception(
        "mask-fill-finite", (4, 5),
        "You filled masked scores with a large finite number (or added one to them) instead of -inf: a row whose "
        "every key is masked then softmaxes to equal weights over keys it must not see (and -1e9 does not even fit "
        "in float16); fill with float('-inf'): see " + MASKING,
        tuple(masked_fill_with(value, added) for added in (False, True)
              for value in (-1e4, -1e5, -1e6, -1e8, -1e9, -1e10, -1e12, -1e20, -1e30, lambda dtype: torch.finfo(dtype).min)),
        {4: [(SOLUTION_APPLY, SOLUTION_APPLY.replace('float("-inf")', "-1e9"))]},
        principle="A hidden key must get exactly zero weight in every row and every dtype, even in a row whose every "
                  "key is hidden: a large finite score is only small next to the others, and alone in its row it "
                  "becomes an equal share. In yours, a fully hidden row spreads its weight over keys it must not "
                  "see. Reread " + MASKING + ".",
        cause="You filled the masked scores with a large finite number (such as -1e9), or added one to them, which is "
              "not -∞: a fully masked row softmaxes to equal weights, and the number may not even fit in float16.",
    ),
    Misconception(
        "padding-mask-missing-query-axis", (4,),
        "Your padding mask is (B, L): add the query axis, mask[:, None, :], so that it is (B, 1, L) and "
        "broadcasts over every query of the scores (B, L_q, L): see " + MASKING,
        ({"padding_mask": lambda self, lengths, L: ref.padding_mask(lengths, L)[:, 0, :]},),
        {4: [("    return real[:, None, :]", "    return real")]},
        principle="A mask lines up with the scores (B, L_q, L_k) from the right, as broadcasting does: padding hides "
                  "the same keys from every query of a sequence, so the mask needs an axis for the queries between "
                  "the batch and the keys, even though it is the same for every query. In yours, the batch axis "
                  "lines up with the queries. Reread " + MASKING + ".",
        cause="Your padding mask is (B, L), with no query axis: against scores (B, L_q, L) its batch axis lands on "
              "the queries.",
    ),
    Misconception(
        "padding-mask-masks-queries", (4,),
        "Your padding mask is (B, L, 1), which masks queries; padding is about keys: the mask is (B, 1, L), the "
        "same real keys for every query of sequence b: see " + MASKING,
        ({"padding_mask": lambda self, lengths, L: ref.padding_mask(lengths, L).transpose(-2, -1)},),
        {4: [("    return real[:, None, :]", "    return real[:, :, None]")]},
        principle="Padding hides keys, not queries: every query of sequence b, padding or real, may read only the "
                  "real keys of b, so the mask changes along the keys and is the same for every query. Yours changes "
                  "along the queries. Reread " + MASKING + ".",
        cause="Your padding mask is (B, L, 1): it hides whole rows, the padding queries, instead of the padding "
              "keys.",
    ),
    Misconception(
        "padding-off-by-one", (4,),
        "Key j is real when j < lengths[b], not j <= lengths[b]: a length of 3 means keys 0, 1 and 2: see "
        + MASKING,
        ({"padding_mask": lambda self, lengths, L: ref.padding_mask(lengths + 1, L)},),
        {4: [(SOLUTION_PADDING, SOLUTION_PADDING.replace("positions < lengths", "positions <= lengths"))]},
        principle="Positions count from 0: a sequence of length n has its real tokens at positions 0 .. n-1, and "
                  "position n is already padding. Yours lets one padding key through. Reread " + MASKING + ".",
        cause="Your padding mask keeps key j when j ≤ lengths[b]: one key too many in every sequence.",
    ),
)
