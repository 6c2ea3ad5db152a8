"""Exercise 5: the misconceptions first seen in this exercise (see grader/diagnosis/mutants.py).

In catalogue order: the first one named decides an "either … or" diagnosis. `edits` turn the
instructor's solution of each exercise into a student file making the mistake."""

import torch

import lumen_ref as ref
from grader.diagnosis.mutants import Misconception, MASKING, SCALE, SOFTMAX, softmax_dividing
from grader.catalog.exercise4_masking.misconceptions import SOLUTION_SDPA_MASK

# a NaN gradient where the float64 oracle's is finite, through a fully masked row: a cause the failing
# message names itself (grader.grading.testkit.check_gradients), not a catalogue entry, since the
# mutants are replayed forward only and the forward values of this mistake are right
NAN_GRADIENT = "nan-gradient-on-masked-row"

# level 1 of the hint ladder (grader.diagnosis.hints) for the causes this exercise's suites name
CAUSES = {
    NAN_GRADIENT: "A query that may see no key must get zero weights, a zero output and zero gradients. The "
                  "backward pass goes back through every step the forward pass took, even one whose result was "
                  "dropped afterwards: a step that divides by a sum of zero (or nearly zero), or makes a NaN that is "
                  "hidden later, makes the gradient infinite or NaN, and it spreads to every weight that learns. "
                  "Reread " + MASKING + ".",
}



def _shifted_by_last_axis_max(self, x, dim=-1):
    """A softmax along dim shifted by the max of the last axis, not of the slice along dim."""
    x_max = x.amax(dim=-1, keepdim=True)
    e = torch.exp(x - x_max.masked_fill(x_max == float("-inf"), 0.0))
    total = e.sum(dim=dim, keepdim=True)
    return e / total.masked_fill(total == 0, 1.0)


