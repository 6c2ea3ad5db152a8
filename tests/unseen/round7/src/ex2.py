from build import H, W

BASE = {
    "attention_scores": """
        return q @ k.transpose(-2, -1)  # (..., L_q, d_k) @ (..., d_k, L_k) -> (..., L_q, L_k)
    """,
}

LOC = r"attention_scores|scor(e|es|ing)"

FILES = [
    W("dot_T_on_batched",
      "transposes the keys with k.T, which on a 3-D or 4-D k reverses every dim instead of swapping the last two",
      "attention_scores uses k.T, which only means the matrix transpose for a 2-D k: on a batched (3-D or 4-D) k it reverses every dimension, so the batch and feature axes get mixed and the product fails (or is wrong); swap only the last two dims with k.transpose(-2, -1) or k.mT.",
      [LOC, r"\.T\b|k\.T|revers|all (the )?dim|every dim|last two|transpose\(-2, ?-1\)|\.mT"],
      [r"scal(e|ing) by|sqrt|√", r"\bdtype\b.*(lost|changed|not kept)", r"in.place"],
      {"attention_scores": """
        return q @ k.T  # S = Q K^T
    """}),
    W("bmm_three_dims_only",
      "uses torch.bmm(q, k.transpose(1, 2)), which only works for exactly 3-D inputs: unbatched (L, d) and (B, H, L, d) inputs crash",
      "attention_scores calls torch.bmm(q, k.transpose(1, 2)); bmm requires exactly 3-D tensors and transpose(1, 2) names fixed axes, so unbatched (L_q, d_k) inputs and (B, H, L, d_k) multi-head inputs raise; use q @ k.transpose(-2, -1), which broadcasts over any leading dims.",
      [LOC, r"bmm|3-?D|three.dim|leading dims?|batch dims?|4-?D|unbatched|transpose\(1, ?2\)"],
      [r"scal(e|ing) by|sqrt|√", r"\bdtype\b.*(lost|changed|not kept)", r"in.place"],
      {"attention_scores": """
        return torch.bmm(q, k.transpose(1, 2))  # (B, L_q, d_k) @ (B, d_k, L_k)
    """}),
    W("keys_times_queries",
      "computes k @ q^T, the transposed score matrix (L_k, L_q): row i is key i against every query",
      "attention_scores returns k @ q.transpose(-2, -1), which is (Q K^T)^T: shape (..., L_k, L_q), with row j holding key j against every query; S[..., i, j] must be q_i · k_j, so put the queries on the left: q @ k.transpose(-2, -1).",
      [LOC, r"transpos(ed|e of)|K ?Q\^?T|k ?@ ?q|\(L_k, ?L_q\)|L_k, L_q|swap|order|rows? (and|are) (the )?keys"],
      [r"scal(e|ing) by|sqrt|√", r"\bdtype\b.*(lost|changed|not kept)", r"in.place"],
      {"attention_scores": """
        return k @ q.transpose(-2, -1)  # every key against every query
    """}),
    W("loop_buffer_float32",
      "fills a torch.zeros score buffer key by key but creates it without dtype=, so float64 scores are rounded to float32 and half-precision inputs come back float32",
      "attention_scores allocates its result with torch.zeros(..., device=q.device) but no dtype=, so the buffer is float32: float64 scores are rounded to float32 when written into it and float16/bfloat16 inputs come back as float32; create it with dtype=q.dtype (or just compute q @ k.transpose(-2, -1)).",
      [LOC, r"dtype|float32|float64|zeros|buffer|precision"],
      [r"scal(e|ing) by|sqrt|√", r"\.T\b|revers", r"in.place (op|edit|change).*(input|caller)"],
      {"attention_scores": """
        L_q, L_k = q.size(-2), k.size(-2)
        scores = torch.zeros(*q.shape[:-2], L_q, L_k, device=q.device)
        for j in range(L_k):
            # every query against key j
            scores[..., j] = (q * k[..., j:j + 1, :]).sum(dim=-1)
        return scores
    """}),
    W("transpose_inplace_keys",
      "transposes the keys with k.transpose_(-2, -1), which is in place: the caller's k comes back as (..., d_k, L_k) (and a leaf that requires grad raises)",
      "attention_scores calls k.transpose_(-2, -1); the trailing underscore makes it in place, so the caller's k is left transposed to (..., d_k, L_k) after the call (and a key tensor that requires grad raises); use the out-of-place k.transpose(-2, -1).",
      [LOC, r"transpose_|in.place|in place", r"caller|input|k itself|chang|modif|mutat|leaf|left"],
      [r"scal(e|ing) by|sqrt|√", r"\bdtype\b.*(lost|changed|not kept)", r"\.T\b|revers"],
      {"attention_scores": """
        kt = k.transpose_(-2, -1)  # (..., d_k, L_k)
        return q @ kt
    """}),
    W("already_scaled",
      "divides the scores by √d_k, copying the chapter's line: exercise 2 asks for the raw scores Q K^T (scaling is exercise 3)",
      "attention_scores returns q @ k.transpose(-2, -1) / √d_k, the chapter's scaled line; this exercise wants the raw scores S = Q K^T, with the scaling left to exercise 3, so every score is √d_k times too small; drop the division.",
      [LOC, r"scal(ed|e|ing)|sqrt|√|d_k"],
      [r"\.T\b|revers", r"\bdtype\b.*(lost|changed|not kept)", r"in.place"],
      {"attention_scores": """
        d_k = q.size(-1)
        return q @ k.transpose(-2, -1) / d_k ** 0.5  # S = Q K^T / sqrt(d_k)
    """}),
    W("reshape_not_transpose",
      "turns k into (..., d_k, L_k) with reshape, which reinterprets the memory instead of transposing: right shape, scrambled values",
      "attention_scores makes k^T with k.reshape(..., d_k, L_k); reshape keeps the memory order and only regroups it, so the entries are scrambled instead of swapped (the shape is right, the values are not unless L_k or d_k is 1); a transpose is k.transpose(-2, -1).",
      [LOC, r"reshape|view|reinterpret|memory|scrambl|not a transpose|instead of (a )?transpos"],
      [r"scal(e|ing) by|sqrt|√", r"\bdtype\b.*(lost|changed|not kept)", r"in.place"],
      {"attention_scores": """
        L_k, d_k = k.shape[-2:]
        kt = k.reshape(*k.shape[:-2], d_k, L_k)  # (..., d_k, L_k)
        return q @ kt
    """}),
    W("tensordot_outer_batch",
      "uses torch.tensordot(q, k, dims=([-1], [-1])), which contracts d_k but takes the outer product over the batch dims: (B, L_q, B, L_k) instead of (B, L_q, L_k)",
      "attention_scores calls torch.tensordot(q, k, dims=([-1], [-1])); tensordot contracts d_k but pairs every leading dim of q with every leading dim of k, so batched inputs give (B, L_q, B, L_k) (every batch against every other) instead of (B, L_q, L_k); it is only right for 2-D inputs. Use q @ k.transpose(-2, -1).",
      [LOC, r"tensordot|outer product|every batch|batch dims?|\(B, ?L_q, ?B, ?L_k\)|shape"],
      [r"scal(e|ing) by|sqrt|√", r"\bdtype\b.*(lost|changed|not kept)", r"in.place"],
      {"attention_scores": """
        # contract the d_k axis of q with the d_k axis of k
        return torch.tensordot(q, k, dims=([-1], [-1]))
    """}),
    W("squeeze_size_one",
      "squeezes the result to drop 'leftover' size-1 dims, so a single query (L_q = 1), a single key or a batch of one loses its axis",
      "attention_scores ends with .squeeze(), which removes every size-1 dim: with one query (L_q = 1, as in generation), one key or a batch/head count of 1 the result loses that axis and no longer has shape (..., L_q, L_k); return the product as it is.",
      [LOC, r"squeeze|size.1|L_q ?= ?1|single (query|key)|one query|drops? (an? )?(axis|dim)|shape"],
      [r"scal(e|ing) by|sqrt|√", r"\bdtype\b.*(lost|changed|not kept)", r"in.place"],
      {"attention_scores": """
        scores = torch.matmul(q, k.transpose(-2, -1))
        return scores.squeeze()  # drop the leftover size-1 dims
    """}),
    H("einsum_labels",
      "one torch.einsum('...id,...jd->...ij'): the contraction over d_k written out, no transpose",
      {"attention_scores": """
        # S[..., i, j] = sum over d of q[..., i, d] * k[..., j, d]
        return torch.einsum("...id,...jd->...ij", q, k)
    """}),
    H("broadcast_multiply_sum",
      "broadcasts q (..., L_q, 1, d_k) against k (..., 1, L_k, d_k), multiplies and sums over d_k: the dot products by definition",
      {"attention_scores": """
        pairs = q.unsqueeze(-2) * k.unsqueeze(-3)  # (..., L_q, L_k, d_k): every query next to every key
        return pairs.sum(dim=-1)
    """}),
]
