STUB = "exercise10_tiled_attention.py"
COST = "return {'core_attention': 4 * L * L * d_model, 'projections': 8 * L * d_model * d_model, 'feed_forward': 16 * L * d_model * d_model}"
OSM = """m = torch.full(x.shape[:-1] + (1,), float('-inf'), dtype=x.dtype, device=x.device)
l = torch.zeros(x.shape[:-1] + (1,), dtype=x.dtype, device=x.device)
for s in range(0, x.shape[-1], block_size):
    blk = x[..., s:s + block_size]
    m_new = torch.maximum(m, blk.amax(dim=-1, keepdim=True))
    shift = torch.where(torch.isinf(m_new) & (m_new < 0), torch.zeros_like(m_new), m_new)
    l = l * torch.exp(m - shift) + torch.exp(blk - shift).sum(dim=-1, keepdim=True)
    m = m_new
shift = torch.where(torch.isinf(m) & (m < 0), torch.zeros_like(m), m)
return torch.exp(x - shift) / torch.where(l == 0, torch.ones_like(l), l)"""
TILED = """Lq, Lk = q.shape[-2], k.shape[-2]
scale = 1.0 / math.sqrt(q.shape[-1])
lead = q.shape[:-1]
m = torch.full(lead + (1,), float('-inf'), dtype=q.dtype, device=q.device)
l = torch.zeros(lead + (1,), dtype=q.dtype, device=q.device)
o = torch.zeros(lead + (v.shape[-1],), dtype=q.dtype, device=q.device)
qpos = torch.arange(Lq, device=q.device) + (Lk - Lq)
for s in range(0, Lk, block_size):
    kb, vb = k[..., s:s + block_size, :], v[..., s:s + block_size, :]
    sc = (q @ kb.transpose(-2, -1)) * scale
    if causal:
        kpos = torch.arange(s, s + kb.shape[-2], device=q.device)
        sc = sc.masked_fill(kpos[None, :] > qpos[:, None], float('-inf'))
    m_new = torch.maximum(m, sc.amax(dim=-1, keepdim=True))
    shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
    alpha = torch.exp(m - shift)
    p = torch.exp(sc - shift)
    l = l * alpha + p.sum(dim=-1, keepdim=True)
    o = o * alpha + p @ vb
    m = m_new
return o / torch.where(l == 0, torch.ones_like(l), l)"""
DEFAULT = [COST, "return 6 * d_model", OSM, TILED]
V = []
def add(kind, name, what, ideal, expect, reject, bodies, fails=(), helpers=None):
    V.append(dict(kind=kind, name=name, what=what, ideal=ideal, expect=expect, reject=reject,
                  bodies=bodies, fails=list(fails), helpers=helpers))
OKX, BADX = r"(?i)(pass|correct|full marks|no (mistake|problem))", r"(?i)(wrong|mistake|incorrect|fail)"
N = None

add("wrong", "crossover_float",
    "crossover_length returns 24 * d_model / 4, a float (4608.0), while the docstring asks for an int.",
    "True division gives a float; the crossover length must be an int: return 6 * d_model (or use //).",
    r"(?i)(int|float|division|//|6 ?\* ?d)", r"(?i)(dtype|device|NaN|block|causal)",
    [N, "return 24 * d_model / 4", N, N], fails=["cost"])
add("wrong", "rescale_sign_flipped",
    "online_softmax rescales the running sum by e^(m_new - m) instead of e^(m - m_new) when a block raises the max, so earlier blocks are over-weighted (or overflow).",
    "The correction factor is e^(m_old - m_new) (<= 1); you multiply by its inverse e^(m_new - m_old).",
    r"(?i)(m_old ?- ?m_new|m ?- ?m_new|rescal|sign|invers|correction|<= ?1)",
    r"(?i)(dtype|device|causal|block_size|int)",
    [N, N, OSM.replace("l = l * torch.exp(m - shift)", "l = l * torch.exp(torch.where(torch.isneginf(m), torch.zeros_like(m), shift - m))"), N],
    fails=["online_values"])
add("wrong", "online_masked_row_nan",
    "online_softmax shifts by the running max without guarding -inf, so a row that is entirely -inf computes exp(-inf - (-inf)) = NaN instead of zeros.",
    "For a fully masked row the max stays -inf and x - m is NaN; shift by 0 where m is -inf and divide by 1 where l is 0, so the row gives zeros.",
    r"(?i)(NaN|-inf|fully masked|entirely|0/0|guard|masked row)",
    r"(?i)(dtype|device|causal|int|block_size)",
    [N, N, "m = torch.full(x.shape[:-1] + (1,), float('-inf'), dtype=x.dtype, device=x.device)\nl = torch.zeros(x.shape[:-1] + (1,), dtype=x.dtype, device=x.device)\nfor s in range(0, x.shape[-1], block_size):\n    blk = x[..., s:s + block_size]\n    m_new = torch.maximum(m, blk.amax(dim=-1, keepdim=True))\n    l = l * torch.exp(m - m_new) + torch.exp(blk - m_new).sum(dim=-1, keepdim=True)\n    m = m_new\nreturn torch.exp(x - m) / l", N],
    fails=["online_masked"])