MISCONCEPTIONS = (
    Misconception(
        "mask-after-softmax", (5,),
        "You masked the weights after the softmax, so the rows no longer sum to 1: set the masked scores to "
        "-inf before the softmax: see " + MASKING,
        ({"attention_weights": lambda self, scores, mask: self.softmax(scores, dim=-1) if mask is None
          else self.softmax(scores, dim=-1).masked_fill(~mask, 0.0)},),
        {5: [(SOLUTION_SDPA_MASK, "        pass  # masked after the softmax instead"),
             ("    weights = softmax(scores, dim=-1)  #", "    weights = softmax(scores, dim=-1) if mask is None else "
              "softmax(scores, dim=-1).masked_fill(~mask, 0.0)  #")]},
        principle="Each query's weights over the keys it may see sum to 1: hiding a key takes its share away and "
                  "gives it to the visible keys. In yours, the hidden keys' share is simply lost, so masked rows sum "
                  "to less than 1. Reread " + MASKING + ".",
        cause="You zeroed the masked weights after the softmax: the visible keys keep the weights they had with "
              "every key present.",
    ),
    Misconception(
        "softmax-wrong-dim", (5,),
        "Your weights sum to 1 over the queries (dim=-2): each query's row must sum to 1 over the keys, "
        "softmax(scores, dim=-1): see " + SOFTMAX,
        ({"attention_weights": lambda self, scores, mask: self.softmax(
            scores if mask is None else self.apply_mask(scores, mask), dim=-2)},),
        {5: [("    weights = softmax(scores, dim=-1)  #", "    weights = softmax(scores, dim=-2)  #")]},
        principle="Each query reads a blend of the values, so each query's row of weights, one weight per key, sums "
                  "to 1. In yours, the columns sum to 1: each key's weights over the queries. Reread " + SOFTMAX + ".",
        cause="You normalised over the queries (dim -2), not over the keys: your columns sum to 1, not your rows.",
    ),
    Misconception(
        "softmax-ignores-dim", (5,),
        "Your softmax always normalises the last axis: use its `dim` argument for the max and the sum: see "
        + SOFTMAX,
        ({"softmax": lambda self, x, dim=-1: ref.softmax(x, dim=-1)},),
        {5: [("    x_max = x.amax(dim=dim, keepdim=True)", "    x_max = x.amax(dim=-1, keepdim=True)"),
             ("    total = e.sum(dim=dim, keepdim=True)", "    total = e.sum(dim=-1, keepdim=True)")]},
        principle="A softmax normalises along the axis it is asked for: the max and the sum run along that axis "
                  "only, so that each slice along it sums to 1. In yours, a softmax asked for another axis does not "
                  "sum to 1 along it. Reread " + SOFTMAX + ".",
        cause="Your softmax takes its max and its sum over the last axis, whatever dim it is given.",
    ),
    Misconception(
        "softmax-max-over-last-axis", (5,),
        "Your softmax subtracts the max of the last axis but sums along `dim`: along another dim the entries of one "
        "slice are then shifted by different numbers, which changes their weights; take the max along dim too, "
        "x.amax(dim=dim, keepdim=True): see " + SOFTMAX,
        ({"softmax": _shifted_by_last_axis_max},),
        {5: [("    x_max = x.amax(dim=dim, keepdim=True)", "    x_max = x.amax(dim=-1, keepdim=True)")]},
        principle="Subtracting a number before the exponentials leaves a softmax unchanged only when every entry of "
                  "the slice being normalised is shifted by the same number, the slice's own largest entry, taken "
                  "along the axis asked for. In yours, a softmax asked for another axis shifts the entries of one "
                  "slice by different numbers. Reread " + SOFTMAX + ".",
        cause="Your softmax takes its max over the last axis but its sum over dim, so for any other dim one slice's "
              "entries are shifted by different maxima.",
    ),
    Misconception(
        "softmax-unstable", (5,),
        "Your softmax is not stable: e^x overflows to inf for large scores and inf / inf is NaN; subtract each "
        "row's max before torch.exp (it cancels out), and give a row of only -inf zeros, not 0/0: see " + SOFTMAX,
        (softmax_dividing(shift=False, guard=False), softmax_dividing(shift=False, guard=True)),
        {5: [("    e = torch.exp(x - x_max)", "    e = torch.exp(x)")]},
        includes=("softmax-nan-on-masked-row",),
        principle="A softmax must give finite weights that sum to 1 for any scores, large ones too: e^x overflows to "
                  "infinity above about 88 in float32, and ∞/∞ is NaN. In yours, large scores give NaN. "
                  "Reread " + SOFTMAX + ".",
        cause="You exponentiated the scores as they are, e^x, so a large score overflows to inf and its row becomes "
              "NaN.",
    ),
    Misconception(
        "softmax-nan-on-masked-row", (5, 6, 7),
        "A row whose every key is masked comes out NaN (-inf - (-inf), then 0/0): it must give zero weights "
        "and a zero output; shift by 0 where the max is -inf and divide by 1 where the sum is 0 (in exercises 6 and "
        "7, the scaled_dot_product_attention they give you does both): see " + MASKING,
        (softmax_dividing(shift=True, guard=False),),
        {5: [("    x_max = x_max.masked_fill(x_max == float(\"-inf\"), 0.0)", "    pass"),
             ("    return e / total.masked_fill(total == 0, 1.0)", "    return e / total")],
         7: [("        weights = weights.masked_fill(~mask, 0.0)", "        pass")]},
        principle="A query that may see no key at all (a row of only -∞, as padding can leave) must get zero weights "
                  "and a zero output: a NaN there spreads to every later layer and every gradient. The chapter calls "
                  "it a classic padding bug; yours has it. Reread " + MASKING + ".",
        cause="On a row of only -inf the softmax you call (your own, or torch.softmax) computes -inf - (-inf), then "
              "0/0, so that row comes out NaN.",
    ),
    Misconception(
        "scaled-by-value-width", (5, 10),
        "You scale the scores by the square root of the values' width, v.size(-1); a score is the dot product of "
        "a query and a key, so divide by √d_k with d_k = q.size(-1): see " + SCALE,
        ({"score_width": lambda self, q, v: v.size(-1)},),
        {5: [("    d_k = q.size(-1)\n", "    d_k = v.size(-1)\n")],
         10: [("math.sqrt(q.size(-1))  # (..., L_q, b) one block", "math.sqrt(v.size(-1))  # (..., L_q, b) one block")]},
        principle="The scale undoes the spread of a dot product, and a score is the dot product of a query and a key: "
                  "its spread grows with their width, d_k. The values take no part in a score. Yours scales by "
                  "another width. Reread " + SCALE + ".",
        cause="You scale the scores by the square root of the values' width, d_v = v.size(-1), not of the queries' "
              "and keys' width, d_k.",
    ),
)
