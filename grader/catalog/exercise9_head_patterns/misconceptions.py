"""Exercise 9: the misconceptions first seen in this exercise (see grader/diagnosis/mutants.py).

In catalogue order: the first one named decides an "either … or" diagnosis. `edits` turn the
instructor's solution of each exercise into a student file making the mistake."""

import torch.nn.functional as F

from grader.diagnosis.mutants import Misconception, HEADS, INDUCTION, PICTURES, PREVIOUS, in_one_or_both

# causes the suites' messages name themselves (no value shows them), and level 1 of their hint ladder
TOKEN_RULES = "repeated-tokens-rules"
TOKEN_DTYPE = "token-ids-dtype"
SHAPES_NOT_REFUSED = "bad-shapes-not-refused"
AT_THE_THRESHOLD = "head-at-the-threshold"
HEADS_NOT_INTS = "heads-not-ints"
CAUSES = {
    HEADS_NOT_INTS: "A head is named by two plain numbers, its layer and its place in the layer, which any caller "
                    "can print, compare and use to pick that head again. Yours names some by tensors. "
                    "Reread " + HEADS + ".",
    TOKEN_RULES: "An induction head is found by showing the model a random sequence twice: random token ids from the "
                 "whole vocabulary, then the very same ids again, drawn with the random source the caller hands over, "
                 "so that one seed always gives the same test. In the second half a head can find the earlier copy and "
                 "read the token after it. Yours breaks one of these rules. Reread " + INDUCTION + ".",
    TOKEN_DTYPE: "Token ids are not amounts but indices: each one picks a row of the embedding table, and tables are "
                 "indexed with 64-bit integers, the type random integers are drawn in by default. Yours makes them "
                 "in another integer type. Reread " + INDUCTION + ".",
    SHAPES_NOT_REFUSED: "A score is only meaningful for the pattern it was designed for: a function handed a pattern "
                        "of the wrong shape must refuse it at once, with an error that says what is wrong, as its "
                        "docstring promises; computing on gives a number that looks like an answer and is not. Yours "
                        "does not refuse such a pattern. Reread " + HEADS + ".",
    AT_THE_THRESHOLD: "A threshold is a line, and a line needs a rule for what sits exactly on it: the docstring says "
                      "a head counts only when its score is above the threshold, so a score equal to it falls on the "
                      "side that does not count. Yours counts it. Reread " + PREVIOUS + ".",
}

# lines of the solutions that the edits below rewrite
SOLUTION_INDUCTION_MEAN = "    return stripe[..., 1:].mean(dim=(0, 2))  # (H,): queries T .. 2T-1, the second half"
SOLUTION_PREVIOUS = "    below = pattern.diagonal(offset=-1, dim1=-2, dim2=-1)  #"
SOLUTION_PREVIOUS_MEAN = "    return below.mean(dim=(0, 2))  # (H,)"
SOLUTION_STRIPE = "    stripe = pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)  #"

