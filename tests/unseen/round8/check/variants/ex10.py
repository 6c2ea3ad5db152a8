_ONLINE = """
        m = torch.full(x.shape[:-1] + (1,), float("-inf"), dtype=x.dtype, device=x.device)
        l = torch.zeros(x.shape[:-1] + (1,), dtype=x.dtype, device=x.device)
        for s in range(0, x.shape[-1], block_size):
            blk = x[..., s:s + block_size]
            m_new = torch.maximum(m, blk.amax(dim=-1, keepdim=True))
            shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
            l = l * torch.exp(m - shift) + torch.exp(blk - shift).sum(dim=-1, keepdim=True)
            m = m_new
        m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
        return torch.exp(x - m) / torch.where(l == 0, torch.ones_like(l), l)
"""
_TILED = """
        L_q, L_k = q.shape[-2], k.shape[-2]
        scale = 1.0 / math.sqrt(q.shape[-1])
        m = torch.full(q.shape[:-1] + (1,), float("-inf"), dtype=q.dtype, device=q.device)
        l = torch.zeros(q.shape[:-1] + (1,), dtype=q.dtype, device=q.device)
        o = torch.zeros(q.shape[:-1] + (v.shape[-1],), dtype=q.dtype, device=q.device)
        q_pos = torch.arange(L_q, device=q.device)[:, None] + (L_k - L_q)
        for start in range(0, L_k, block_size):
            k_b, v_b = k[..., start:start + block_size, :], v[..., start:start + block_size, :]
            s = (q @ k_b.transpose(-2, -1)) * scale
            if causal:
                k_pos = torch.arange(start, start + k_b.shape[-2], device=q.device)[None, :]
                s = s.masked_fill(k_pos > q_pos, float("-inf"))
            m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
            shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
            alpha = torch.exp(m - shift)
            p = torch.exp(s - shift)
            l = l * alpha + p.sum(dim=-1, keepdim=True)
            o = o * alpha + p @ v_b
            m = m_new
        return o / torch.where(l == 0, torch.ones_like(l), l)
"""
DEFAULT = {
    "attention_cost": """
        return {
            "core_attention": 4 * L * L * d_model,
            "projections": 8 * L * d_model * d_model,
            "feed_forward": 16 * L * d_model * d_model,
        }
    """,
    "crossover_length": """
        return 6 * d_model
    """,
    "online_softmax": _ONLINE,
    "tiled_attention": _TILED,
}

