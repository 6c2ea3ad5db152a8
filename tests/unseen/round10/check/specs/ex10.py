import textwrap

CORRECT = {
    "attention_cost": """
        return {
            "core_attention": 4 * L * L * d_model,
            "projections": 8 * L * d_model * d_model,
            "feed_forward": 16 * L * d_model * d_model,
        }
    """,
    "crossover_length": """
        return 6 * d_model  # 4 L^2 d = 24 L d^2  <=>  L = 6 d
    """,
    "online_softmax": """
        n = x.size(-1)
        m = torch.full((*x.shape[:-1], 1), float("-inf"), dtype=x.dtype, device=x.device)
        l = torch.zeros_like(m)
        for s in range(0, n, block_size):
            b = x[..., s:s + block_size]
            m_new = torch.maximum(m, b.amax(dim=-1, keepdim=True))
            m_safe = torch.where(m_new == float("-inf"), torch.zeros_like(m_new), m_new)
            l = l * torch.exp(m - m_safe) + torch.exp(b - m_safe).sum(dim=-1, keepdim=True)
            m = m_new
        m_safe = torch.where(m == float("-inf"), torch.zeros_like(m), m)
        return torch.exp(x - m_safe) / torch.where(l == 0, torch.ones_like(l), l)
    """,
    "tiled_attention": """
        L_q, d_k = q.shape[-2], q.shape[-1]
        L_k = k.shape[-2]
        scale = 1.0 / math.sqrt(d_k)
        m = torch.full((*q.shape[:-1], 1), float("-inf"), dtype=q.dtype, device=q.device)  # (..., L_q, 1)
        l = torch.zeros_like(m)
        o = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype, device=q.device)  # (..., L_q, d_v)
        q_pos = torch.arange(L_q, device=q.device) + (L_k - L_q)  # position of each query
        for s in range(0, L_k, block_size):
            kb, vb = k[..., s:s + block_size, :], v[..., s:s + block_size, :]
            sc = (q @ kb.transpose(-2, -1)) * scale  # (..., L_q, bs)
            if causal:
                k_pos = torch.arange(s, s + kb.shape[-2], device=q.device)
                sc = sc.masked_fill(k_pos[None, :] > q_pos[:, None], float("-inf"))
            m_new = torch.maximum(m, sc.amax(dim=-1, keepdim=True))
            m_safe = torch.where(m_new == float("-inf"), torch.zeros_like(m_new), m_new)
            alpha = torch.exp(m - m_safe)  # rescales what was summed so far
            p = torch.exp(sc - m_safe)
            l = l * alpha + p.sum(dim=-1, keepdim=True)
            o = o * alpha + p @ vb
            m = m_new
        return o / torch.where(l == 0, torch.ones_like(l), l)
    """,
}

T = textwrap.dedent(CORRECT["tiled_attention"])
OS = textwrap.dedent(CORRECT["online_softmax"])


def rep(src, old, new):
    assert old in src, old
    return src.replace(old, new)