MISCONCEPTIONS = (
    Misconception(
        "previous-token-reads-self", (9,),
        "Your previous-token score reads the main diagonal, key i, the query's own token: the previous "
        "token of query i is key i-1, the diagonal just below, pattern.diagonal(offset=-1, dim1=-2, dim2=-1): "
        "see " + PREVIOUS,
        ({"previous_token_weights": lambda self, pattern: pattern.diagonal(dim1=-2, dim2=-1)},
         {"previous_token_weights": lambda self, pattern: pattern.diagonal(dim1=-2, dim2=-1)[..., 1:]}),
        {9: [(SOLUTION_PREVIOUS, "    below = pattern.diagonal(dim1=-2, dim2=-1)  #")]},
        principle="A previous-token head puts its weight on the token immediately before the query: query i, key "
                  "i-1, the bright sub-diagonal of its pattern. Yours reads the query's own token. "
                  "Reread " + PREVIOUS + ".",
        cause="Your previous-token score reads the main diagonal: key i for query i, the query's own token.",
    ),
    Misconception(
        "previous-token-reads-next", (9,),
        "Your previous-token score reads key i+1, above the diagonal, where a causal pattern is 0: a "
        "positive offset is above the diagonal; key i-1 from query i is offset=-1: see " + PREVIOUS,
        ({"previous_token_weights": lambda self, pattern: pattern.diagonal(offset=1, dim1=-2, dim2=-1)},),
        {9: [(SOLUTION_PREVIOUS, SOLUTION_PREVIOUS.replace("offset=-1", "offset=1"))]},
        principle="A previous-token head's weight sits just below the diagonal (query i, key i-1); above the "
                  "diagonal lies the future, where a causal pattern is 0. Yours reads above it. "
                  "Reread " + PREVIOUS + ".",
        cause="Your previous-token score reads key i+1 for query i, the diagonal just above the main one.",
    ),
    Misconception(
        "previous-token-counts-query-0", (9,),
        "Your previous-token score also counts query 0, which has no previous token (its weight on key -1 "
        "is 0), so it comes out (L-1)/L of the right one: average over the queries i = 1 .. L-1 only: see "
        + PREVIOUS,
        ({"previous_token_weights": lambda self, pattern: F.pad(pattern.diagonal(offset=-1, dim1=-2, dim2=-1),
                                                                (1, 0))},),
        {9: [(SOLUTION_PREVIOUS_MEAN, "    return below.sum(dim=(0, 2)) / (pattern.size(0) * pattern.size(-1))")]},
        principle="A score measures how much the queries that could do the job do it: the first token has no "
                  "previous token, so it can neither succeed nor fail, and a perfect previous-token head scores "
                  "exactly 1. Yours scores a perfect head below 1. Reread " + PREVIOUS + ".",
        cause="Your previous-token score also counts query 0, which has no previous token, so a perfect head scores "
              "(L-1)/L.",
    ),
    Misconception(
        "induction-offset-off-by-one", (9,),
        "Your induction score reads key i - seq_len, the earlier copy of the query's own token: an induction "
        "head reads the token AFTER it, key i - seq_len + 1, to predict what comes next: see " + INDUCTION,
        ({"induction_weights": lambda self, pattern, seq_len: pattern.diagonal(offset=-seq_len, dim1=-2, dim2=-1)},),
        {9: [(SOLUTION_STRIPE, SOLUTION_STRIPE.replace("offset=1 - seq_len", "offset=-seq_len")),
             (SOLUTION_INDUCTION_MEAN, "    return stripe.mean(dim=(0, 2))  # (H,)")]},
        principle="An induction head on the second copy of a token attends to the token that came AFTER its first "
                  "copy, and copies it forward to predict what comes next. Yours reads the first copy itself. "
                  "Reread " + INDUCTION + ".",
        cause="Your induction score reads key i - seq_len, the earlier copy of the query's own token: one key too "
              "early.",
    ),
    Misconception(
        "induction-counts-first-half", (9,),
        "Your induction score also counts queries of the first half, which have no earlier copy of their "
        "token (the full diagonal offset=1-seq_len starts at query seq_len-1, on key 0): average over the "
        "second half only, queries seq_len .. 2*seq_len-1: see " + INDUCTION,
        ({"induction_weights": lambda self, pattern, seq_len: pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)},
         {"induction_weights": lambda self, pattern, seq_len: F.pad(
             pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)[..., 1:], (seq_len, 0))}),
        {9: [(SOLUTION_INDUCTION_MEAN, "    return stripe.mean(dim=(0, 2))  # (H,)")]},
        principle="In a sequence repeated twice, only the tokens of the second copy have an earlier copy to look "
                  "back at: the first half cannot show induction, and a perfect induction head scores exactly 1. "
                  "Yours scores a perfect head lower. Reread " + INDUCTION + ".",
        cause="Your induction score also counts the queries of the first half, which have no earlier copy of their "
              "token.",
    ),
    Misconception(
        "diagonal-of-the-wrong-dims", (9,),
        "torch.diagonal(pattern, offset) takes its diagonal across dims 0 and 1, the batch and the heads, "
        "unless told otherwise: a pattern's queries and keys are its last two dims, so pass dim1=-2, dim2=-1: "
        "see " + PICTURES,
        ({"previous_token_weights": lambda self, pattern: pattern.diagonal(offset=-1)},
         {"induction_weights": lambda self, pattern, seq_len: pattern.diagonal(offset=1 - seq_len)[..., 1:]},
         {"previous_token_weights": lambda self, pattern: pattern.diagonal(offset=-1),
          "induction_weights": lambda self, pattern, seq_len: pattern.diagonal(offset=1 - seq_len)[..., 1:]}),
        {9: [(SOLUTION_PREVIOUS, "    below = pattern.diagonal(offset=-1)  #")]},
        principle="An attention pattern is a picture whose rows are queries and columns are keys, the last two axes "
                  "of (B, H, L, L): a stripe such as the sub-diagonal runs across those two axes, for every sequence "
                  "and every head. Yours takes its stripe across the batch and the heads. Reread " + PICTURES + ".",
        cause="You took the diagonal over dims 0 and 1 (the batch and the heads), the default when no dims are "
              "named.",
    ),
    Misconception(
        "score-averaged-over-wrong-axes", (9,),
        "Your score does not average over the right axes: a pattern is (B, H, L, L), and a score keeps one "
        "number per head, the mean over every sequence of the batch (dim 0) and every query counted, (H,): "
        "see " + HEADS,
        in_one_or_both(lambda weights: weights.mean(dim=(1, 2)))
        + in_one_or_both(lambda weights: weights.mean(dim=-1))
        + in_one_or_both(lambda weights: weights.mean(dim=(0, 1)))
        + in_one_or_both(lambda weights: weights.mean())
        + in_one_or_both(lambda weights: weights[0].mean(dim=-1)),
        {9: [(SOLUTION_PREVIOUS_MEAN, "    return below.mean(dim=-1)"),
             (SOLUTION_INDUCTION_MEAN, "    return stripe[..., 1:].mean(dim=-1)")]},
        principle="A head's score describes the head: one number per head, the same whichever sequence or query you "
                  "look at, so everything but the heads is averaged away. In yours, what is left is not one number "
                  "per head, or it mixes the heads. Reread " + HEADS + ".",
        cause="You averaged over the wrong axes: over the heads too, over the queries only, or over everything at "
              "once.",
    ),
    Misconception(
        "score-summed-not-averaged", (9,),
        "Your score is a sum of weights, not their mean, so it grows with the batch and the length: divide by "
        "how many weights you added (B times the queries counted), .mean(dim=(0, 2)): see " + HEADS,
        in_one_or_both(lambda weights: weights.sum(dim=(0, 2))),
        {9: [(SOLUTION_PREVIOUS_MEAN, "    return below.sum(dim=(0, 2))"),
             (SOLUTION_INDUCTION_MEAN, "    return stripe[..., 1:].sum(dim=(0, 2))")]},
        principle="A score must mean the same thing for any batch and any length: a head that always attends to the "
                  "previous token scores 1, for 2 sequences of 8 tokens as for 32 of 1000. Yours grows with the "
                  "batch and the length. Reread " + HEADS + ".",
        cause="You summed the weights instead of averaging them.",
    ),
    Misconception(
        "find-heads-head-layer-swapped", (9,),
        "Your heads are (head, layer): find_heads lists (layer, head) pairs, the layer first, as you would "
        "index patterns[layer][:, head]: see " + PICTURES,
        ({"head_label": lambda self, layer, head: (head, layer)},),
        {9: [("[(layer, head) for head in range(", "[(head, layer) for head in range(")]},
        principle="A head is named by its layer first, then by its place within that layer, the way a model's "
                  "patterns are kept, layer by layer. Yours names them the other way round. Reread " + PICTURES + ".",
        cause="Your pairs are (head, layer): the head's index first, then the layer's.",
    ),
)
