import textwrap

from build import H, W

BASE = {
    "attention_cost": """
        return {
            "core_attention": 4 * L * L * d_model,  # Q K^T and A V: L*L*d multiply-adds each, 2 FLOPs each
            "projections": 8 * L * d_model * d_model,  # W_Q, W_K, W_V, W_O
            "feed_forward": 16 * L * d_model * d_model,  # d -> 4d -> d
        }
    """,
    "crossover_length": """
        return 6 * d_model  # 4 L^2 d = 24 L d^2  <=>  L = 6 d
    """,
    "online_softmax": """
        n = x.size(-1)
        m = torch.full((*x.shape[:-1], 1), float("-inf"), dtype=x.dtype, device=x.device)  # running max
        l = torch.zeros_like(m)  # running sum of e^(x - m)
        for start in range(0, n, block_size):
            block = x[..., start:start + block_size]
            m_new = torch.maximum(m, block.amax(dim=-1, keepdim=True))
            shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
            l = l * torch.exp(m - shift) + torch.exp(block - shift).sum(dim=-1, keepdim=True)
            m = m_new
        shift = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
        return torch.exp(x - shift) / torch.where(l == 0, torch.ones_like(l), l)
    """,
    "tiled_attention": """
        L_q, d_k = q.shape[-2:]
        L_k = k.size(-2)
        scale = 1.0 / math.sqrt(d_k)
        m = torch.full((*q.shape[:-1], 1), float("-inf"), dtype=q.dtype, device=q.device)  # running max
        l = torch.zeros_like(m)  # running sum of e^(s - m)
        o = torch.zeros((*q.shape[:-1], v.size(-1)), dtype=q.dtype, device=q.device)  # running e^(s - m) @ v
        q_pos = torch.arange(L_q, device=q.device)[:, None] + (L_k - L_q)  # (L_q, 1)
        for start in range(0, L_k, block_size):
            end = min(start + block_size, L_k)
            s = (q @ k[..., start:end, :].transpose(-2, -1)) * scale  # (..., L_q, b)
            if causal:
                k_pos = torch.arange(start, end, device=q.device)[None, :]  # (1, b)
                s = s.masked_fill(k_pos > q_pos, float("-inf"))
            m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
            shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
            alpha = torch.exp(m - shift)  # rescales what was summed under the old max
            p = torch.exp(s - shift)
            l = l * alpha + p.sum(dim=-1, keepdim=True)
            o = o * alpha + p @ v[..., start:end, :]
            m = m_new
        return o / torch.where(l == 0, torch.ones_like(l), l)  # a query with no key: 0 / 1 = 0
    """,
}


def tiled(replace):
    """BASE's tiled_attention (dedented) with some lines replaced ({old: new})."""
    body = textwrap.dedent(BASE["tiled_attention"])
    for old, new in replace.items():
        assert old in body, old
        body = body.replace(old, new)
    return body


def online(replace):
    body = textwrap.dedent(BASE["online_softmax"])
    for old, new in replace.items():
        assert old in body, old
        body = body.replace(old, new)
    return body


NOT_DTYPE = r"\bdtype\b.*(lost|changed|not kept)"
NOT_INPLACE = r"in.place"
NOT_MEMORY = r"L ?[x×*] ?L|L²|quadratic|memory"

