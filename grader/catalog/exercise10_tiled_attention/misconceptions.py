"""Exercise 10: the misconceptions first seen in this exercise (see grader/diagnosis/mutants.py).

In catalogue order: the first one named decides an "either … or" diagnosis. `edits` turn the
instructor's solution of each exercise into a student file making the mistake."""

import torch

from grader.diagnosis.mutants import Misconception, CACHE, COST, MASKING, stale_online_softmax, student_exp

def _kept_after_masked_block(reference, block, m_old, m_new):
    """(rescale, e^(block - m_new)) with the rescale e^(m_old - m_new) taken as 1 where m_old is -inf."""
    shift = reference.exponent_shift(m_new)
    old = torch.where(torch.isneginf(m_old), shift, m_old)
    return reference.exp(old - shift), reference.exp(block - shift)


# the rescale factor upside down, e^(m_new - m_old), in one function or both: unguarded (e^(+inf) on the first
# block), the first block's factor guarded to 0, or its -inf max shifted by 0 as the running max is
_INVERTED_RESCALES = (
    lambda self, block, m_old, m_new: (self.exp(self.exponent_shift(m_new) - m_old),
                                       self.exp(block - self.exponent_shift(m_new))),
    lambda self, block, m_old, m_new: (
        torch.where(torch.isneginf(m_old), torch.zeros_like(m_old), self.exp(m_new - m_old)),
        self.exp(block - self.exponent_shift(m_new))),
    lambda self, block, m_old, m_new: (self.exp(self.exponent_shift(m_new) - self.exponent_shift(m_old)),
                                       self.exp(block - self.exponent_shift(m_new))),
)

# causes the suites' messages name themselves (no value shows them), and level 1 of their hint ladder
COST_NOT_INT = "cost-not-whole"
COST_ONE_PRODUCT = "cost-one-product"
COST_MULTIPLY_ADDS = "cost-multiply-adds"
COST_TERM_HALVED = "cost-term-halved"
CROSSOVER_ONE_TERM = "crossover-one-linear-term"
WHOLE_MATRIX = "tiled-holds-whole-matrix"
KEYS_NOT_BLOCKED = "tiled-keys-not-in-blocks"
ONLINE_NOT_BLOCKED = "online-softmax-not-in-blocks"
CAUSES = {
    COST_MULTIPLY_ADDS: "A FLOP is one multiplication or one addition, and a matrix product does both for every term "
                        "it sums: an (n, k) by (k, m) product is n·k·m multiply-adds, twice as many FLOPs. Yours "
                        "comes out at half the chapter's count, in every term. Reread " + COST + ".",
    COST_TERM_HALVED: "Each term of the cost counts every matrix product it does, and an (n, k) by (k, m) product is "
                      "n·k·m multiply-adds, twice as many FLOPs: the projections are four products of L·d·d, the "
                      "feed-forward block two of L·d·4d (d -> 4d -> d). Yours comes out at half the chapter's count in "
                      "a term where the others are right: a product left out of it, or its multiply-adds counted as "
                      "one FLOP each. Reread " + COST + ".",
    CROSSOVER_ONE_TERM: "The crossover is where attention's quadratic term catches up with everything else in the layer "
                        "that grows only like L: the four projections and the feed-forward block together. Yours "
                        "weighs it against only one of the two. Reread " + COST + ".",
    COST_ONE_PRODUCT: "Attention does an (L, L) matrix's worth of work twice: once to score every query against "
                      "every key, S = Q Kᵀ, and once to mix the values with the weights, A V, two products of the "
                      "same size. Yours counts only one of the two. Reread " + COST + ".",
    COST_NOT_INT: "A count of operations is a whole number, and Python's integers hold whole numbers exactly at any "
                  "size; a floating-point number keeps only about 16 significant digits, so a long context's count "
                  "comes back rounded, and even a small one prints with a decimal point. Yours comes back as a "
                  "floating-point number. Reread " + COST + ".",
    WHOLE_MATRIX: "The point of tiled attention is memory: the score matrix holds L² numbers for each head, which at "
                  "long contexts does not fit, while the online softmax needs only one block of keys and its scores "
                  "at a time, so memory grows like L, not L². Yours still holds something as large as the whole "
                  "matrix. Reread " + COST + ".",
    KEYS_NOT_BLOCKED: "Tiled attention walks through the keys one block at a time, carrying each query's running max, "
                      "sum and output from block to block: the block size sets how many keys it reads at once and so "
                      "how much memory one step holds. Yours does the same work whatever block size it is given: "
                      "it does not read the keys in blocks of that size. Reread " + COST + ".",
    ONLINE_NOT_BLOCKED: "The online softmax is the one-pass softmax that tiled attention needs: it reads a row one block "
                        "at a time, keeping only a running max and a running sum, rescaled whenever a block raises the "
                        "max. Yours does the same work whatever block size it is given: it reads each row whole. "
                        "Reread " + COST + ".",
}