WRONG = [
    dict(
        name="wrong_core_counts_one_product",
        mistake="attention_cost counts core attention as 2·L²·d (only S = Q K^T), forgetting the second product A V",
        ideal="core_attention must count both L×L×d products, Q K^T and A V, at 2 FLOPs per multiply-add: 4·L²·d; the code gives 2·L²·d (half), the other two terms are right",
        expect=r"core.?attention|A ?V|both products|second product|two products|4 ?[·*x]? ?L|2 ?[·*x]? ?L|half|factor (of )?2|Q ?K",
        reject=[r"projection", r"feed.?forward", r"crossover", r"dtype"],
    ),
    dict(
        name="wrong_crossover_float",
        mistake="crossover_length returns 24 * d_model / 4, a float (4608.0), where the docstring asks for an int",
        ideal="crossover_length uses true division, so it returns a float (4608.0) instead of an int; the value is right, the type is not; use integer arithmetic (6 * d_model or //)",
        expect=r"\bint\b|integer|float|type|//|true division|4608\.0|isinstance",
        reject=[r"core.?attention", r"online|tiled", r"off.?by.?one", r"24 ?L ?d"],
    ),
    dict(
        name="wrong_online_no_rescale",
        mistake="online_softmax adds each block's sum without rescaling the running sum l by e^(m_old - m_new) when the max rises",
        ideal="when a block raises the running max, the sum so far was computed with the old max and must be multiplied by e^(m_old - m_new); without it the normaliser is too large, rows do not sum to 1 (right only when the max never rises after the first block, or with one block)",
        expect=r"rescal|e\^?\(?m|exp\(m|correction|factor|running (sum|max)|m_old|m_new|normali[sz]|sum to 1|alpha",
        reject=[r"dtype", r"causal", r"last block|drop", r"nan|fully masked"],
    ),
    dict(
        name="wrong_causal_no_offset",
        mistake="tiled_attention puts query i at position i (ignores the L_k - L_q offset), so causal attention with fewer queries than keys hides keys it should see",
        ideal="the causal rule in this kit puts query i at position L_k - L_q + i (the queries are the last L_q positions); the code uses position i, which is only right when L_q == L_k: with L_q < L_k (a KV-cache step) queries miss their recent keys, and with L_q > L_k the unseen queries are wrong",
        expect=r"offset|L_k ?- ?L_q|position|last L_q|L_q ?(!=|<|>|differ)|fewer queries|more queries|kv.?cache|diagonal",
        reject=[r"dtype", r"last block|drop", r"rescal", r"float|int\b"],
    ),
    dict(
        name="wrong_materialises_full_scores",
        mistake="tiled_attention computes the scores block by block but concatenates them into the full (L_q, L_k) matrix before one softmax, so memory grows like L²",
        ideal="the blocks are glued back into the whole (..., L_q, L_k) score matrix (torch.cat) before normalising: the values are right but the memory is O(L²), which is exactly what tiling must avoid; keep running m, l, o instead",
        expect=r"memory|L ?[²2]|L\^2|quadratic|full (score|matrix)|\(L_q, ?L_k\)|materiali[sz]|torch\.cat|concatenat|whole matrix|largest tensor|out of memory|oom",
        reject=[r"dtype", r"causal", r"rescal", r"nan"],
    ),
    dict(
        name="wrong_drops_last_block",
        mistake="tiled_attention loops over L_k // block_size blocks, so a trailing partial block (L_k not a multiple of block_size, or block_size > L_k) is never read",
        ideal="the loop runs L_k // block_size times: the keys of the last, shorter block are skipped (and with block_size > L_k no key is read at all); loop over range(0, L_k, block_size)",
        expect=r"last block|partial block|shorter|remainder|L_k ?// ?block|not a multiple|divisib|ceil|skip|drop|trailing|block_size ?> ?L_k|range",
        reject=[r"dtype", r"causal", r"rescal", r"memory|quadratic"],
    ),
    dict(
        name="wrong_where_div_nan_grad",
        mistake="tiled_attention ends with torch.where(l == 0, 0, o / l): the forward output of a query that sees no key is 0, but o / l is still 0/0 = NaN inside, so its backward gives NaN gradients (to v)",
        ideal="the final division is guarded only in the forward pass: torch.where picks 0, but o / l is computed for l = 0 and its backward is 0/0 = NaN, which reaches v's gradient for queries that see no key (causal, L_q > L_k); divide by a safe denominator (l where l > 0, else 1) instead",
        expect=r"gradient|grad\b|backward|autograd|nan|0 ?/ ?0|where",
        reject=[r"dtype", r"last block|drop", r"rescal", r"memory|quadratic"],
    ),
    dict(
        name="wrong_accumulator_dtype",
        mistake="tiled_attention creates its running m, l, o with torch.full/torch.zeros without dtype=/device= (float32, CPU): float64 is silently promoted and looks right, but float16/bfloat16 inputs crash (float32 block weights @ float16 values) and CUDA inputs mix devices",
        ideal="the accumulators are float32 CPU tensors (no dtype=/device=): float64 is promoted back so it looks right, but with float16/bfloat16 inputs the float32 weights meet half-precision values in p @ v and it raises a dtype mismatch, and CUDA inputs fail on the device mismatch; create them with q's dtype and device",
        expect=r"dtype|float32|float16|half|bfloat16|device|cpu|cuda|accumulator|zeros|torch\.full",
        reject=[r"causal", r"last block|drop", r"rescal", r"nan|gradient"],
    ),
]