VARIANTS = [
    dict(kind="wrong", name="full_score_matrix",
         mistake="tiled_attention computes the whole (L_q, L_k) score matrix first and then runs the online update over its column blocks",
         ideal="The scores q @ kᵀ are computed for all keys at once, so an (L_q, L_k) tensor, quadratic in L, is materialised before the blocks are read: the memory is L² again, which is exactly what tiling must avoid; compute each block's scores from its own keys k[..., start:end, :].",
         expect=[r"L_q, ?L_k|L×L|L\s*x\s*L|whole|full|materiali", r"memory|quadratic|L²|L\^2"],
         bodies={"tiled_attention": _TILED.replace(
             "        for start in range(0, L_k, block_size):\n            k_b, v_b = k[..., start:start + block_size, :], v[..., start:start + block_size, :]\n            s = (q @ k_b.transpose(-2, -1)) * scale\n",
             "        scores = (q @ k.transpose(-2, -1)) * scale  # (..., L_q, L_k)\n        for start in range(0, L_k, block_size):\n            k_b, v_b = k[..., start:start + block_size, :], v[..., start:start + block_size, :]\n            s = scores[..., start:start + block_size]\n")}),
    dict(kind="wrong", name="output_not_rescaled",
         mistake="tiled_attention rescales the running sum l by e^(m - m_new) but not the running output o",
         ideal="When a block raises the running max, the output accumulated so far was computed with e^(s - m_old) and must also be multiplied by e^(m_old - m_new); only l is rescaled here, so earlier blocks are over-weighted whenever the max grows (right only with one block or a max that never rises).",
         expect=[r"rescal|e\^\(m|alpha", r"\bo\b|output|accumulat"],
         bodies={"tiled_attention": _TILED.replace("            o = o * alpha + p @ v_b\n", "            o = o + p @ v_b\n")}),
    dict(kind="wrong", name="causal_top_left",
         mistake="tiled_attention's causal mask puts query i at position i, not at L_k - L_q + i (the kit's bottom-right, KV-cache convention)",
         ideal="The causal test compares key positions with the query index i, so the queries are taken to be the FIRST L_q positions; the kit puts them last, at L_k - L_q + i, so with L_q != L_k the queries see too few keys (or some that the contract hides). With L_q = L_k it is right.",
         expect=[r"L_k ?- ?L_q|offset|position|bottom[- ]right|last", r"causal|L_q ?!= ?L_k|mask"],
         bodies={"tiled_attention": _TILED.replace("[:, None] + (L_k - L_q)", "[:, None]")}),
    dict(kind="wrong", name="drops_short_last_block",
         mistake="tiled_attention loops over range(0, L_k - block_size + 1, block_size), which skips a last block shorter than block_size (and every key when block_size > L_k)",
         ideal="The loop bound L_k - block_size + 1 only visits full blocks, so the keys of a shorter last block are never read (and with block_size > L_k no block is read at all, giving zeros); loop over range(0, L_k, block_size) and slice to the end.",
         expect=[r"last block|shorter|partial|tail|skip", r"range|loop|block_size ?> ?L_k|never read"],
         bodies={"tiled_attention": _TILED.replace("range(0, L_k, block_size)", "range(0, L_k - block_size + 1, block_size)")}),
    dict(kind="wrong", name="online_rescale_inverted",
         mistake="online_softmax rescales the running sum by e^(m_new - m) instead of e^(m - m_new)",
         ideal="The rescaling factor is inverted: the old sum must shrink by e^(m_old - m_new) <= 1 when the max rises, but it is multiplied by e^(m_new - m_old) >= 1 (inf times 0 = NaN on the first block, where m_old = -inf); the sign of the exponent is flipped.",
         expect=[r"invert|flip|sign|e\^\(m_new ?- ?m", r"rescal|factor|exponent"],
         bodies={"online_softmax": _ONLINE.replace("l * torch.exp(m - shift)", "l * torch.exp(shift - m)")}),
    dict(kind="wrong", name="crossover_float",
         mistake="crossover_length returns 24 * d_model / 4, a float, instead of an int",
         ideal="The formula is right but / is true division, so crossover_length(768) returns 4608.0, a float, while the contract asks for an int; use integer arithmetic (6 * d_model or //).",
         expect=[r"float|true division|4608\.0", r"\bint\b|//|integer"],
         bodies={"crossover_length": """
        # 4 L^2 d = 24 L d^2  ->  L = 24 d^2 / (4 d)
        return 24 * d_model ** 2 / (4 * d_model)
    """}),
    dict(kind="wrong", name="scale_by_value_width",
         mistake="tiled_attention scales the scores by 1/sqrt(v.size(-1)), the width of the values, instead of 1/sqrt(d_k) = 1/sqrt(q.size(-1))",
         ideal="The scale uses d_v = v.size(-1), but the scores are dot products of d_k-wide queries and keys, so they must be divided by √d_k = √q.size(-1); the result is only right when d_v == d_k.",
         expect=[r"d_v|v\.size\(-1\)|values' width|width of the values", r"d_k|q\.size\(-1\)|queries"],
         bodies={"tiled_attention": _TILED.replace("scale = 1.0 / math.sqrt(q.shape[-1])", "scale = 1.0 / math.sqrt(v.shape[-1])")}),
    dict(kind="wrong", name="unguarded_final_division",
         mistake="tiled_attention returns o / l without guarding l = 0, so a causal query that may see no key (L_q > L_k) gets 0/0 = NaN",
         ideal="For the first L_q - L_k queries of causal attention with L_q > L_k every score is -inf, so l stays 0 and o / l is 0/0 = NaN; the contract wants a zero output there: divide by 1 where l is 0.",
         expect=[r"0/0|NaN|l ?= ?0|zero sum", r"no key|L_q ?> ?L_k|fully masked|zero output|guard"],
         bodies={"tiled_attention": _TILED.replace("        return o / torch.where(l == 0, torch.ones_like(l), l)\n", "        return o / l\n")}),
    dict(kind="honest", name="split_blocks_where",
         method="blocks from Tensor.split, the causal test with torch.where on per-block position aranges, costs via multiply-adds times 2, crossover by integer division",
         bodies={"attention_cost": """
        macs_core = 2 * L * L * d_model           # Q K^T and A V
        macs_proj = 4 * L * d_model * d_model     # W_Q, W_K, W_V, W_O
        macs_ffn = 2 * L * d_model * 4 * d_model  # d -> 4d -> d
        return {"core_attention": 2 * macs_core, "projections": 2 * macs_proj, "feed_forward": 2 * macs_ffn}
    """, "crossover_length": """
        return (24 * d_model * d_model) // (4 * d_model)
    """, "online_softmax": """
        lead = x.shape[:-1]
        run_max = x.new_full((*lead, 1), float("-inf"))
        run_sum = x.new_zeros((*lead, 1))
        for chunk in x.split(block_size, dim=-1):
            new_max = torch.maximum(run_max, chunk.amax(-1, keepdim=True))
            ref_pt = torch.where(new_max == float("-inf"), torch.zeros_like(new_max), new_max)
            run_sum = run_sum * (run_max - ref_pt).exp() + (chunk - ref_pt).exp().sum(-1, keepdim=True)
            run_max = new_max
        ref_pt = torch.where(run_max == float("-inf"), torch.zeros_like(run_max), run_max)
        denom = torch.where(run_sum > 0, run_sum, torch.ones_like(run_sum))
        return (x - ref_pt).exp() / denom
    """, "tiled_attention": """
        L_q, L_k = q.size(-2), k.size(-2)
        q = q * (q.size(-1) ** -0.5)
        neg = torch.full((), float("-inf"), dtype=q.dtype, device=q.device)
        run_max = q.new_full((*q.shape[:-1], 1), float("-inf"))
        run_sum = q.new_zeros((*q.shape[:-1], 1))
        acc = q.new_zeros((*q.shape[:-1], v.size(-1)))
        q_pos = torch.arange(L_k - L_q, L_k, device=q.device).unsqueeze(-1)
        start = 0
        for k_b, v_b in zip(k.split(block_size, dim=-2), v.split(block_size, dim=-2)):
            s = torch.matmul(q, k_b.mT)
            if causal:
                k_pos = torch.arange(start, start + k_b.size(-2), device=q.device)
                s = torch.where(k_pos <= q_pos, s, neg)
            start += k_b.size(-2)
            new_max = torch.maximum(run_max, s.amax(-1, keepdim=True))
            ref_pt = torch.where(torch.isinf(new_max), torch.zeros_like(new_max), new_max)
            decay = (run_max - ref_pt).exp()
            w = (s - ref_pt).exp()
            run_sum = decay * run_sum + w.sum(-1, keepdim=True)
            acc = decay * acc + torch.matmul(w, v_b)
            run_max = new_max
        return acc / torch.where(run_sum > 0, run_sum, torch.ones_like(run_sum))
    """}),
    dict(kind="honest", name="running_logsumexp",
         method="keeps a running log-sum-exp and an already normalised output (rescaled by e^(lse_old - lse_new)) instead of m, l and o; online_softmax the same way with a final exp(x - lse)",
         bodies={"attention_cost": """
        flops = {}
        flops["core_attention"] = 2 * (L * L * d_model + L * L * d_model)
        flops["projections"] = 2 * 4 * (L * d_model * d_model)
        flops["feed_forward"] = 2 * (L * d_model * 4 * d_model + L * 4 * d_model * d_model)
        return flops
    """, "crossover_length": """
        return int(6 * d_model)
    """, "online_softmax": """
        neg = float("-inf")
        lse = torch.full(x.shape[:-1] + (1,), neg, dtype=x.dtype, device=x.device)
        n = x.shape[-1]
        for start in range(0, n, block_size):
            blk = x[..., start:min(start + block_size, n)]
            mx = torch.maximum(lse, blk.amax(dim=-1, keepdim=True))
            mx0 = torch.where(torch.isneginf(mx), torch.zeros_like(mx), mx)
            tot = torch.exp(lse - mx0) + torch.exp(blk - mx0).sum(dim=-1, keepdim=True)
            empty = tot == 0
            lse = torch.where(empty, torch.full_like(tot, neg), mx0 + torch.log(torch.where(empty, torch.ones_like(tot), tot)))
        lse0 = torch.where(torch.isneginf(lse), torch.zeros_like(lse), lse)
        return torch.exp(x - lse0)
    """, "tiled_attention": """
        neg = float("-inf")
        L_q, L_k = q.shape[-2], k.shape[-2]
        scale = q.shape[-1] ** -0.5
        lse = torch.full(q.shape[:-1] + (1,), neg, dtype=q.dtype, device=q.device)
        out = torch.zeros(q.shape[:-1] + (v.shape[-1],), dtype=q.dtype, device=q.device)
        rows = torch.arange(L_q, device=q.device).unsqueeze(-1) + (L_k - L_q)
        for start in range(0, L_k, block_size):
            stop = min(start + block_size, L_k)
            s = torch.einsum("...qd,...kd->...qk", q, k[..., start:stop, :]) * scale
            if causal:
                cols = torch.arange(start, stop, device=q.device)
                s = s.masked_fill(cols > rows, neg)
            mx = torch.maximum(lse, s.amax(dim=-1, keepdim=True))
            mx0 = torch.where(torch.isneginf(mx), torch.zeros_like(mx), mx)
            tot = torch.exp(lse - mx0) + torch.exp(s - mx0).sum(dim=-1, keepdim=True)
            empty = tot == 0
            new_lse = torch.where(empty, torch.full_like(tot, neg), mx0 + torch.log(torch.where(empty, torch.ones_like(tot), tot)))
            new0 = torch.where(empty, torch.zeros_like(new_lse), new_lse)
            out = out * torch.exp(lse - new0) + torch.exp(s - new0) @ v[..., start:stop, :]
            lse = new_lse
        return out
    """}),
]