# lines of the solutions that the edits below rewrite
SOLUTION_ONLINE_SUM = "        l = l * torch.exp(m - shift) + torch.exp(block - shift).sum(dim=-1, keepdim=True)"
SOLUTION_TILED_OUTPUT = "        o = o * rescale + p @ v_block"
SOLUTION_TILED_RETURN = "    return o / l.masked_fill(l == 0, 1.0)"
SOLUTION_TILED_SUM = "        l = l * rescale + p.sum(dim=-1, keepdim=True)"
SOLUTION_TILED_TERMS = "        p = torch.exp(s - shift)  # (..., L_q, b)"


def merged_block_exponentials(reference, block, m_old, m_new):
    """block_exponentials as a merge of block-local softmaxes: each block shifted by its own max, then
    brought to the running max by e^(block max - m_new), a fully masked block's max taken as 0."""
    local = block.amax(dim=-1, keepdim=True)  # (..., 1)
    local = local.masked_fill(local == float("-inf"), 0.0)
    shift = reference.exponent_shift(m_new)
    return reference.exp(m_old - shift), reference.exp(block - local) * reference.exp(local - shift)


MISCONCEPTIONS = (
    Misconception(
        "online-sum-not-rescaled", (10,),
        "When a block raises the running max, the running sum still holds e^(s - m_old) of the earlier "
        "entries: multiply it by e^(m_old - m_new) before adding the block's e^(s - m_new), or the earlier "
        "entries weigh too much: see " + COST,
        ({"running_sum": lambda self, l, rescale, p: l + p.sum(dim=-1, keepdim=True)},),
        {10: [(SOLUTION_ONLINE_SUM, "        l = l + torch.exp(block - shift).sum(dim=-1, keepdim=True)"),
              (SOLUTION_TILED_SUM, "        l = l + p.sum(dim=-1, keepdim=True)")]},
        principle="A running sum of e^(s - m) is a sum only while all its terms share one m, the running max: when a "
                  "block raises the max, the earlier terms still count with the old one, and weigh too much. Yours "
                  "lets them. Reread " + COST + ".",
        cause="When a block raises the running max, you add its terms to the running sum without rescaling what the "
              "sum already holds.",
    ),
    Misconception(
        "online-output-not-rescaled", (10,),
        "When a block raises the running max, the running output still holds e^(s - m_old) v of the earlier "
        "keys: multiply it by e^(m_old - m_new), as the running sum, before adding the block's e^(s - m_new) "
        "@ v: see " + COST,
        ({"running_output": lambda self, o, rescale, p, v_block, l_old, l_new: o + p @ v_block},),
        {10: [(SOLUTION_TILED_OUTPUT, "        o = o + p @ v_block")]},
        principle="The running output is a sum of values weighted by e^(s - m), and it is divided by the running sum "
                  "at the end: both must count every key with the same, current running max. In yours, the output "
                  "keeps the earlier keys weighted with an old max. Reread " + COST + ".",
        cause="When a block raises the running max, you rescale the running sum but add the block's part to an "
              "output still weighted with the old max.",
    ),
    Misconception(
        "online-nothing-rescaled", (10,),
        "When a block raises the running max, neither your running sum nor your running output is rescaled: "
        "both were summed with the old max, so multiply both by e^(m_old - m_new) before adding the block's "
        "terms: see " + COST,
        ({"running_sum": lambda self, l, rescale, p: l + p.sum(dim=-1, keepdim=True),
          "running_output": lambda self, o, rescale, p, v_block, l_old, l_new: o + p @ v_block},),
        {10: [(SOLUTION_TILED_SUM, "        l = l + p.sum(dim=-1, keepdim=True)"),
              (SOLUTION_TILED_OUTPUT, "        o = o + p @ v_block")]},
        includes=("online-sum-not-rescaled", "online-output-not-rescaled"),
        principle="Both running values, the sum and the output, count every earlier key with e^(s - m) for the max "
                  "of its time; when the max rises, all of that is counted with a shift that no longer holds. In "
                  "yours, the earlier blocks weigh too much. Reread " + COST + ".",
        cause="When a block raises the running max, you rescale neither the running sum nor the running output.",
    ),
    Misconception(
        "online-rescale-inverted", (10,),
        "Your rescaling factor is upside down: what was summed with e^(s - m_old) becomes e^(s - m_new) when "
        "multiplied by e^(m_old - m_new), which is at most 1, not by e^(m_new - m_old), which grows it (and, "
        "unguarded, is e^(+inf) = inf on the first block, where m_old = -inf): see " + COST,
        tuple({step: inverted, "exp": student_exp} for inverted in _INVERTED_RESCALES
              for step in ("block_exponentials", "online_exponentials", "tiled_exponentials")),
        {10: [(SOLUTION_ONLINE_SUM, SOLUTION_ONLINE_SUM.replace("torch.exp(m - shift)", "torch.exp(shift - m)")),
              ("        rescale = torch.exp(m - shift)", "        rescale = torch.exp(shift - m)")]},
        principle="When the running max rises, everything summed so far was measured against the old max and must "
                  "shrink to be measured against the new one: the factor is never above 1. Yours grows what was "
                  "summed. Reread " + COST + ".",
        cause="You rescale the running values by e^(m_new - m_old), the inverse of the factor that turns "
              "e^(s - m_old) into e^(s - m_new).",
    ),
    Misconception(
        "online-max-not-kept", (10,),
        "Your running max is each block's own max, not the largest seen so far: after a block of small "
        "scores, e^(s - m) of the earlier, larger ones overflows. Keep m_new = max(m, max of the block): "
        "see " + COST,
        ({"update_max": lambda self, m, block: block.amax(dim=-1, keepdim=True),
          "exp": student_exp},
         # the same, its rescale 1 where the old max is -inf (round 68's m41): a fully masked block's -inf max
         # then keeps what was summed, and only scores far apart overflow
         {"update_max": lambda self, m, block: block.amax(dim=-1, keepdim=True),
          "block_exponentials": _kept_after_masked_block,
          "exp": student_exp}),
        {10: [("        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))",
               "        m_new = s.amax(dim=-1, keepdim=True)")]},
        principle="The running max is the largest score seen so far, over every block: it is the shift that keeps "
                  "every e^(s - m) at most 1, for the earlier scores too. Yours can fall below an earlier score. "
                  "Reread " + COST + ".",
        cause="Your running max is each block's own max: after a block of smaller scores it falls, and e^(s - m) of "
              "the earlier, larger scores overflows.",
    ),
    Misconception(
        "online-block-uses-old-max", (10,),
        "You exponentiate a block with the running max from before it: e^(s - m_old), where s may exceed "
        "m_old (it overflows) and the terms no longer match the sum's shift. Update the max first, then take "
        "e^(s - m_new) and rescale the running values by e^(m_old - m_new): see " + COST,
        ({"block_exponentials": lambda self, block, m_old, m_new: (
            self.exp(m_old - self.exponent_shift(m_new)), self.exp(block - self.exponent_shift(m_old))),
          "exp": student_exp},),
        {10: [("        p = torch.exp(s - shift)  # (..., L_q, b)",
               "        p = torch.exp(s - m.masked_fill(m == float(\"-inf\"), 0.0))")]},
        principle="Every exponential in the running values is measured against one shift, the largest score seen so "
                  "far, this block's included: a shift below a block's scores makes e^(s - m) larger than 1, and it "
                  "overflows. Yours exponentiates a block against a max that has not seen it. Reread " + COST + ".",
        cause="You exponentiate each block with the running max from before that block.",
    ),
    Misconception(
        "blocks-drop-last-partial", (10,),
        "Your loop over the blocks drops the last one when block_size does not divide the length (and every "
        "block when block_size is larger): the last block may be shorter, and range(0, n, block_size) with "
        "x[..., start:start + block_size] covers every entry: see " + COST,
        ({"block_starts": lambda self, n, block_size: range(0, n - block_size + 1, block_size)},),
        {10: [("    for start in range(0, x.size(-1), block_size):",
               "    for start in range(0, x.size(-1) - block_size + 1, block_size):"),
              ("    for start in range(0, L_k, block_size):", "    for start in range(0, L_k - block_size + 1, block_size):")]},
        principle="Tiling must cover every key exactly once: the blocks run from the first key to the last, and the "
                  "last block is shorter than the others when the block size does not divide the length. In yours, "
                  "the last keys are never seen. Reread " + COST + ".",
        cause="Your loop stops at the last full block, so a shorter last block is dropped (and every block, when "
              "block_size is larger than the length).",
    ),
    Misconception(
        "running-max-starts-at-zero", (10,),
        "Your running max starts at 0: where every score is below -745 (float64; -104 in float32), e^(s - 0) "
        "underflows to 0 and the sum is 0. Start it at -inf, so that the first block's max replaces it "
        "(and shift by 0 while it is still -inf): see " + COST,
        ({"running_max_start": lambda self, like: torch.zeros_like(like)},
         {"running_max_start": lambda self, like: torch.zeros_like(like), "normalise": lambda self, e, l: e / l}),
        {10: [('    m = torch.full_like(q[..., :1], float("-inf"))', "    m = torch.zeros_like(q[..., :1])")]},
        includes=("online-nan-on-empty-row", "masked-block-factor-overflows"),
        principle="Before the first block no score has been seen, so the running max starts below every possible "
                  "score and the first block's max takes its place, whatever the scores, very negative ones too. "
                  "Yours starts above very negative scores. Reread " + COST + ".",
        cause="Your running max starts at 0, so when every score is far below 0, e^(s - 0) underflows to 0 and the "
              "sum is 0.",
    ),
    Misconception(
        "masked-block-factor-overflows", (10,),
        "You bring each block to the running max with a factor e^(block max - m_new), and a fully masked block's "
        "max, taken as 0, makes it e^(0 - m_new): infinite once the running max is far below 0 (-709 in float64, "
        "-88 in float32), and its terms' 0 times infinity is NaN. Shift the block's scores by the running max "
        "itself, e^(s - m_new), so that a masked score gives e^(-inf) = 0 whatever the max: see " + COST,
        ({"block_exponentials": merged_block_exponentials},
         {"block_exponentials": merged_block_exponentials, "exp": student_exp}),
        {10: [(SOLUTION_TILED_TERMS,
               "        local = s.amax(dim=-1, keepdim=True)  # (..., L_q, 1) the block's own max\n"
               "        local = local.masked_fill(local == float(\"-inf\"), 0.0)  # a fully masked block: 0\n"
               "        p = torch.exp(s - local) * torch.exp(local - shift)  # (..., L_q, b)")]},
        principle="Every term of the running sums is measured against the running max, and a masked score adds "
                  "nothing to them: e^(-∞ - m) = 0, whatever m is. Yours gives a fully masked block a factor that "
                  "overflows when the running max is very negative, and 0 · ∞ is NaN. Reread " + COST + ".",
        cause="You bring each block to the running max with e^(block max - m_new), and a fully masked block's max, "
              "taken as 0, makes that factor e^(0 - m_new): infinite when the running max is far below 0.",
    ),
    Misconception(
        "online-nan-on-empty-row", (10,),
        "A row with no finite score yet (all -inf, or a causal query that sees no key in a block) gives NaN: "
        "e^(-inf - (-inf)) and 0/0 are NaN. Shift by 0 while the running max is -inf, and divide by 1 where "
        "the sum is 0, so that a query that sees no key gets zeros: see " + COST,
        ({"exponent_shift": lambda self, m: m},
         {"normalise": lambda self, e, l: e / l}),
        {10: [(SOLUTION_TILED_RETURN, "    return o / l")]},
        principle="A query that has seen no finite score yet (a row of only -∞, or a causal query whose keys have "
                  "not come) must get zeros, never NaN: the chapter's fully masked row, here inside the loop. Yours "
                  "gives NaN. Reread " + COST + ".",
        cause="On a row with no finite score yet, your loop computes e^(-inf - (-inf)) or 0/0, and both are NaN.",
    ),
    Misconception(
        "online-divides-inside-loop", (10,),
        "You divide the running output by the running sum inside the loop, but what was already divided by "
        "the old sum is never multiplied back: keep o unnormalised (o·e^(m_old - m_new) + e^(s - m_new) @ v) and "
        "divide by l once, after the last block: see " + COST,
        ({"running_output": lambda self, o, rescale, p, v_block, l_old, l_new:
          (o * rescale + p @ v_block) / l_new.masked_fill(l_new == 0, 1.0),
          "tiled_output": lambda self, o, l: o},),
        {10: [(SOLUTION_TILED_OUTPUT, "        o = (o * rescale + p @ v_block) / l.masked_fill(l == 0, 1.0)"),
              (SOLUTION_TILED_RETURN, "    return o")]},
        principle="Dividing by the sum is the softmax's last step, and it needs the final sum, over every block: an "
                  "output already divided by an earlier, smaller sum is in other units than the next block's terms. "
                  "Yours mixes the two. Reread " + COST + ".",
        cause="You divide the running output by the running sum inside the loop, and that division is never undone "
              "when the sum grows.",
    ),
    Misconception(
        "tiled-causal-block-positions", (10,),
        "Your causal mask compares the query's position with the key's place in its block (0 .. block_size - 1), "
        "not in the sequence: the block starting at `start` holds keys start .. start + block_size - 1: see "
        + COST,
        ({"block_causal_mask": lambda self, L_q, L_k, start, width:
          torch.arange(width) <= torch.arange(L_k - L_q, L_k)[:, None]},),
        {10: [("            key = torch.arange(start, start + k_block.size(-2), device=q.device)",
               "            key = torch.arange(k_block.size(-2), device=q.device)")]},
        principle="The causal rule is about positions in the sequence: query i may see key j when j ≤ i, wherever j "
                  "sits in its block. In yours, the keys of later blocks are judged by their place inside the block. "
                  "Reread " + MASKING + ".",
        cause="Your causal mask compares the query's position with the key's index inside its block, 0 .. block_size "
              "- 1, not with its position in the sequence.",
    ),
    Misconception(
        "tiled-causal-top-left", (10,),
        "Your causal mask puts query i at position i; with L_q queries and L_k keys the queries are the last "
        "L_q positions, as in the KV cache: query i sits at L_k - L_q + i and sees keys 0 .. L_k - L_q + i "
        "(and with L_q > L_k the first queries see none): see " + CACHE,
        ({"block_causal_mask": lambda self, L_q, L_k, start, width:
          torch.arange(start, start + width) <= torch.arange(L_q)[:, None]},),
        {10: [("    position = torch.arange(L_k - L_q, L_k, device=q.device)[:, None]",
               "    position = torch.arange(L_q, device=q.device)[:, None]")]},
        principle="With L_q queries and L_k keys the queries are the last L_q positions of the sequence, as with a "
                  "KV cache: the last query sees every key, and the causal pattern ends in the bottom-right corner. "
                  "Yours starts it in the top-left. Reread " + CACHE + ".",
        cause="Your causal mask puts query i at position i, as if the queries were the first L_q positions, not the "
              "last.",
    ),
    Misconception(
        "tiled-causal-excludes-diagonal", (10,),
        "Your causal mask hides each query's own key: the key at the query's position may be read (key "
        "position <= query position, mask where it is >), which also keeps a finite score for every query that "
        "has a key: see " + MASKING,
        ({"block_causal_mask": lambda self, L_q, L_k, start, width:
          torch.arange(start, start + width) < torch.arange(L_k - L_q, L_k)[:, None]},),
        {10: [("            s = s.masked_fill(key > position, float(\"-inf\"))",
               "            s = s.masked_fill(key >= position, float(\"-inf\"))")]},
        principle="A token may always read itself: the key at the query's own position is allowed, which also keeps "
                  "a finite score for every query that has keys. Yours hides it. Reread " + MASKING + ".",
        cause="Your causal mask hides the key at the query's own position: it masks key positions ≥ the query's, not "
              "only those after it.",
    ),
    Misconception(
        "online-softmax-stale-normaliser", (10,),
        "You wrote each block's weights with the running max and sum as they were after that block, but later "
        "blocks change both: the weights need the final max and sum, so finish the pass over every block "
        "first, then compute e^(x - m) / l for the whole row: see " + COST,
        ({"online_softmax": stale_online_softmax},),
        {10: [("    for start in range(0, x.size(-1), block_size):", "    out = []\n    for start in range(0, x.size(-1), block_size):"),
              ("        m = m_new\n    shift = m.masked_fill(m == float(\"-inf\"), 0.0)  # (..., 1)\n"
               "    return torch.exp(x - shift) / l.masked_fill(l == 0, 1.0)",
               "        m = m_new\n        out.append(torch.exp(block - shift) / l.masked_fill(l == 0, 1.0))\n"
               "    return torch.cat(out, dim=-1)")]},
        principle="A softmax weight needs its row's final max and final sum: blocks seen later can change both, so no "
                  "weight is final until every block has been seen. Yours writes weights too early. "
                  "Reread " + COST + ".",
        cause="You wrote each block's weights with the running max and sum as they were after that block.",
    ),
)
