"""Exercise 2: the misconceptions first seen in this exercise (see grader/diagnosis/mutants.py).

In catalogue order: the first one named decides an "either … or" diagnosis. `edits` turn the
instructor's solution of each exercise into a student file making the mistake."""

import math

import torch

import lumen_ref as ref
from grader.diagnosis.mutants import Misconception, WALKTHROUGH

MISCONCEPTIONS = (
    Misconception(
        "scores-shifted-by-row-max", (2,),
        "You subtracted each row's max from the scores, the softmax's trick for its exponentials: the scores "
        "themselves are the raw dot products, S = Q Kᵀ, and the softmax (Step 4) shifts what it needs: see "
        "'Step 2 — Score every key'",
        ({"attention_scores": lambda self, q, k: (lambda s: s - s.amax(dim=-1, keepdim=True))(
            q @ k.transpose(-2, -1))},),
        {2: [("    return q @ k.transpose(-2, -1)  #", "    s = q @ k.transpose(-2, -1)\n"
              "    return s - s.amax(dim=-1, keepdim=True)  #")]},
        principle="A score is one dot product, how well one query matches one key: the raw number, which later "
                  "steps scale and turn into weights. In yours, each query's row of scores is off by an amount "
                  "of its own, the same for every key. Reread 'Step 2 — Score every key'.",
        cause="You subtracted each row's largest score from the scores.",
    ),
    Misconception(
        "scores-transposed", (2, 3, 5),
        "You computed K Qᵀ: your row i is key i against every query, and row i of the scores is query i against "
        "every key, S = Q Kᵀ of shape (L_q, L_k) (with @: q times k transposed, not k times q transposed; with "
        "broadcasting: the queries along the rows, the keys along the columns): see 'Step 2 — Score every key'",
        ({"attention_scores": lambda self, q, k: k @ q.transpose(-2, -1)},),
        {2: [("    return q @ k.transpose(-2, -1)", "    return k @ q.transpose(-2, -1)")]},
        principle="The scores have one row per query: row i holds query i against every key, so S has shape (L_q, "
                  "L_k). In yours, the rows belong to the keys. Reread 'Step 2 — Score every key'.",
        cause="You computed K Qᵀ: your row i is key i against every query.",
    ),
    Misconception(
        "scores-transpose-all-dims", (2, 3, 5),
        "k.T reverses ALL of k's dims, the batch dims too: swap only the last two, k.transpose(-2, -1) "
        "(or k.mT): see " + WALKTHROUGH,
        ({"attention_scores": lambda self, q, k: q @ k.permute(*range(k.dim() - 1, -1, -1))},),
        {2: [("    return q @ k.transpose(-2, -1)", "    return q @ k.T")]},
        principle="Only k's last two axes are its positions and its features; the axes in front of them (batch, "
                  "heads) must stay where they are, so that the same code works with or without them. Yours moves "
                  "the batch axes too. Reread " + WALKTHROUGH + ".",
        cause="You transposed k with .T, which reverses all of its dims, the batch dims included, not only the last "
              "two.",
    ),
    Misconception(
        "scores-cosine", (2,),
        "Your scores are cosine similarities: you normalised q and k to unit length first, which throws away "
        "their lengths; a score is the plain dot product of a query and a key, S = Q Kᵀ, with no normalising: see "
        "'Step 2 — Score every key'",
        ({"attention_scores": lambda self, q, k: torch.nn.functional.normalize(q, dim=-1)
          @ torch.nn.functional.normalize(k, dim=-1).transpose(-2, -1)},),
        {2: [("    return q @ k.transpose(-2, -1)", "    return torch.nn.functional.normalize(q, dim=-1) @ "
              "torch.nn.functional.normalize(k, dim=-1).transpose(-2, -1)")]},
        principle="A score is the dot product of a query and a key, q · k: it grows with how far both point the same "
                  "way and with how long they are, and the model learns to use both. Yours keeps only the angle. "
                  "Reread 'Step 2 — Score every key'.",
        cause="You normalised the queries and keys to unit length before the product: your scores are cosine "
              "similarities, not dot products.",
    ),
    Misconception(
        "scores-prescaled", (2,),
        "attention_scores is Step 2, the raw S = Q Kᵀ; yours are already divided by √d_k, which is "
        "Step 3 (exercise 3): see 'Step 2 — Score every key'",
        ({"attention_scores": lambda self, q, k: ref.attention_scores(q, k) / math.sqrt(q.size(-1))},),
        {2: [("    return q @ k.transpose(-2, -1)", "    return q @ k.transpose(-2, -1) / q.size(-1) ** 0.5")]},
        principle="Each step of the chapter does one thing: Step 2 scores every key with a raw dot product, and "
                  "scaling is Step 3, a separate function. Yours does Step 3 here too. Reread 'Step 2 — Score every "
                  "key'.",
        cause="Your scores are already divided by √d_k: you scaled in the scoring step.",
    ),
)