FILES = [
    W("crossover_true_division",
      "crossover_length returns 24 * d_model / 4, a float (4608.0) because / is true division, instead of an int",
      "crossover_length returns 24 * d_model / 4; Python's / is true division, so the result is a float (4608.0) although the docstring asks for an int; return 6 * d_model (or use //).",
      [r"crossover_length", r"float|int|true division|//|4608\.0|type"],
      [r"6 ?\* ?d.{0,20}(wrong|incorrect)", NOT_INPLACE, NOT_DTYPE],
      {"crossover_length": """
        # 4 L^2 d = 24 L d^2  ->  4 L = 24 d
        return 24 * d_model / 4
    """}),
    W("online_sum_not_rescaled",
      "online_softmax adds each block's sum to l without first rescaling the old l by e^(m - m_new), so l is wrong whenever a later block raises the max",
      "online_softmax updates l = l + Σ e^(block - m_new) without multiplying the old l by e^(m - m_new); the earlier terms were summed against the old, smaller max, so whenever a later block raises the max l is too large and the rows sum to less than 1 (it is only right when the first block holds the max, e.g. one block); rescale l before adding.",
      [r"online_softmax", r"rescal|e\^\(m ?- ?m_new\)|exp\(m ?- ?m_new\)|old (sum|l)|raises the max|running (sum|max)|correction"],
      [NOT_DTYPE, NOT_INPLACE, r"-inf.{0,20}(start|init)"],
      {"online_softmax": online({
          "l = l * torch.exp(m - shift) + torch.exp(block - shift).sum(dim=-1, keepdim=True)":
          "l = l + torch.exp(block - shift).sum(dim=-1, keepdim=True)"})}),
    W("online_max_starts_at_zero",
      "online_softmax starts the running max at 0 instead of -inf, so for a row of very negative scores (e.g. -1e4) every e^(x - 0) underflows and the row comes out as zeros",
      "online_softmax initialises the running max m with zeros instead of -inf, so m never drops below 0: for a row whose scores are all very negative (e.g. -1e4) every e^(x - 0) underflows to 0, l is 0 and the row comes out as zeros instead of summing to 1; start m at -inf (and shift by 0 while it is still -inf).",
      [r"online_softmax", r"-inf|initiali[sz]|start(s|ing)? (the running max |m )?at|zeros?|underflow|very negative|-1e4"],
      [NOT_DTYPE, NOT_INPLACE, r"rescal"],
      {"online_softmax": online({
          'm = torch.full((*x.shape[:-1], 1), float("-inf"), dtype=x.dtype, device=x.device)  # running max':
          "m = torch.zeros((*x.shape[:-1], 1), dtype=x.dtype, device=x.device)  # running max"})}),
    W("online_skips_short_block",
      "online_softmax loops over range(n // block_size) blocks, which skips the last, shorter block when block_size does not divide n",
      "online_softmax iterates for b in range(n // block_size), so when block_size does not divide n the last, shorter block is never read: its entries miss the running max and sum, the rows no longer sum to 1 (and can overflow if the max is there); loop over range(0, n, block_size) and let the last block be short.",
      [r"online_softmax", r"last (block|chunk)|short(er)? block|n ?// ?block_size|divid|remainder|partial|tail"],
      [NOT_DTYPE, NOT_INPLACE, r"-inf.{0,20}(start|init)"],
      {"online_softmax": online({
          "for start in range(0, n, block_size):\n    block = x[..., start:start + block_size]":
          "for b in range(n // block_size):\n    block = x[..., b * block_size:(b + 1) * block_size]"})}),
    W("full_causal_mask_up_front",
      "tiled_attention builds the whole (L_q, L_k) causal mask before the loop and slices it per block: exactly the L x L tensor tiled attention must never hold",
      "tiled_attention builds the full (L_q, L_k) boolean causal mask up front (arange(L_k) <= query positions) and slices a block from it each step; that is the L×L tensor the exercise forbids, so memory grows like L² in causal mode; build each block's (L_q, block) mask from that block's key positions inside the loop.",
      [r"tiled_attention", r"L_q, ?L_k|L ?[x×] ?L|L²|L\^2|quadratic|whole (causal )?mask|full (causal )?mask|memory|largest tensor"],
      [NOT_DTYPE, NOT_INPLACE, r"nan"],
      {"tiled_attention": tiled({
          "q_pos = torch.arange(L_q, device=q.device)[:, None] + (L_k - L_q)  # (L_q, 1)":
          "q_pos = torch.arange(L_q, device=q.device)[:, None] + (L_k - L_q)  # (L_q, 1)\n"
          "allowed = torch.arange(L_k, device=q.device)[None, :] <= q_pos  # (L_q, L_k), built once",
          "        k_pos = torch.arange(start, end, device=q.device)[None, :]  # (1, b)\n"
          "        s = s.masked_fill(k_pos > q_pos, float(\"-inf\"))":
          "        s = s.masked_fill(~allowed[:, start:end], float(\"-inf\"))"})}),
    W("causal_top_left_aligned",
      "tiled_attention puts query i at position i (top-left causal), not at L_k - L_q + i as the kit's convention says: wrong whenever L_q != L_k",
      "tiled_attention's causal mask compares key positions with arange(L_q), i.e. places query i at position i; the kit puts the queries at the last L_q positions, L_k - L_q + i (as in a KV-cache step), so with L_q < L_k each query sees too few keys (and with L_q > L_k the first queries should see none); add L_k - L_q to the query positions.",
      [r"tiled_attention|causal", r"L_k ?- ?L_q|last L_q|position|align|offset|top.left|bottom.right"],
      [NOT_DTYPE, NOT_INPLACE, NOT_MEMORY],
      {"tiled_attention": tiled({
          "q_pos = torch.arange(L_q, device=q.device)[:, None] + (L_k - L_q)  # (L_q, 1)":
          "q_pos = torch.arange(L_q, device=q.device)[:, None]  # (L_q, 1): query i may see keys 0..i"})}),
    W("nan_zeroed_only_at_end",
      "tiled_attention lets a query that sees no key compute NaN (e^(-inf - (-inf)), 0/0) and only replaces it with zeros at the end with torch.where: the forward is right but the gradients are NaN",
      "tiled_attention does not guard the running max inside the loop, so for a query that sees no key e^(m - m_new) is e^(-inf - (-inf)) = NaN, and it replaces the NaN output by zeros only at the end with torch.where; the forward is right, but the backward pass through the NaN branch gives NaN gradients to q, k and v; shift by 0 while the max is -inf and divide by 1 where l = 0.",
      [r"tiled_attention", r"nan", r"grad|backward"],
      [NOT_DTYPE, NOT_MEMORY, r"L_k ?- ?L_q"],
      {"tiled_attention": tiled({
          "    shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)\n": "",
          "alpha = torch.exp(m - shift)": "alpha = torch.exp(m - m_new)",
          "p = torch.exp(s - shift)": "p = torch.exp(s - m_new)",
          "return o / torch.where(l == 0, torch.ones_like(l), l)  # a query with no key: 0 / 1 = 0":
          "out = o / l\nreturn torch.where(l > 0, out, torch.zeros_like(out))  # a query with no key: 0, not NaN"})}),
    W("masks_exp_output_in_place",
      "tiled_attention also zeroes the hidden keys' weights with p.masked_fill_(...) in place on p = torch.exp(...), whose output autograd saved: backward raises",
      "tiled_attention zeroes the hidden keys' weights again with p.masked_fill_(...) in place, but p is the output of torch.exp, which autograd saved for the exp's backward; the in-place edit makes backward raise 'modified by an inplace operation' (the -inf mask before the exp already gives those keys 0); drop the in-place fill or use the out-of-place masked_fill.",
      [r"tiled_attention", r"in.?place|masked_fill_", r"backward|grad|autograd|saved"],
      [NOT_DTYPE, NOT_MEMORY, r"L_k ?- ?L_q"],
      {"tiled_attention": tiled({
          "p = torch.exp(s - shift)":
          "p = torch.exp(s - shift)\n"
          "    if causal:\n"
          "        p.masked_fill_(k_pos > q_pos, 0.0)  # make sure the hidden keys get exactly 0"})}),
    W("float32_accumulators",
      "tiled_attention creates its running m, l and o in float32 (no dtype=), like FlashAttention's float32 accumulators but without its casts: for float16/bfloat16 inputs the block weights are promoted to float32 and p @ v fails with a dtype mismatch",
      "tiled_attention makes the running max, sum and output with torch.full/torch.zeros without dtype=, so they are float32; with float16 or bfloat16 inputs the shift promotes the block weights p to float32 and p @ v_block raises a dtype mismatch (Float vs Half), and the result could not keep q's dtype anyway; FlashAttention accumulates in float32 too but casts explicitly: create the accumulators in q's dtype (or cast p and the output).",
      [r"tiled_attention", r"float32|dtype|float16|bfloat16|half|accumulat|cast"],
      [NOT_MEMORY, NOT_INPLACE, r"nan"],
      {"tiled_attention": tiled({
          'm = torch.full((*q.shape[:-1], 1), float("-inf"), dtype=q.dtype, device=q.device)  # running max':
          'm = torch.full((*q.shape[:-1], 1), float("-inf"), device=q.device)  # accumulate in float32',
          "o = torch.zeros((*q.shape[:-1], v.size(-1)), dtype=q.dtype, device=q.device)  # running e^(s - m) @ v":
          "o = torch.zeros((*q.shape[:-1], v.size(-1)), device=q.device)  # running e^(s - m) @ v"})}),
    H("two_pass_normaliser",
      "Milakov & Gimelshein's online normaliser as two passes over the key blocks: first the running max and sum, then the weights e^(s - m) / l applied block by block; attention_cost via multiply-adds x 2",
      {"attention_cost": """
        macs = {"core_attention": 2 * L * L * d_model, "projections": 4 * L * d_model ** 2,
                "feed_forward": 2 * L * d_model * 4 * d_model}
        return {name: 2 * n for name, n in macs.items()}  # 2 FLOPs per multiply-add
    """,
       "crossover_length": """
        return (24 * d_model) // 4
    """,
       "online_softmax": """
        m = x.new_full(x.shape[:-1] + (1,), float("-inf"))
        l = x.new_zeros(x.shape[:-1] + (1,))
        for blk in torch.split(x, block_size, dim=-1):
            new_m = torch.maximum(m, blk.amax(-1, keepdim=True))
            safe = new_m.nan_to_num(neginf=0.0)
            l = l * (m - safe).exp() + (blk - safe).exp().sum(-1, keepdim=True)
            m = new_m
        safe = m.nan_to_num(neginf=0.0)
        return (x - safe).exp() / l.clamp_min(torch.finfo(x.dtype).tiny)
    """,
       "tiled_attention": """
        Lq, Lk = q.shape[-2], k.shape[-2]
        q = q / math.sqrt(q.shape[-1])
        first_key = Lk - Lq  # query i sits at position first_key + i
        rows = torch.arange(Lq, device=q.device).unsqueeze(-1) + first_key

        def block_scores(start):
            s = q @ k[..., start:start + block_size, :].mT
            if causal:
                cols = torch.arange(start, start + s.shape[-1], device=q.device)
                s = torch.where(cols <= rows, s, float("-inf"))
            return s

        m = q.new_full(q.shape[:-1] + (1,), float("-inf"))
        l = q.new_zeros(q.shape[:-1] + (1,))
        for start in range(0, Lk, block_size):  # pass 1: max and normaliser
            s = block_scores(start)
            new_m = torch.maximum(m, s.amax(-1, keepdim=True))
            safe = torch.where(new_m == float("-inf"), 0.0, new_m)
            l = l * torch.exp(m - safe) + torch.exp(s - safe).sum(-1, keepdim=True)
            m = new_m
        m = torch.where(m == float("-inf"), 0.0, m)
        l = torch.where(l == 0, 1.0, l)
        out = q.new_zeros(q.shape[:-1] + (v.shape[-1],))
        for start in range(0, Lk, block_size):  # pass 2: the weights, one block at a time
            out = out + (torch.exp(block_scores(start) - m) / l) @ v[..., start:start + block_size, :]
        return out
    """}),
    H("flash2_detached_max",
      "FlashAttention-2-style single pass with the running max detached (a constant shift, so its gradient is not needed), the final division guarded by clamp_min; online_softmax keeps the running max and the log of the running sum, merged with torch.logaddexp",
      {"attention_cost": """
        d = d_model
        return dict(core_attention=4 * d * L ** 2, projections=8 * L * d ** 2, feed_forward=16 * L * d ** 2)
    """,
       "crossover_length": """
        return int(6 * d_model)
    """,
       "online_softmax": """
        m = torch.full_like(x[..., :1], float("-inf"))  # running max
        r = torch.full_like(m, float("-inf"))  # running log of the sum of e^(x - m)
        for start in range(0, x.shape[-1], block_size):
            block = x[..., start:start + block_size]
            m_new = torch.maximum(m, block.amax(dim=-1, keepdim=True))
            c = torch.where(torch.isinf(m_new), torch.zeros_like(m_new), m_new)
            r = torch.logaddexp(r + (m - c), torch.logsumexp(block - c, dim=-1, keepdim=True))
            m = m_new
        m = torch.where(torch.isinf(m), torch.zeros_like(m), m)
        r = torch.where(torch.isinf(r), torch.zeros_like(r), r)  # a row of -inf: e^(-inf - 0) = 0
        return torch.exp(x - m - r)
    """,
       "tiled_attention": """
        *lead, Lq, dk = q.shape
        Lk = k.shape[-2]
        m = q.new_full((*lead, Lq, 1), -math.inf)
        l = q.new_zeros((*lead, Lq, 1))
        acc = q.new_zeros((*lead, Lq, v.shape[-1]))
        qpos = torch.arange(Lk - Lq, Lk, device=q.device).view(Lq, 1)
        for kb, vb, kpos in zip(k.split(block_size, dim=-2), v.split(block_size, dim=-2),
                                torch.arange(Lk, device=q.device).split(block_size)):
            s = torch.matmul(q, kb.transpose(-1, -2)) / math.sqrt(dk)
            if causal:
                s = s.masked_fill(kpos.view(1, -1) > qpos, -math.inf)
            m_new = torch.maximum(m, s.detach().amax(dim=-1, keepdim=True))  # a constant shift
            c = torch.where(torch.isinf(m_new), torch.zeros_like(m_new), m_new)
            p = torch.exp(s - c)
            corr = torch.exp(m - c)
            l = corr * l + p.sum(dim=-1, keepdim=True)
            acc = corr * acc + torch.matmul(p, vb)
            m = m_new
        return acc / l.clamp_min(torch.finfo(l.dtype).tiny)
    """}),
]
