"""Exercise 7: the misconceptions first seen in this exercise (see grader/diagnosis/mutants.py).

In catalogue order: the first one named decides an "either … or" diagnosis. `edits` turn the
instructor's solution of each exercise into a student file making the mistake."""

from grader.diagnosis.mutants import Misconception, GQA

MISCONCEPTIONS = (
    Misconception(
        "gqa-repeat-tiles", (7, 8),
        "Your query heads read the KV heads tiled, [0, 1, 0, 1, …] (what .repeat gives, or an expand whose "
        "new axis stands before the heads, x[:, None]): query head j reads KV head j mod n_kv_heads; it must read KV head j // n_rep, [0, 0, 1, 1, …], so that neighbouring query heads "
        "share a KV head (repeat_interleave along dim 1): see " + GQA,
        ({"repeat_kv": lambda self, x, n_rep: x.repeat(1, n_rep, 1, 1)},),
        {7: [("    return x.repeat_interleave(n_rep, dim=1)  # (B, H_kv*n_rep, L, d)\n    # END",
              "    return x.repeat(1, n_rep, 1, 1)\n    # END")]},
        principle="In grouped-query attention each KV head serves a group of n_heads / n_kv_heads neighbouring query "
                  "heads: the first group shares KV head 0, the next KV head 1, and so on. In yours, neighbouring "
                  "query heads read different KV heads. Reread " + GQA + ".",
        cause="You tiled the KV heads, [0, 1, 0, 1, …] (what .repeat gives, or an expand whose new axis stands "
              "before the heads, x[:, None]): query head j reads KV head j mod n_kv_heads.",
    ),
    Misconception(
        "gqa-group-size-inverted", (7, 8),
        "You repeated each KV head n_kv_heads // n_heads times, which is 0 wherever there are fewer KV heads than "
        "query heads: each KV head serves n_heads // n_kv_heads query heads, so that is how often it is "
        "repeated: see " + GQA,
        ({"group_size": lambda self, n_heads, n_kv_heads: n_kv_heads // n_heads},),
        {7: [("        rep = self.n_heads // self.n_kv_heads\n", "        rep = self.n_kv_heads // self.n_heads\n")]},
        principle="In grouped-query attention the query heads outnumber the KV heads, and each KV head serves a "
                  "group of them, all of equal size. In yours, wherever there are fewer KV heads than query "
                  "heads, the keys and values come out with no heads at all. Reread " + GQA + ".",
        cause="You computed the repeat count as n_kv_heads // n_heads, the inverse of the group size, which is 0 "
              "in grouped-query attention.",
    ),
    Misconception(
        "repeat-kv-wrong-dim", (7,),
        "You repeated along another dim than the heads: each KV head is repeated n_rep times along dim 1, "
        "(B, H_kv, L, d) -> (B, H_kv·n_rep, L, d): see " + GQA,
        tuple({"repeat_kv": lambda self, x, n_rep, dim=dim: x.repeat_interleave(n_rep, dim=dim)}
              for dim in (0, 2, 3))
        # the same, then reshaped to (B, H_kv·n_rep, L, d): the features, or the positions as Meta's Llama
        # repeat_kv does it for its (B, L, H_kv, d) layout, with an expand and a .view (which one position cannot
        # take); the batch so reshaped is the heads tiled, gqa-repeat-tiles
        + ({"repeat_kv": lambda self, x, n_rep: x.repeat_interleave(n_rep, dim=3).reshape(
                x.size(0), x.size(1) * n_rep, *x.shape[2:])},
           {"repeat_kv": lambda self, x, n_rep: x[:, :, :, None, :].expand(*x.shape[:3], n_rep, x.size(3)).reshape(
               x.size(0), x.size(1), -1, x.size(3)).view(x.size(0), -1, x.size(2), x.size(3))}),
        {7: [("    return x.repeat_interleave(n_rep, dim=1)  # (B, H_kv*n_rep, L, d)\n    # END",
              "    return x.repeat_interleave(n_rep, dim=2)\n    # END")]},
        principle="Repeating the KV heads adds heads and nothing else: (B, H_kv, L, d) becomes (B, H, L, d), each "
                  "copy with the same tokens and features. Yours repeats along another axis. Reread " + GQA + ".",
        cause="You repeated along another dim than the heads' (the batch, the positions or the features).",
    ),
)
