"""Exercise 10: the misconceptions first seen in this exercise (see grader/diagnosis/mutants.py).

In catalogue order: the first one named decides an "either … or" diagnosis. `edits` turn the
instructor's solution of each exercise into a student file making the mistake."""

import torch

from grader.diagnosis.mutants import Misconception, CACHE, COST, MASKING, stale_online_softmax, student_exp

# lines of the solutions that the edits below rewrite
SOLUTION_ONLINE_SUM = "        l = l * torch.exp(m - shift) + torch.exp(block - shift).sum(dim=-1, keepdim=True)"
SOLUTION_TILED_OUTPUT = "        o = o * rescale + p @ v_block"
SOLUTION_TILED_RETURN = "    return o / l.masked_fill(l == 0, 1.0)"
SOLUTION_TILED_SUM = "        l = l * rescale + p.sum(dim=-1, keepdim=True)"

MISCONCEPTIONS = (
    Misconception(
        "online-sum-not-rescaled", (10,),
        "When a block raises the running max, the running sum still holds e^(s - m_old) of the earlier "
        "entries: multiply it by e^(m_old - m_new) before adding the block's e^(s - m_new), or the earlier "
        "entries weigh too much: see " + COST,
        ({"running_sum": lambda self, l, rescale, p: l + p.sum(dim=-1, keepdim=True)},),
        {10: [(SOLUTION_ONLINE_SUM, "        l = l + torch.exp(block - shift).sum(dim=-1, keepdim=True)"),
              (SOLUTION_TILED_SUM, "        l = l + p.sum(dim=-1, keepdim=True)")]},
    ),
    Misconception(
        "online-output-not-rescaled", (10,),
        "When a block raises the running max, the running output still holds e^(s - m_old) v of the earlier "
        "keys: multiply it by e^(m_old - m_new), as the running sum, before adding the block's e^(s - m_new) "
        "@ v: see " + COST,
        ({"running_output": lambda self, o, rescale, p, v_block, l_old, l_new: o + p @ v_block},),
        {10: [(SOLUTION_TILED_OUTPUT, "        o = o + p @ v_block")]},
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
    ),
    Misconception(
        "online-max-not-kept", (10,),
        "Your running max is each block's own max, not the largest seen so far: after a block of small "
        "scores, e^(s - m) of the earlier, larger ones overflows. Keep m_new = max(m, max of the block): "
        "see " + COST,
        ({"update_max": lambda self, m, block: block.amax(dim=-1, keepdim=True),
          "exp": student_exp},),
        {10: [("        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))",
               "        m_new = s.amax(dim=-1, keepdim=True)")]},
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
    ),
    Misconception(
        "running-max-starts-at-zero", (10,),
        "Your running max starts at 0: where every score is below -745 (float64; -104 in float32), e^(s - 0) "
        "underflows to 0 and the sum is 0. Start it at -inf, so that the first block's max replaces it "
        "(and shift by 0 while it is still -inf): see " + COST,
        ({"running_max_start": lambda self, like: torch.zeros_like(like)},
         {"running_max_start": lambda self, like: torch.zeros_like(like), "normalise": lambda self, e, l: e / l}),
        {10: [('    m = torch.full_like(q[..., :1], float("-inf"))', "    m = torch.zeros_like(q[..., :1])")]},
        includes=("online-nan-on-empty-row",),
    ),
    Misconception(
        "online-nan-on-empty-row", (10,),
        "A row with no finite score yet (all -inf, or a causal query that sees no key in a block) gives NaN: "
        "e^(-inf - (-inf)) and 0/0 are NaN. Shift by 0 while the running max is -inf, and divide by 1 where "
        "the sum is 0, so that a query that sees no key gets zeros: see " + COST,
        ({"exponent_shift": lambda self, m: m},
         {"normalise": lambda self, e, l: e / l}),
        {10: [(SOLUTION_TILED_RETURN, "    return o / l")]},
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
    ),
)
