EX = 10
STUB = "exercise10_tiled_attention.py"
OSM = """
n = x.size(-1)
m = torch.full(x.shape[:-1] + (1,), float("-inf"), dtype=x.dtype, device=x.device)
l = torch.zeros_like(m)
for start in range(0, n, block_size):
    blk = x[..., start:start + block_size]
    m_new = torch.maximum(m, blk.amax(dim=-1, keepdim=True))
    shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
    l = l * torch.exp(m - shift) + torch.exp(blk - shift).sum(dim=-1, keepdim=True)
    m = m_new
shift = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
l = torch.where(l == 0, torch.ones_like(l), l)
return torch.exp(x - shift) / l
"""
TILED = """
L_q, L_k = q.size(-2), k.size(-2)
scale = 1.0 / math.sqrt(q.size(-1))
lead = q.shape[:-1]  # (..., L_q)
m = torch.full(lead + (1,), float("-inf"), dtype=q.dtype, device=q.device)
l = torch.zeros(lead + (1,), dtype=q.dtype, device=q.device)
o = torch.zeros(lead + (v.size(-1),), dtype=q.dtype, device=q.device)
qpos = torch.arange(L_q, device=q.device) + (L_k - L_q)  # query i sits at L_k - L_q + i
for start in range(0, L_k, block_size):
    end = min(start + block_size, L_k)
    s = (q @ k[..., start:end, :].transpose(-2, -1)) * scale  # (..., L_q, block)
    if causal:
        kpos = torch.arange(start, end, device=q.device)
        s = s.masked_fill(kpos[None, :] > qpos[:, None], float("-inf"))
    m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
    shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
    alpha = torch.exp(m - shift)  # rescales what was summed under the old max
    p = torch.exp(s - shift)
    l = l * alpha + p.sum(dim=-1, keepdim=True)
    o = o * alpha + p @ v[..., start:end, :]
    m = m_new
return o / torch.where(l == 0, torch.ones_like(l), l)  # a query that sees no key: 0 / 1
"""
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
    "online_softmax": OSM,
    "tiled_attention": TILED,
}
VARIANTS = [
    dict(slug="cost_math_pow", kind="wrong",
         mistake="attention_cost writes L² and d² with math.pow, so the dict holds floats instead of ints",
         ideal="attention_cost uses math.pow, which returns floats, so the three counts come back as floats (e.g. 4.0 * ...) instead of the ints the docstring requires.",
         expect=[r"float|int\b|integer|type|math\.pow"],
         reject=[r"crossover"],
         bodies={"attention_cost": """
return {
    "core_attention": 2 * 2 * math.pow(L, 2) * d_model,  # QK^T and AV, 2 FLOPs per multiply-add
    "projections": 2 * 4 * L * math.pow(d_model, 2),
    "feed_forward": 2 * 2 * L * 4 * math.pow(d_model, 2),
}
"""}),
    dict(slug="crossover_true_division", kind="wrong",
         mistake="crossover_length solves 4L²d = 24Ld² as 24 * d / 4 with true division, returning the float 4608.0 (which == 4608) instead of an int",
         ideal="crossover_length returns 24 * d_model / 4, a float such as 4608.0, instead of an int; it compares equal to 4608 so the example passes but the type is wrong.",
         expect=[r"float|int\b|integer|type|division|//"],
         reject=[r"attention_cost"],
         bodies={"crossover_length": """
return 24 * d_model / 4  # 4 L^2 d = 24 L d^2 -> L = 24 d / 4
"""}),
    dict(slug="osm_max_starts_zero", kind="wrong",
         mistake="online_softmax starts the running max at 0 instead of -inf, so a row whose scores are all very negative (-1e4) underflows to zeros",
         ideal="online_softmax initialises the running max m to 0 rather than -inf, so for a row of very negative scores the shift stays 0, every e^(x - 0) underflows to 0 and the row comes back as zeros instead of a softmax.",
         expect=[r"\b0\b|zero", r"-?inf|initiali[sz]|start|running max|negative|underflow"],
         reject=[r"rescal", r"tail|last block"],
         bodies={"online_softmax": OSM.replace('m = torch.full(x.shape[:-1] + (1,), float("-inf"), dtype=x.dtype, device=x.device)',
                                              'm = torch.zeros(x.shape[:-1] + (1,), dtype=x.dtype, device=x.device)  # running max')}),
    dict(slug="osm_no_rescale", kind="wrong",
         mistake="online_softmax adds each block's sum to l without rescaling the old l by e^(m_old - m_new), so it is wrong whenever a later block raises the max",
         ideal="online_softmax never rescales the running sum by e^(m - m_new) when a block raises the maximum, so l mixes terms computed with different maxima and rows are wrong unless the max is in the first block (or there is a single block).",
         expect=[r"rescal|e\^?\(?m|exp\(m|correction|alpha|old (sum|max)", r"max|block|running sum|\bl\b"],
         reject=[r"tail|last block", r"initiali[sz]"],
         bodies={"online_softmax": OSM.replace("l = l * torch.exp(m - shift) + torch.exp(blk - shift).sum(dim=-1, keepdim=True)",
                                              "l = l + torch.exp(blk - shift).sum(dim=-1, keepdim=True)")}),
    dict(slug="osm_drops_tail", kind="wrong",
         mistake="online_softmax loops over range(0, n - block_size + 1, block_size), which skips the last partial block (and every block when block_size > n)",
         ideal="online_softmax's loop range(0, n - block_size + 1, block_size) skips the last, shorter block when block_size does not divide n (and all of x when block_size > n), so the sum misses those entries and rows do not sum to 1.",
         expect=[r"last|tail|partial|shorter|remainder|divid|block_size ?> ?n", r"block|range|loop"],
         reject=[r"rescal", r"initiali[sz]"],
         bodies={"online_softmax": OSM.replace("for start in range(0, n, block_size):", "for start in range(0, n - block_size + 1, block_size):")}),
    dict(slug="causal_top_left", kind="wrong",
         mistake="tiled_attention's causal mask compares key j with query index i (top-left aligned) instead of position L_k - L_q + i",
         ideal="tiled_attention masks keys j > i using the query index i instead of its position L_k - L_q + i, so with L_q != L_k (queries at the end, as in the KV cache) the causal mask is misaligned; it only works for L_q == L_k.",
         expect=[r"l_k ?- ?l_q|offset|position|align|top[- ]left|last l_q", r"l_q ?!= ?l_k|causal|mask"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"memory (grows|use)|quadratic|l ?[x×*] ?l matrix"],
         bodies={"tiled_attention": TILED.replace("qpos = torch.arange(L_q, device=q.device) + (L_k - L_q)  # query i sits at L_k - L_q + i",
                                                "qpos = torch.arange(L_q, device=q.device)  # query i")}),
    dict(slug="concat_full_scores", kind="wrong",
         mistake="tiled_attention computes the score blocks but concatenates them into the full (L_q, L_k) matrix and then does an ordinary softmax",
         ideal="tiled_attention torch.cat's the score blocks into the whole (..., L_q, L_k) matrix before a plain softmax, so the values are right but memory grows like L² (it never keeps the running max and sum), which the exercise forbids.",
         expect=[r"full|whole|entire|l_q, ?l_k|l\^?2|l²|quadratic|materiali[sz]|cat", r"memory|matrix|scores|tensor"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"causal mask (is|was) wrong"],
         bodies={"tiled_attention": """
L_q, L_k = q.size(-2), k.size(-2)
scale = 1.0 / math.sqrt(q.size(-1))
qpos = torch.arange(L_q, device=q.device) + (L_k - L_q)
blocks = []
for start in range(0, L_k, block_size):
    end = min(start + block_size, L_k)
    s = (q @ k[..., start:end, :].transpose(-2, -1)) * scale
    if causal:
        kpos = torch.arange(start, end, device=q.device)
        s = s.masked_fill(kpos[None, :] > qpos[:, None], float("-inf"))
    blocks.append(s)
scores = torch.cat(blocks, dim=-1)  # (..., L_q, L_k)
m = scores.amax(dim=-1, keepdim=True)
m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
e = torch.exp(scores - m)
l = e.sum(dim=-1, keepdim=True)
return (e / torch.where(l == 0, torch.ones_like(l), l)) @ v
"""}),
    dict(slug="nan_to_num_unseen", kind="wrong",
         mistake="tiled_attention does not guard the -inf running max; queries that see no key give NaN, patched with torch.nan_to_num, so the forward is zeros but their gradients are NaN",
         ideal="tiled_attention subtracts a running max that is still -inf for a query that sees no key (-inf - (-inf) = NaN) and only hides it with torch.nan_to_num at the end, so the forward output is zero but the gradients are NaN instead of finite.",
         expect=[r"nan", r"grad|backward"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"memory (grows|use)|quadratic|l ?[x×*] ?l matrix"],
         bodies={"tiled_attention": TILED.replace(
             'shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)\n', 'shift = m_new\n').replace(
             "return o / torch.where(l == 0, torch.ones_like(l), l)  # a query that sees no key: 0 / 1",
             "return torch.nan_to_num(o / l, nan=0.0)  # a query that sees no key: 0/0 -> 0")}),
    dict(slug="inplace_running_state", kind="wrong",
         mistake="tiled_attention keeps m, l and o as buffers updated in place (m.copy_(m_new), l.mul_(alpha).add_(...), o.mul_(alpha).add_(...)): the forward is right but backward fails because torch.maximum saved the old m",
         ideal="tiled_attention overwrites its running max in place with m.copy_(m_new) (and l, o with mul_/add_), a tensor autograd saved for torch.maximum's backward, so the forward values are right but backpropagation raises an in-place modification error (it cannot train).",
         expect=[r"in[- ]?place|copy_|mul_|add_|overwrit", r"backward|autograd|grad|train"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"memory (grows|use)|quadratic|l ?[x×*] ?l matrix"],
         bodies={"tiled_attention": TILED.replace(
             "l = l * alpha + p.sum(dim=-1, keepdim=True)\n    o = o * alpha + p @ v[..., start:end, :]\n    m = m_new",
             "l.mul_(alpha).add_(p.sum(dim=-1, keepdim=True))  # update the running state in place\n    o.mul_(alpha).add_(p @ v[..., start:end, :])\n    m.copy_(m_new)")}),
    dict(slug="accumulators_default_dtype", kind="wrong",
         mistake="tiled_attention makes m, l and o with torch.full/torch.zeros without dtype= or device=, so they are float32 CPU tensors: half-precision inputs are promoted (the p @ v product then mixes float32 and bfloat16 and fails) and GPU inputs fail",
         ideal="tiled_attention creates its running max, sum and output with the default dtype and device (no dtype=q.dtype, device=q.device), so with float16/bfloat16 inputs the float32 accumulators promote the block weights and the product with the half-precision values fails on mixed dtypes, and GPU inputs meet CPU accumulators.",
         expect=[r"dtype|float32|half|bfloat16|float16|promot|device"],
         reject=[r"memory (grows|use)|quadratic", r"causal (mask|offset) (is|was) wrong|misalign"],
         bodies={"tiled_attention": TILED.replace(
             'm = torch.full(lead + (1,), float("-inf"), dtype=q.dtype, device=q.device)\nl = torch.zeros(lead + (1,), dtype=q.dtype, device=q.device)\no = torch.zeros(lead + (v.size(-1),), dtype=q.dtype, device=q.device)',
             'm = torch.full(lead + (1,), float("-inf"))\nl = torch.zeros(lead + (1,))\no = torch.zeros(lead + (v.size(-1),))')}),
    dict(slug="narrow_normalised_output", kind="honest",
         method="online_softmax walks the row with a while loop and narrow() keeping m and l; tiled_attention keeps the output normalised after every block (FlashAttention-1 style), rescaling by l_old·e^(m_old - m_new) / l_new",
         ideal="Correct: the while/narrow loop keeps the running max and rescaled sum (the last block may be shorter), and rescaling the normalised output by l·alpha / l_new at every block gives exactly o / l at the end, with -inf maxima shifted by 0 so no NaN appears forward or backward.",
         bodies={"online_softmax": """
n = x.shape[-1]
m = x.new_full(x.shape[:-1] + (1,), float("-inf"))  # running max
l = x.new_zeros(x.shape[:-1] + (1,))  # running sum of e^(x - m)
pos = 0
while pos < n:
    width = min(block_size, n - pos)
    blk = x.narrow(-1, pos, width)
    m_new = torch.maximum(m, blk.amax(dim=-1, keepdim=True))
    finite = torch.isfinite(m_new)
    base = torch.where(finite, m_new, torch.zeros_like(m_new))
    # rescale the old sum; an old max of -inf means nothing was summed yet (e^-inf = 0)
    l = l * torch.exp(m - base) + torch.exp(blk - base).sum(dim=-1, keepdim=True)
    m = m_new
    pos += width
dead = torch.isneginf(m)  # the row is entirely -inf
base = m.masked_fill(dead, 0.0)
return (torch.exp(x - base) / l.masked_fill(dead, 1.0)).masked_fill(dead, 0.0)
""", "tiled_attention": """
*batch, L_q, d_k = q.shape
L_k = k.shape[-2]
scale = d_k ** -0.5
m = q.new_full((*batch, L_q, 1), float("-inf"))
l = q.new_zeros((*batch, L_q, 1))
o = q.new_zeros((*batch, L_q, v.shape[-1]))  # kept normalised: o = (sum p v) / l
offset = L_k - L_q
rows = torch.arange(L_q, device=q.device).unsqueeze(-1) + offset
for start in range(0, L_k, block_size):
    kb, vb = k[..., start:start + block_size, :], v[..., start:start + block_size, :]
    s = torch.matmul(q, kb.transpose(-1, -2)) * scale
    if causal:
        cols = torch.arange(start, start + kb.shape[-2], device=q.device).unsqueeze(0)
        s = torch.where(cols <= rows, s, torch.full_like(s, float("-inf")))
    m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
    safe = m_new.masked_fill(torch.isneginf(m_new), 0.0)
    p = torch.exp(s - safe)
    alpha = torch.exp(m - safe)
    l_new = l * alpha + p.sum(dim=-1, keepdim=True)
    denom = torch.where(l_new > 0, l_new, torch.ones_like(l_new))
    o = (o * (l * alpha) + torch.matmul(p, vb)) / denom
    l, m = l_new, m_new
return o
"""}),
    dict(slug="split_skip_future", kind="honest",
         method="two-pass online_softmax over x.split(block_size); tiled_attention also tiles the queries (outer loop over query blocks) and, when causal, skips key blocks that lie entirely after a query block's last position",
         ideal="Correct: tiling the queries too keeps each score block at most (block, block), a key block whose first key is after every position of the query block contributes nothing under the causal mask, so skipping it is exact, and the running max/sum recurrence with -inf shifted by 0 gives softmax(QK^T/sqrt(d_k))V with finite gradients.",
         bodies={"online_softmax": """
shape = x.shape[:-1] + (1,)
run_max = x.new_full(shape, float("-inf"))
run_sum = x.new_zeros(shape)
for chunk in torch.split(x, block_size, dim=-1):
    new_max = torch.maximum(run_max, chunk.amax(dim=-1, keepdim=True))
    base = torch.where(torch.isinf(new_max), torch.zeros_like(new_max), new_max)
    run_sum = run_sum * (run_max - base).exp() + (chunk - base).exp().sum(dim=-1, keepdim=True)
    run_max = new_max
base = torch.where(torch.isinf(run_max), torch.zeros_like(run_max), run_max)
return (x - base).exp() / torch.where(run_sum > 0, run_sum, torch.ones_like(run_sum))
""", "tiled_attention": """
L_q, L_k = q.shape[-2], k.shape[-2]
inv = 1.0 / math.sqrt(q.shape[-1])
outs = []
for qs in range(0, L_q, block_size):  # outer loop over query blocks, as FlashAttention does
    qb = q[..., qs:qs + block_size, :]
    nq = qb.shape[-2]
    qpos = (torch.arange(qs, qs + nq, device=q.device) + (L_k - L_q)).unsqueeze(1)  # (nq, 1)
    last = qs + nq - 1 + (L_k - L_q)  # position of this block's last query
    m = torch.full((*qb.shape[:-1], 1), float("-inf"), dtype=q.dtype, device=q.device)
    l = torch.zeros_like(m)
    acc = torch.zeros((*qb.shape[:-1], v.shape[-1]), dtype=q.dtype, device=q.device)
    start = 0
    for kb, vb in zip(k.split(block_size, dim=-2), v.split(block_size, dim=-2)):
        n = kb.shape[-2]
        if causal and start > last:
            break  # this key block and all later ones are in the future of every query here
        s = torch.matmul(qb, kb.transpose(-2, -1)) * inv
        if causal:
            kpos = torch.arange(start, start + n, device=q.device).unsqueeze(0)  # (1, n)
            s = s.masked_fill(kpos > qpos, float("-inf"))
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        ref_max = torch.where(torch.isinf(m_new), torch.zeros_like(m_new), m_new)
        corr = torch.exp(m - ref_max)
        p = torch.exp(s - ref_max)
        l = corr * l + p.sum(dim=-1, keepdim=True)
        acc = corr * acc + torch.matmul(p, vb)
        m = m_new
        start += n
    outs.append(acc / torch.where(l > 0, l, torch.ones_like(l)))
return torch.cat(outs, dim=-2)
"""}),
]