add("wrong", "drops_last_partial_block",
    "tiled_attention loops over range(Lk // block_size) full blocks only, so the keys of a last, shorter block are never read (and block_size > L_k reads nothing).",
    "Lk // block_size skips the remainder: when block_size does not divide L_k the last partial block is lost; loop over range(0, Lk, block_size) and slice, which handles a short last block.",
    r"(?i)(last (partial |shorter )?block|remainder|partial|//|divid|ceil|range\(0, ?L)",
    r"(?i)(dtype|device|NaN|sign|int\b)",
    [N, N, N, TILED.replace("for s in range(0, Lk, block_size):", "for b in range(Lk // block_size):\n    s = b * block_size")],
    fails=["tiled_values"])
add("wrong", "causal_ignores_offset",
    "tiled_attention's causal mask puts query i at position i, ignoring the kit's rule that the L_q queries are the LAST positions (L_k - L_q + i); right only when L_q == L_k.",
    "With L_q < L_k the queries are the last L_q positions: query i sits at L_k - L_q + i; offset the query positions by L_k - L_q before comparing with key positions.",
    r"(?i)(L_k ?- ?L_q|Lk ?- ?Lq|offset|last (L_q )?positions|position)",
    r"(?i)(dtype|device|NaN|block size|int\b)",
    [N, N, N, TILED.replace("qpos = torch.arange(Lq, device=q.device) + (Lk - Lq)", "qpos = torch.arange(Lq, device=q.device)")],
    fails=["tiled_causal"])
add("wrong", "full_score_matrix",
    "tiled_attention computes the whole (L_q, L_k) score matrix q @ k^T once and then walks over its column blocks, so the memory is still quadratic.",
    "Slicing a precomputed q @ kᵀ still materialises the (L_q, L_k) matrix; compute each block's scores from its own keys, q @ k[..., s:s+block_size, :]ᵀ.",
    r"(?i)(L ?\^? ?2|L²|quadratic|\(L_q, ?L_k\)|whole|full (score )?matrix|materiali|memory)",
    r"(?i)(dtype|device|NaN|sign|int\b)",
    [N, N, N, TILED.replace("qpos = torch.arange(Lq, device=q.device) + (Lk - Lq)", "qpos = torch.arange(Lq, device=q.device) + (Lk - Lq)\nall_scores = (q @ k.transpose(-2, -1)) * scale").replace("sc = (q @ kb.transpose(-2, -1)) * scale", "sc = all_scores[..., s:s + block_size]")],
    fails=["tiled_memory"])
add("wrong", "nan_repaired_forward_only",
    "tiled_attention lets a query that sees no key compute 0/0 and repairs the output with torch.nan_to_num: the output is right but its gradients are NaN.",
    "nan_to_num fixes only the forward: the NaN stays in the graph and backward gives NaN; avoid it (shift by 0 where m is -inf, divide by 1 where l is 0).",
    r"(?i)(gradient|backward|nan_to_num|NaN)",
    r"(?i)(dtype|device|sign|block size|int\b)",
    [N, N, N, TILED.replace("shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)", "shift = m_new").replace("return o / torch.where(l == 0, torch.ones_like(l), l)", "return torch.nan_to_num(o / l)")],
    fails=["tiled_grad"])
add("wrong", "accumulators_default_dtype",
    "tiled_attention creates its running m, l, o with torch.zeros/torch.full without dtype= or device=, so float64 inputs come back float32-accumulated and GPU inputs meet CPU accumulators.",
    "torch.zeros(...) and torch.full(...) default to float32 on the CPU; make the accumulators with dtype=q.dtype, device=q.device (or zeros_like / new_zeros).",
    r"(?i)(dtype|device|float32|cpu|zeros_like|new_zeros)",
    r"(?i)(NaN|sign|block size|causal|int\b)",
    [N, N, N, TILED.replace(", dtype=q.dtype, device=q.device)", ")")],
    fails=["tiled_dtypes"])