BODIES = {
    "wrong_core_counts_one_product": {"attention_cost": """
        return {
            "core_attention": 2 * L * L * d_model,  # S = Q K^T: L*L*d multiply-adds
            "projections": 8 * L * d_model * d_model,
            "feed_forward": 16 * L * d_model * d_model,
        }
    """},
    "wrong_crossover_float": {"crossover_length": """
        return 24 * d_model / 4  # 4 L^2 d = 24 L d^2  =>  L = 24 d / 4
    """},
    "wrong_online_no_rescale": {"online_softmax": rep(
        OS, "l = l * torch.exp(m - m_safe) + torch.exp(b - m_safe).sum(dim=-1, keepdim=True)",
        "l = l + torch.exp(b - m_safe).sum(dim=-1, keepdim=True)")},
    "wrong_causal_no_offset": {"tiled_attention": rep(
        T, "q_pos = torch.arange(L_q, device=q.device) + (L_k - L_q)  # position of each query",
        "q_pos = torch.arange(L_q, device=q.device)  # position of each query")},
    "wrong_materialises_full_scores": {"tiled_attention": """
        L_q, d_k = q.shape[-2], q.shape[-1]
        L_k = k.shape[-2]
        scale = 1.0 / math.sqrt(d_k)
        q_pos = torch.arange(L_q, device=q.device) + (L_k - L_q)
        blocks = []
        for s in range(0, L_k, block_size):
            kb = k[..., s:s + block_size, :]
            sc = (q @ kb.transpose(-2, -1)) * scale
            if causal:
                k_pos = torch.arange(s, s + kb.shape[-2], device=q.device)
                sc = sc.masked_fill(k_pos[None, :] > q_pos[:, None], float("-inf"))
            blocks.append(sc)
        scores = torch.cat(blocks, dim=-1)  # (..., L_q, L_k)
        m = scores.amax(dim=-1, keepdim=True)
        m = torch.where(m == float("-inf"), torch.zeros_like(m), m)
        p = torch.exp(scores - m)
        l = p.sum(dim=-1, keepdim=True)
        return (p @ v) / torch.where(l == 0, torch.ones_like(l), l)
    """},
    "wrong_drops_last_block": {"tiled_attention": rep(
        T, "for s in range(0, L_k, block_size):",
        "for b in range(L_k // block_size):\n    s = b * block_size")},
    "wrong_where_div_nan_grad": {"tiled_attention": rep(
        T, "return o / torch.where(l == 0, torch.ones_like(l), l)",
        "return torch.where(l == 0, torch.zeros_like(o), o / l)  # a query that sees no key: 0, not 0/0")},
    "wrong_accumulator_dtype": {"tiled_attention": rep(rep(rep(
        T, 'm = torch.full((*q.shape[:-1], 1), float("-inf"), dtype=q.dtype, device=q.device)',
        'm = torch.full((*q.shape[:-1], 1), float("-inf"))'),
        "l = torch.zeros_like(m)", "l = torch.zeros(m.shape)"),
        "o = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype, device=q.device)",
        "o = torch.zeros((*q.shape[:-1], v.shape[-1]))")},
}

