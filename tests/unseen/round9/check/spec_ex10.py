import textwrap

OK_COST = """
return {
    "core_attention": 4 * L * L * d_model,
    "projections": 8 * L * d_model * d_model,
    "feed_forward": 16 * L * d_model * d_model,
}
"""
OK_CROSS = """
return 6 * d_model
"""
OK_ONLINE = """
n = x.size(-1)
m = x.new_full(x.shape[:-1] + (1,), float("-inf"))
l = x.new_zeros(x.shape[:-1] + (1,))
for start in range(0, n, block_size):
    blk = x[..., start:start + block_size]
    m_new = torch.maximum(m, blk.amax(dim=-1, keepdim=True))
    shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
    l = l * torch.exp(m - shift) + torch.exp(blk - shift).sum(dim=-1, keepdim=True)
    m = m_new
shift = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
return torch.exp(x - shift) / torch.where(l == 0, torch.ones_like(l), l)
"""
TILED_HEAD = """
L_q, L_k = q.size(-2), k.size(-2)
scale = 1.0 / math.sqrt(q.size(-1))
m = q.new_full(q.shape[:-1] + (1,), float("-inf"))
l = q.new_zeros(q.shape[:-1] + (1,))
o = q.new_zeros(q.shape[:-1] + (v.size(-1),))
q_pos = torch.arange(L_q, device=q.device) + (L_k - L_q)
"""
TILED_LOOP = """
for start in range(0, L_k, block_size):
    kb, vb = k[..., start:start + block_size, :], v[..., start:start + block_size, :]
    s = (q @ kb.transpose(-2, -1)) * scale
    if causal:
        k_pos = torch.arange(start, start + kb.size(-2), device=q.device)
        s = s.masked_fill(k_pos[None, :] > q_pos[:, None], float("-inf"))
    m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
    shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
    p = torch.exp(s - shift)
    alpha = torch.exp(m - shift)
    l = l * alpha + p.sum(dim=-1, keepdim=True)
    o = o * alpha + p @ vb
    m = m_new
"""
TILED_TAIL = """
return o / torch.where(l == 0, torch.ones_like(l), l)
"""
OK_TILED = TILED_HEAD + TILED_LOOP + TILED_TAIL


def ok(**over):
    b = {"attention_cost": OK_COST, "crossover_length": OK_CROSS, "online_softmax": OK_ONLINE,
         "tiled_attention": OK_TILED}
    b.update(over)
    return b


