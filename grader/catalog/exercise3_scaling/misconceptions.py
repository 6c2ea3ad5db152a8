"""Exercise 3: the misconceptions first seen in this exercise (see grader/diagnosis/mutants.py).

In catalogue order: the first one named decides an "either … or" diagnosis. `edits` turn the
instructor's solution of each exercise into a student file making the mistake."""

import math

from grader.diagnosis.mutants import Misconception, SCALE

# lines of the solutions that the edits below rewrite
SOLUTION_SDPA_SCORES = "    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # steps 2 + 3: (..., L_q, L_k)\n"
SOLUTION_TILED_SCORES = "        s = q @ k_block.transpose(-2, -1) / math.sqrt(q.size(-1))"

MISCONCEPTIONS = (
    Misconception(
        "missing-scale", (3, 5, 6, 7, 8, 10),
        "Your scores are not scaled: divide Q Kᵀ by √d_k before the softmax, or wide heads make the softmax a "
        "hard argmax: see " + SCALE,
        ({"scale_scores": lambda self, scores, d_k: scores},),
        {3: [("    return scores / math.sqrt(d_k)", "    return scores")],
         5: [(SOLUTION_SDPA_SCORES, "    scores = q @ k.transpose(-2, -1)\n")],
         10: [(SOLUTION_TILED_SCORES, "        s = q @ k_block.transpose(-2, -1)")]},
        principle="Raw dot products of width d_k spread about √d_k around 0, so in wide heads the gaps between "
                  "scores become huge and the softmax turns into a hard argmax that cannot learn; the scaling step "
                  "brings the spread back to about 1 at every width. In yours, the spread still grows with the "
                  "width. Reread " + SCALE + ".",
        cause="You left the scores unscaled: Q Kᵀ goes on to the softmax as it is.",
    ),
    Misconception(
        "scale-by-dk", (3, 5, 10),
        "You divided by d_k, not √d_k: see " + SCALE,
        ({"scale_scores": lambda self, scores, d_k: scores / d_k},),
        {3: [("    return scores / math.sqrt(d_k)", "    return scores / d_k")],
         5: [(SOLUTION_SDPA_SCORES, "    scores = q @ k.transpose(-2, -1) / d_k\n")]},
        principle="A dot product of width d_k has variance d_k; the scaling step must bring the scores' spread, their "
                  "standard deviation, back to about 1 at every width. Yours overshoots: wide heads' scores shrink "
                  "towards 0, and their weights towards uniform. Reread " + SCALE + ".",
        cause="Your scores come out divided by d_k, the variance of a dot product of width d_k: by d_k itself, or "
              "by √d_k twice (a scaled function, then its caller scaling again).",
    ),
    Misconception(
        "scale-multiplied", (3, 5),
        "You multiplied the scores by √d_k instead of dividing: the scale must bring their spread down to "
        "about 1: see " + SCALE,
        ({"scale_scores": lambda self, scores, d_k: scores * math.sqrt(d_k)},),
        {3: [("    return scores / math.sqrt(d_k)", "    return scores * math.sqrt(d_k)")]},
        principle="Scaling must bring the scores' spread down to about 1: wider heads have larger dot products, so "
                  "the scale makes scores smaller, never larger. Yours makes them larger. Reread " + SCALE + ".",
        cause="You multiplied the scores by √d_k, so their spread grows to d_k and the softmax is closer still to a "
              "hard argmax.",
    ),
)