add("honest", "lse_merge",
    "tiled_attention keeps a normalised output and a running log-sum-exp per query and merges each block FlashAttention-2 style (weights e^(lse_old - lse_new) and e^(lse_b - lse_new)), with -inf guarded; online_softmax via torch.split.",
    "", OKX, BADX,
    ["d2 = d_model * d_model\nreturn dict(core_attention=2 * 2 * L * L * d_model, projections=4 * 2 * L * d2, feed_forward=2 * 2 * L * d_model * 4 * d_model)",
     "return (24 * d_model) // 4",
     "m = x.new_full(x.shape[:-1] + (1,), float('-inf'))\nl = x.new_zeros(x.shape[:-1] + (1,))\nfor blk in torch.split(x, block_size, dim=-1):\n    m_new = torch.maximum(m, blk.amax(-1, keepdim=True))\n    ref = m_new.nan_to_num(neginf=0.0)\n    l = l * (m - ref).exp() + (blk - ref).exp().sum(-1, keepdim=True)\n    m = m_new\nref = m.nan_to_num(neginf=0.0)\nreturn (x - ref).exp() / l.masked_fill(l == 0, 1.0)",
     "Lq, Lk = q.shape[-2], k.shape[-2]\nscale = q.shape[-1] ** -0.5\nneg = float('-inf')\nlse = q.new_full(q.shape[:-1] + (1,), neg)\nout = q.new_zeros(q.shape[:-1] + (v.shape[-1],))\nqpos = (Lk - Lq) + torch.arange(Lq, device=q.device).unsqueeze(-1)\nfor start in range(0, Lk, block_size):\n    kb = k.narrow(-2, start, min(block_size, Lk - start))\n    vb = v.narrow(-2, start, kb.shape[-2])\n    s = torch.matmul(q, kb.mT) * scale\n    if causal:\n        kpos = torch.arange(start, start + kb.shape[-2], device=q.device)\n        s = s.masked_fill(kpos > qpos, neg)\n    mb = s.amax(-1, keepdim=True)\n    mb_safe = torch.where(torch.isneginf(mb), torch.zeros_like(mb), mb)\n    e = torch.exp(s - mb_safe)\n    lb_sum = e.sum(-1, keepdim=True)\n    alive = lb_sum > 0\n    lb_safe = torch.where(alive, lb_sum, torch.ones_like(lb_sum))\n    ob = (e @ vb) / lb_safe\n    lse_b = torch.where(alive, mb_safe + torch.log(lb_safe), torch.full_like(lb_sum, neg))\n    new = torch.logaddexp(torch.where(torch.isneginf(lse), torch.full_like(lse, torch.finfo(q.dtype).min), lse), torch.where(torch.isneginf(lse_b), torch.full_like(lse_b, torch.finfo(q.dtype).min), lse_b))\n    new = torch.where(torch.isneginf(lse) & torch.isneginf(lse_b), torch.full_like(new, neg), new)\n    new_safe = torch.where(torch.isneginf(new), torch.zeros_like(new), new)\n    w_old = torch.where(torch.isneginf(lse), torch.zeros_like(lse), torch.exp(torch.where(torch.isneginf(lse), torch.zeros_like(lse), lse) - new_safe))\n    w_new = torch.where(torch.isneginf(lse_b), torch.zeros_like(lse_b), torch.exp(torch.where(torch.isneginf(lse_b), torch.zeros_like(lse_b), lse_b) - new_safe))\n    out = out * w_old + ob * w_new\n    lse = new\nreturn out"])
add("honest", "chunked_queries_and_keys",
    "the standard running (m, l, o) recurrence, but also processing the queries in chunks of block_size and concatenating the chunks' outputs; bookkeeping with new_full/new_zeros.",
    "", OKX, BADX,
    [N, "return int(6 * d_model)", N,
     "Lq, Lk = q.shape[-2], k.shape[-2]\noff = Lk - Lq\nouts = []\nfor qs in range(0, Lq, block_size):\n    qb = q[..., qs:qs + block_size, :] / math.sqrt(q.shape[-1])\n    qpos = torch.arange(qs, qs + qb.shape[-2], device=q.device)[:, None] + off\n    m = qb.new_full(qb.shape[:-1] + (1,), float('-inf'))\n    l = qb.new_zeros(qb.shape[:-1] + (1,))\n    o = qb.new_zeros(qb.shape[:-1] + (v.shape[-1],))\n    for ks in range(0, Lk, block_size):\n        kb, vb = k[..., ks:ks + block_size, :], v[..., ks:ks + block_size, :]\n        s = qb @ kb.transpose(-1, -2)\n        if causal:\n            s = s.masked_fill(torch.arange(ks, ks + kb.shape[-2], device=q.device)[None, :] > qpos, float('-inf'))\n        m_new = torch.maximum(m, s.amax(-1, keepdim=True))\n        c = torch.where(m_new == float('-inf'), torch.zeros_like(m_new), m_new)\n        a = (m - c).exp()\n        p = (s - c).exp()\n        l = a * l + p.sum(-1, keepdim=True)\n        o = a * o + p @ vb\n        m = m_new\n    outs.append(o / torch.where(l > 0, l, torch.ones_like(l)))\nreturn torch.cat(outs, dim=-2)"])
VARIANTS = V