VARIANTS = [
    dict(
        name="cost_counts_only_qk", kind="wrong",
        mistake="attention_cost counts only S = Q Kᵀ for the core attention (2·L²·d), forgetting the second product A V",
        ideal="Core attention is two L×L×d products: the scores Q Kᵀ AND the weighted sum A V, 2 FLOPs per multiply-add each: 4·L²·d.",
        expect=[r"A ?V|A ?@ ?V|weights? ?@ ?v|second (product|matmul)|two products|4 ?[·*]? ?L|twice|factor (of )?2|half"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies=ok(attention_cost="""
            core = 2 * L * L * d_model          # S = Q K^T: L*L*d multiply-adds, 2 FLOPs each
            return {
                "core_attention": core,
                "projections": 8 * L * d_model * d_model,
                "feed_forward": 16 * L * d_model * d_model,
            }
            """),
    ),
    dict(
        name="crossover_returns_float", kind="wrong",
        mistake="crossover_length solves 4·L²·d = 24·L·d² with true division (24·d² / (4·d)) and returns a float (4608.0), not an int",
        ideal="The result must be an int: L = 6·d exactly, so return 6 * d_model (or use //). `/` always gives a float in Python 3.",
        expect=[r"\bint\b|integer|float|4608\.0|//|true division|type"],
        reject=[r"in[- ]?place", r"rescal"],
        bodies=ok(crossover_length="""
            return 24 * d_model ** 2 / (4 * d_model)
            """),
    ),
    dict(
        name="online_sum_not_rescaled", kind="wrong",
        mistake="online_softmax adds each block's Σ e^(x - m_new) to the running sum without first rescaling the old sum by e^(m_old - m_new) when the max rises",
        ideal="Terms summed earlier used the old max; when a block raises it, multiply l by e^(m_old - m_new) before adding the block's terms,\nor the sum is too large (wrong whenever the max is not in the first block).",
        expect=[r"rescal|e\^?\(?m_?(old)? ?- ?m_new|correct(ion)? factor|old (sum|max)|running sum|alpha|exp\(m"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies=ok(online_softmax="""
            n = x.size(-1)
            m = x.new_full(x.shape[:-1] + (1,), float("-inf"))
            l = x.new_zeros(x.shape[:-1] + (1,))
            for start in range(0, n, block_size):
                blk = x[..., start:start + block_size]
                m_new = torch.maximum(m, blk.amax(dim=-1, keepdim=True))
                shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
                l = l + torch.exp(blk - shift).sum(dim=-1, keepdim=True)
                m = m_new
            shift = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
            return torch.exp(x - shift) / torch.where(l == 0, torch.ones_like(l), l)
            """),
    ),
    dict(
        name="output_not_rescaled", kind="wrong",
        mistake="tiled_attention rescales the running sum l by e^(m - m_new) but forgets to rescale the running output o the same way",
        ideal="o was accumulated with the old max too: o <- o·e^(m - m_new) + e^(s_b - m_new) @ v_b. Without it, earlier blocks are over-weighted\nwhenever a later block raises the max (results depend on block_size).",
        expect=[r"rescal|\bo\b.{0,40}(e\^|exp|alpha|factor)|output accumulator|running output|alpha|e\^?\(?m ?- ?m_new"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies=ok(tiled_attention=OK_TILED.replace("o = o * alpha + p @ vb", "o = o + p @ vb")),
    ),
    dict(
        name="full_score_matrix", kind="wrong",
        mistake="tiled_attention computes the whole (L_q, L_k) score matrix Q Kᵀ up front and only then walks over it block by block",
        ideal="The point is never to hold the L×L scores: memory must grow like L·block_size. Compute each block's scores inside the loop,\nq @ k_block.transpose(-2, -1), from the block of keys.",
        expect=[r"L ?[×x*] ?L|L\^?2|L²|quadratic|whole|full|entire|memory|never (build|form|hold|materiali)|materiali|\(L_q, ?L_k\)"],
        reject=[r"\bdtype\b", r"rescal"],
        bodies=ok(tiled_attention=TILED_HEAD + textwrap.dedent("""
            S = (q @ k.transpose(-2, -1)) * scale
            if causal:
                k_all = torch.arange(L_k, device=q.device)
                S = S.masked_fill(k_all[None, :] > q_pos[:, None], float("-inf"))
            for start in range(0, L_k, block_size):
                s = S[..., start:start + block_size]
                vb = v[..., start:start + block_size, :]
                m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
                shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
                p = torch.exp(s - shift)
                alpha = torch.exp(m - shift)
                l = l * alpha + p.sum(dim=-1, keepdim=True)
                o = o * alpha + p @ vb
                m = m_new
            """) + TILED_TAIL),
    ),
    dict(
        name="causal_top_left", kind="wrong",
        mistake="tiled_attention's causal mask puts query i at position i (key j allowed when j <= i) instead of at L_k - L_q + i, which is wrong whenever L_q != L_k",
        ideal="The queries are the LAST L_q positions: query i sits at L_k - L_q + i (as with a KV cache). Comparing keys with i aligns them top-left,\nso a decoding step with 1 query sees only key 0.",
        expect=[r"L_k ?- ?L_q|offset|position|last L_q|align|bottom[- ]right|top[- ]left|L_q ?!= ?L_k|kv cache|shift"],
        reject=[r"\bdtype\b", r"rescal"],
        bodies=ok(tiled_attention=OK_TILED.replace("q_pos = torch.arange(L_q, device=q.device) + (L_k - L_q)",
                                                     "q_pos = torch.arange(L_q, device=q.device)")),
    ),
    dict(
        name="drops_last_block", kind="wrong",
        mistake="tiled_attention loops over range(0, L_k - block_size + 1, block_size), i.e. only full blocks: the shorter last block is skipped (and block_size > L_k reads no key at all)",
        ideal="When block_size does not divide L_k the last block is shorter and still holds keys; loop over range(0, L_k, block_size)\nand let slicing shorten the last block.",
        expect=[r"last block|remainder|shorter|partial|divid|range\(0, ?L_k|block_size ?> ?L_k|skip|miss|incomplete|leftover"],
        reject=[r"\bdtype\b", r"rescal"],
        bodies=ok(tiled_attention=OK_TILED.replace("for start in range(0, L_k, block_size):",
                                                     "for start in range(0, L_k - block_size + 1, block_size):")),
    ),
    dict(
        name="nan_to_num_backward", kind="wrong",
        mistake="tiled_attention shifts by m_new even when it is -inf (a query with no key), making NaN, then hides it with nan_to_num at the end: the output is right but the gradients are NaN",
        ideal="nan_to_num cleans the forward value only; autograd still runs through exp(-inf - (-inf)) = NaN. Shift by 0 where m_new is -inf\nand divide by 1 where l is 0, so no NaN is ever made.",
        expect=[r"gradient|backward|grad\b|autograd"],
        reject=[r"\bdtype\b", r"rescal"],
        bodies=ok(tiled_attention=OK_TILED.replace(
            "    shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)\n", "    shift = m_new\n").replace(
            TILED_TAIL.strip(), "return torch.nan_to_num(o / l)")),
    ),
    dict(
        name="flash_two_style", kind="honest",
        method="FlashAttention-2 style: unnormalised accumulator with running max and sum, m initialised with new_full(-inf), safe shift via torch.where; online_softmax with torch.maximum and a second pass",
        bodies=ok(attention_cost="""
            mult_adds = {"core_attention": 2 * L * L * d_model,      # Q K^T and A V
                         "projections": 4 * L * d_model * d_model,   # W_Q, W_K, W_V, W_O
                         "feed_forward": 2 * L * d_model * 4 * d_model}
            return {name: 2 * n for name, n in mult_adds.items()}
            """, crossover_length="""
            # 4 L^2 d = 24 L d^2  <=>  L = 24 d^2 / (4 d) = 6 d
            return (24 * d_model * d_model) // (4 * d_model)
            """, online_softmax="""
            m = None
            l = None
            for blk in x.split(block_size, dim=-1):
                bm = blk.amax(dim=-1, keepdim=True)
                m_new = bm if m is None else torch.maximum(m, bm)
                safe = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
                part = torch.exp(blk - safe).sum(dim=-1, keepdim=True)
                l = part if l is None else l * torch.exp(m - safe) + part
                m = m_new
            safe = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
            denom = torch.where(l > 0, l, torch.ones_like(l))
            return torch.exp(x - safe) / denom
            """, tiled_attention="""
            L_q, L_k, d_k = q.shape[-2], k.shape[-2], q.shape[-1]
            acc = torch.zeros(q.shape[:-1] + (v.shape[-1],), dtype=q.dtype, device=q.device)
            row_max = torch.full(q.shape[:-1] + (1,), float("-inf"), dtype=q.dtype, device=q.device)
            row_sum = torch.zeros(q.shape[:-1] + (1,), dtype=q.dtype, device=q.device)
            q_scaled = q / math.sqrt(d_k)
            last_visible = torch.arange(L_q, device=q.device)[:, None] + (L_k - L_q)
            start = 0
            for k_blk, v_blk in zip(k.split(block_size, dim=-2), v.split(block_size, dim=-2)):
                s = q_scaled @ k_blk.transpose(-2, -1)
                if causal:
                    key_idx = torch.arange(start, start + k_blk.shape[-2], device=q.device)[None, :]
                    s = torch.where(key_idx <= last_visible, s, torch.full_like(s, float("-inf")))
                start += k_blk.shape[-2]
                new_max = torch.maximum(row_max, s.amax(dim=-1, keepdim=True))
                ref = torch.where(torch.isfinite(new_max), new_max, torch.zeros_like(new_max))
                p = torch.exp(s - ref)
                corr = torch.exp(row_max - ref)
                row_sum = corr * row_sum + p.sum(dim=-1, keepdim=True)
                acc = corr * acc + p @ v_blk
                row_max = new_max
            ok_rows = row_sum > 0
            return torch.where(ok_rows, acc / torch.where(ok_rows, row_sum, torch.ones_like(row_sum)), torch.zeros_like(acc))
            """),
    ),
    dict(
        name="logsumexp_normalised", kind="honest",
        method="FlashAttention-1 style: keeps a running log-sum-exp and an already-normalised output, merging each block's normalised result with weights e^(lse_old - lse_new), e^(lse_block - lse_new)",
        helpers='''
            from fractions import Fraction


            def _lse_rows(s):
                """logsumexp over the last dim, -inf for an all -inf row, with finite gradients."""
                dead = torch.isneginf(s).all(dim=-1, keepdim=True)
                lse = torch.logsumexp(torch.where(dead, torch.zeros_like(s), s), dim=-1, keepdim=True)
                return torch.where(dead, torch.full_like(lse, float("-inf")), lse)


            def _merge(lse_a, lse_b):
                """log(e^a + e^b) and the two weights e^(a - new), e^(b - new); all finite when both are -inf."""
                mx = torch.maximum(lse_a, lse_b)
                mx = torch.where(torch.isneginf(mx), torch.zeros_like(mx), mx)
                wa, wb = torch.exp(lse_a - mx), torch.exp(lse_b - mx)
                tot = wa + wb
                safe = torch.where(tot == 0, torch.ones_like(tot), tot)
                new = torch.where(tot == 0, torch.full_like(tot, float("-inf")), mx + torch.log(safe))
                return new, wa / safe, wb / safe
            ''',
        bodies=ok(attention_cost="""
            quadratic = 4 * L ** 2 * d_model
            linear = L * d_model ** 2
            return dict(core_attention=quadratic, projections=8 * linear, feed_forward=16 * linear)
            """, crossover_length="""
            # divide both sides of 4 L^2 d = 24 L d^2 by 4 L d, exactly
            L = Fraction(24 * d_model * d_model, 4 * d_model)
            return int(L)
            """, online_softmax="""
            lse = x.new_full(x.shape[:-1] + (1,), float("-inf"))
            for start in range(0, x.shape[-1], block_size):
                lse, _, _ = _merge(lse, _lse_rows(x[..., start:start + block_size]))
            shift = torch.where(torch.isneginf(lse), torch.zeros_like(lse), lse)
            return torch.exp(x - shift)
            """, tiled_attention="""
            L_q, L_k = q.shape[-2], k.shape[-2]
            scale = q.shape[-1] ** -0.5
            offset = L_k - L_q
            lse = q.new_full(q.shape[:-1] + (1,), float("-inf"))
            out = q.new_zeros(q.shape[:-1] + (v.shape[-1],))
            rows = torch.arange(L_q, device=q.device).unsqueeze(-1) + offset
            for j0 in range(0, L_k, block_size):
                j1 = min(j0 + block_size, L_k)
                s = torch.einsum("...id,...jd->...ij", q, k[..., j0:j1, :]) * scale
                if causal:
                    cols = torch.arange(j0, j1, device=q.device).unsqueeze(0)
                    s = torch.where(cols <= rows, s, torch.full_like(s, float("-inf")))
                lse_b = _lse_rows(s)
                p = torch.exp(s - torch.where(torch.isneginf(lse_b), torch.zeros_like(lse_b), lse_b))
                out_b = p @ v[..., j0:j1, :]                         # already normalised within the block
                lse, w_old, w_new = _merge(lse, lse_b)
                out = out * w_old + out_b * w_new
            return out
            """),
    ),
]