HONEST = [
    dict(
        name="honest_lse_merge",
        method="split-KV style: each block is normalised on its own and merged into the running output through its log-sum-exp (flash-decoding merge), with every -inf case guarded",
        bodies={
            "attention_cost": """
                mult_adds = {
                    "core_attention": 2 * L * L * d_model,  # Q K^T and A V
                    "projections": 4 * L * d_model * d_model,  # W_Q, W_K, W_V, W_O
                    "feed_forward": 2 * L * d_model * 4 * d_model,  # d -> 4d -> d
                }
                return {name: 2 * n for name, n in mult_adds.items()}  # 2 FLOPs per multiply-add
            """,
            "crossover_length": """
                return (24 * d_model * d_model) // (4 * d_model)
            """,
            "online_softmax": """
                lse = torch.full((*x.shape[:-1], 1), float("-inf"), dtype=x.dtype, device=x.device)
                for s in range(0, x.shape[-1], block_size):
                    b = x[..., s:s + block_size]
                    top = torch.maximum(lse, b.amax(dim=-1, keepdim=True))
                    top = torch.where(torch.isneginf(top), torch.zeros_like(top), top)
                    tot = torch.exp(lse - top) + torch.exp(b - top).sum(dim=-1, keepdim=True)
                    tot_safe = torch.where(tot > 0, tot, torch.ones_like(tot))
                    lse = torch.where(tot > 0, top + torch.log(tot_safe), torch.full_like(tot, float("-inf")))
                shift = torch.where(torch.isneginf(lse), torch.zeros_like(lse), lse)
                return torch.exp(x - shift)  # a row of -inf: exp(-inf) = 0
            """,
            "tiled_attention": """
                L_q, L_k = q.shape[-2], k.shape[-2]
                first_q = L_k - L_q  # position of query 0
                q = q * q.shape[-1] ** -0.5
                out = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype, device=q.device)
                lse = torch.full((*q.shape[:-1], 1), float("-inf"), dtype=q.dtype, device=q.device)
                neg_inf = torch.full_like(lse, float("-inf"))
                for start in range(0, L_k, block_size):
                    stop = min(start + block_size, L_k)
                    s = torch.einsum("...qd,...kd->...qk", q, k[..., start:stop, :])
                    if causal:
                        keys = torch.arange(start, stop, device=q.device)
                        queries = torch.arange(L_q, device=q.device) + first_q
                        s = s.masked_fill(keys[None, :] > queries[:, None], float("-inf"))
                    # this block alone: normalised output and log-sum-exp
                    mb = s.amax(dim=-1, keepdim=True)
                    mb = torch.where(torch.isneginf(mb), torch.zeros_like(mb), mb)
                    pb = torch.exp(s - mb)
                    lb = pb.sum(dim=-1, keepdim=True)
                    lb_safe = torch.where(lb > 0, lb, torch.ones_like(lb))
                    out_b = (pb @ v[..., start:stop, :]) / lb_safe
                    lse_b = torch.where(lb > 0, mb + torch.log(lb_safe), neg_inf)
                    # merge (out, lse) with (out_b, lse_b)
                    top = torch.maximum(lse, lse_b)
                    top = torch.where(torch.isneginf(top), torch.zeros_like(top), top)
                    wa, wb = torch.exp(lse - top), torch.exp(lse_b - top)
                    tot = wa + wb
                    tot_safe = torch.where(tot > 0, tot, torch.ones_like(tot))
                    out = (out * wa + out_b * wb) / tot_safe
                    lse = torch.where(tot > 0, top + torch.log(tot_safe), neg_inf)
                return out
            """,
        },
    ),
    dict(
        name="honest_flash2_port",
        method="port of FlashAttention-2's forward loop (Dao 2023, Algorithm 1) to PyTorch: outer loop over query blocks, inner loop over key blocks, unnormalised accumulator and one division at the end",
        bodies={
            "attention_cost": """
                core = 2 * (2 * L**2 * d_model)  # two L x L x d products
                proj = 4 * (2 * L * d_model**2)  # four d x d projections
                ffn = 2 * (2 * L * d_model * (4 * d_model))  # up and down
                return {"core_attention": core, "projections": proj, "feed_forward": ffn}
            """,
            "crossover_length": """
                # 4 L^2 d = (8 + 16) L d^2  ->  L = 6 d
                return int(6 * d_model)
            """,
            "online_softmax": """
                shape = x.shape[:-1] + (1,)
                row_max = x.new_full(shape, float("-inf"))
                row_sum = x.new_zeros(shape)
                for j in range(0, x.shape[-1], block_size):
                    xb = x[..., j:j + block_size]
                    new_max = torch.maximum(row_max, xb.amax(dim=-1, keepdim=True))
                    ref = torch.where(torch.isinf(new_max) & (new_max < 0), torch.zeros_like(new_max), new_max)
                    row_sum = row_sum * torch.exp(row_max - ref) + torch.exp(xb - ref).sum(dim=-1, keepdim=True)
                    row_max = new_max
                ref = torch.where(torch.isinf(row_max) & (row_max < 0), torch.zeros_like(row_max), row_max)
                denom = torch.where(row_sum == 0, torch.ones_like(row_sum), row_sum)
                return torch.exp(x - ref) / denom
            """,
            "tiled_attention": """
                N_q, d = q.shape[-2], q.shape[-1]
                N_k = k.shape[-2]
                softmax_scale = 1.0 / math.sqrt(d)
                Br = Bc = block_size
                outputs = []
                for i in range(0, N_q, Br):  # one block of queries (Q_i)
                    Qi = q[..., i:i + Br, :]
                    rows = Qi.shape[-2]
                    qpos = torch.arange(i, i + rows, device=q.device) + (N_k - N_q)
                    Oi = q.new_zeros((*Qi.shape[:-1], v.shape[-1]))
                    li = q.new_zeros((*Qi.shape[:-1], 1))
                    mi = q.new_full((*Qi.shape[:-1], 1), float("-inf"))
                    for j in range(0, N_k, Bc):  # one block of keys (K_j, V_j)
                        Kj, Vj = k[..., j:j + Bc, :], v[..., j:j + Bc, :]
                        Sij = (Qi @ Kj.transpose(-2, -1)) * softmax_scale
                        if causal:
                            kpos = torch.arange(j, j + Kj.shape[-2], device=q.device)
                            Sij = Sij.masked_fill(kpos[None, :] > qpos[:, None], float("-inf"))
                        mi_new = torch.maximum(mi, Sij.amax(dim=-1, keepdim=True))
                        ref = torch.where(torch.isneginf(mi_new), torch.zeros_like(mi_new), mi_new)
                        Pij = torch.exp(Sij - ref)
                        corr = torch.exp(mi - ref)
                        li = corr * li + Pij.sum(dim=-1, keepdim=True)
                        Oi = corr * Oi + Pij @ Vj
                        mi = mi_new
                    outputs.append(Oi / torch.where(li == 0, torch.ones_like(li), li))
                return torch.cat(outputs, dim=-2)
            """,
        },
    ),
]
