"""Exercise 6: the misconceptions first seen in this exercise (see grader/diagnosis/mutants.py).

In catalogue order: the first one named decides an "either … or" diagnosis. `edits` turn the
instructor's solution of each exercise into a student file making the mistake."""


from grader.diagnosis.mutants import Misconception, WALKTHROUGH
from grader.catalog.exercise4_masking.misconceptions import SOLUTION_MHA_MASK

MISCONCEPTIONS = (
    Misconception(
        "scaled-twice", (6, 7, 8),
        "Your scores end up divided by d_head, not √d_head: the given scaled_dot_product_attention divides them "
        "by √d_head already, so scaling q (or k, or the scores) by √d_head in forward scales them twice (or, in an "
        "attention of your own, you divided by d_head itself); leave the scaling to the given attention: see "
        "'Why divide by √d_k?'",
        ({"scale_scores": lambda self, scores, d_k: scores / d_k},),
        {6: [("        y, _ = scaled_dot_product_attention(q, k, v, mask)  # (B, H, L, d_head)\n",
              "        y, _ = scaled_dot_product_attention(q / math.sqrt(q.size(-1)), k, v, mask)\n")]},
        principle="Each step of the module does its own part once: the given attention scales the scores by √d_head, "
                  "which brings their spread back to about 1. Yours scales them again before it, so their spread "
                  "falls far below 1 and the weights flatten towards uniform. Reread 'Why divide by √d_k?'.",
        cause="Your scores are divided by d_head, not √d_head: scaled by your forward and again by the given "
              "attention.",
    ),
    Misconception(
        "scale-by-d-model", (6, 7, 8),
        "You divided the scores by √d_model, not √d_head: each head works in d_head = d_model / n_heads "
        "dimensions, so its scores are scaled by √d_head: see 'Splitting the model width into heads'",
        ({"head_width": lambda self, d_head, d_model: d_model},),
        {6: [("        y, _ = scaled_dot_product_attention(q, k, v, mask)  # (B, H, L, d_head)\n",
              "        y, _ = scaled_dot_product_attention(q * math.sqrt(self.d_head / D), k, v, mask)\n")]},
        principle="Each head is an attention of its own, working in d_head = d_model / n_heads dimensions: its dot "
                  "products spread with its own width, so its scale follows d_head, not the model's width. Yours "
                  "scales every head as if it were the whole model. Reread 'Splitting the model width into heads'.",
        cause="You scaled each head's scores by √d_model, so they are √n_heads times too small.",
    ),
    Misconception(
        "split-heads-without-transpose", (6, 7, 8),
        "You reshaped (B, L, D) straight into (B, H, L, d_head), which mixes tokens across heads: view it as "
        "(B, L, H, d_head), then transpose(1, 2): see " + WALKTHROUGH,
        ({"split_heads": lambda self, x, n_heads: x.reshape(x.size(0), n_heads, x.size(1), -1)},
         {"split_kv_heads": lambda self, x, n_kv_heads: x.reshape(x.size(0), n_kv_heads, x.size(1), -1)}),
        {6: [("    x = x.view(B, L, n_heads, D // n_heads)  #",
              "    return x.reshape(B, n_heads, L, D // n_heads)  #")]},
        principle="Each head must see whole tokens: head h holds the same d_head columns of every token, and every "
                  "token keeps its position. In yours, one head's rows are pieces of several tokens. "
                  "Reread " + WALKTHROUGH + ".",
        cause="You reshaped (B, L, D) straight into (B, H, L, d_head): a reshape keeps the numbers in memory order, "
              "so the tokens' features are dealt out across positions and heads.",
    ),
    Misconception(
        "merge-heads-without-transpose", (6, 7, 8),
        "You reshaped (B, H, L, d_head) straight into (B, L, D), which mixes tokens across heads: transpose(1, "
        "2) back to (B, L, H, d_head) first, then .contiguous().view(B, L, D): see " + WALKTHROUGH,
        ({"merge_heads": lambda self, x: x.reshape(x.size(0), x.size(2), -1)},),
        {6: [("    x = x.transpose(1, 2).contiguous()  #", "    x = x.contiguous()  #")]},
        principle="Merging is the heads' concatenation: token l's output is head 0's d_head numbers for token l, "
                  "then head 1's, and so on. In yours, a token's output holds numbers of other tokens. "
                  "Reread " + WALKTHROUGH + ".",
        cause="You reshaped (B, H, L, d_head) straight into (B, L, D): memory runs head by head, so each output row "
              "takes numbers of several tokens of one head.",
    ),
    Misconception(
        "heads-never-split", (6,),
        "Your forward runs one attention over the whole model width: split q, k and v into n_heads heads of "
        "d_head = d_model / n_heads (split_heads), attend in each, and merge them back (merge_heads) before "
        "self.out: see 'Splitting the model width into heads'",
        ({"split_heads": lambda self, x, n_heads: x, "merge_heads": lambda self, x: x,  # (B, L, D) throughout
          "head_width": lambda self, d_head, d_model: d_model},
         {"split_heads": lambda self, x, n_heads: x.unsqueeze(1), "merge_heads": lambda self, x: x.squeeze(1),
          "head_width": lambda self, d_head, d_model: d_model}),  # one head of width D
        {6: [("        q = split_heads(q, self.n_heads)  # (B, H, L, d_head)\n"
              "        k = split_heads(k, self.n_heads)  # (B, H, L, d_head)\n"
              "        v = split_heads(v, self.n_heads)  # (B, H, L, d_head)\n",
              "        q, k, v = q.unsqueeze(1), k.unsqueeze(1), v.unsqueeze(1)  # one head of width D\n"),
             ("        y = merge_heads(y)  #", "        y = y.squeeze(1)  #")]},
        principle="Multi-head attention is n_heads attentions side by side, each over d_head = d_model / n_heads "
                  "of the features, each with its own softmax, so that one token can attend to several others for "
                  "different reasons. Yours gives every token one set of weights for the whole width, whatever "
                  "n_heads is. Reread 'Splitting the model width into heads'.",
        cause="Your forward never splits into heads: it attends once, over all d_model features (scaled by "
              "√d_model), as one head would.",
    ),
    Misconception(
        "explicit-mask-ignored", (6, 7),
        "Your forward attends with its own causal mask even when it is given one: use causal_mask(L) only "
        "when mask is None, and the given mask otherwise: see " + WALKTHROUGH,
        ({"forward_mask": lambda self, mask, L: self.causal_mask(L)},),
        {6: [(SOLUTION_MHA_MASK, "        y, _ = scaled_dot_product_attention(q, k, v, causal_mask(L, x.device))\n")]},
        principle="The mask a caller passes is the one attention must use (padding, a pattern of their own); the "
                  "causal mask is only the default for when none is given. Yours attends with its own mask either "
                  "way. Reread " + WALKTHROUGH + ".",
        cause="Your forward always builds and uses a causal mask, and the mask argument is never used.",
    ),
    Misconception(
        "explicit-mask-combined-with-causal", (6, 7),
        "Your forward combines the mask it is given with its own causal mask: a given mask replaces the causal one "
        "(a padding mask, an encoder's all-True mask), so attend with it as it is and use causal_mask(L) only when "
        "mask is None: see " + WALKTHROUGH,
        ({"forward_mask": lambda self, mask, L: self.causal_mask(L) if mask is None else mask & self.causal_mask(L)},),
        {6: [(SOLUTION_MHA_MASK, "        causal = causal_mask(L, x.device)\n"
                                 "        mask = causal if mask is None else mask & causal\n"
                                 "        y, _ = scaled_dot_product_attention(q, k, v, mask)  # (B, H, L, d_head)\n")]},
        principle="The mask a caller passes is the one attention must use, as it is: it may let a query see later "
                  "keys (an encoder, a summary of a whole text); the causal mask is only the default for when none "
                  "is given. Yours hides keys the caller's mask lets a query see. Reread " + WALKTHROUGH + ".",
        cause="Your forward keeps only the keys that both the given mask and a causal mask allow, so the given mask "
              "can hide keys but never show a later one.",
    ),
    Misconception(
        "given-mask-unsqueezed", (6, 7),
        "Your forward inserts a head axis into the mask it is given (mask.unsqueeze(1)), but a given mask is "
        "already shaped to broadcast against the scores (B, H, L, L): (L, L), (B, 1, L, L) or (B, 1, 1, L). Pass "
        "it to the attention as it is: see " + WALKTHROUGH,
        ({"forward_mask": lambda self, mask, L: self.causal_mask(L) if mask is None else mask.unsqueeze(1)},),
        {6: [(SOLUTION_MHA_MASK, "        if mask is None:\n            mask = causal_mask(L, x.device)\n"
                                 "        else:\n            mask = mask.unsqueeze(1)  # a head axis\n"
                                 "        y, _ = scaled_dot_product_attention(q, k, v, mask)  # (B, H, L, d_head)\n")]},
        principle="A mask lines up with the scores (B, H, L, L) by broadcasting from the right: its last axis is "
                  "the keys', the one before the queries', and an axis of 1 repeats over heads or the batch. The "
                  "masks a caller gives are already laid out that way. In yours, a given mask's axes no longer "
                  "line up with the scores': its keys' axis is not the last. Reread " + WALKTHROUGH + ".",
        cause="Your forward unsqueezes a given mask at axis 1, which moves its query and key axes away from the "
              "scores' last two: a 4-dim mask becomes 5-dim, an (L, L) one (L, 1, L).",
    ),
)
