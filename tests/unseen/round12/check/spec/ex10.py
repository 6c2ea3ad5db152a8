STUB = "exercise10_tiled_attention.py"

COST_OK = """
return {
    "core_attention": 4 * L * L * d_model,
    "projections": 8 * L * d_model * d_model,
    "feed_forward": 16 * L * d_model * d_model,
}
"""
CROSS_OK = """
return 6 * d_model
"""
ONLINE_OK = """
n = x.size(-1)
m = torch.full_like(x[..., :1], float("-inf"))  # running max per row
l = torch.zeros_like(x[..., :1])  # running sum of e^(x - m)
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
TILED_HEAD = """
L_q, L_k = q.size(-2), k.size(-2)
scale = 1.0 / math.sqrt(q.size(-1))
q_pos = torch.arange(L_q, device=q.device) + (L_k - L_q)  # absolute position of each query
m = q.new_full((*q.shape[:-1], 1), float("-inf"))  # (..., L_q, 1) running max
l = q.new_zeros((*q.shape[:-1], 1))  # (..., L_q, 1) running sum
o = q.new_zeros((*q.shape[:-1], v.size(-1)))  # (..., L_q, d_v) running weighted sum
"""
LOOP_OK = """
for start in range(0, L_k, block_size):
    kb = k[..., start:start + block_size, :]
    vb = v[..., start:start + block_size, :]
    s = (q @ kb.transpose(-2, -1)) * scale  # (..., L_q, b)
    if causal:
        k_pos = torch.arange(start, start + kb.size(-2), device=q.device)
        s = s.masked_fill(k_pos[None, :] > q_pos[:, None], float("-inf"))
    m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
    shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
    alpha = torch.exp(m - shift)
    p = torch.exp(s - shift)
    l = l * alpha + p.sum(dim=-1, keepdim=True)
    o = o * alpha + p @ vb
    m = m_new
"""
RETURN_OK = """
return o / torch.where(l == 0, torch.ones_like(l), l)
"""
TILED_OK = TILED_HEAD + LOOP_OK + RETURN_OK

FILES = [
    dict(name="wrong_core_cost_half", kind="wrong",
         mistake="attention_cost counts core attention as 2·L²·d (only Q Kᵀ, forgetting the A V product), half the chapter's 4·L²·d",
         ideal="attention_cost: core attention is two L·L·d products (Q Kᵀ and A V), each 2·L²·d FLOPs: 4·L²·d in all; yours counts only one",
         expect=r"4 ?·? ?L|A ?V|two products|both|core_attention|half|factor",
         reject=[r"dtype|device|int\b|float|projection|feed.?forward"],
         bodies=["""
return {
    "core_attention": 2 * L * L * d_model,
    "projections": 8 * L * d_model * d_model,
    "feed_forward": 16 * L * d_model * d_model,
}
""", CROSS_OK, ONLINE_OK, TILED_OK]),
    dict(name="wrong_crossover_float", kind="wrong",
         mistake="crossover_length returns 24 * d_model / 4, a float (4608.0), though the docstring asks for an int",
         ideal="crossover_length: / is true division and returns a float; return the int 6 * d_model (or use //)",
         expect=r"\bint\b|integer|float|4608\.0|//|type",
         reject=[r"dtype|device|core|4 ?·? ?L|value is wrong"],
         bodies=[COST_OK, """
return 24 * d_model / 4
""", ONLINE_OK, TILED_OK]),
    dict(name="wrong_online_sum_not_rescaled", kind="wrong",
         mistake="online_softmax adds each block's Σ e^(x - m_new) to the running sum without first rescaling the old sum by e^(m_old - m_new), so rows whose max rises in a later block come out wrong",
         ideal="online_softmax: when a block raises the max, the sum so far was computed against the old max; multiply it by e^(m - m_new) before adding the block's terms",
         expect=r"rescal|e\^\(m ?- ?m_new\)|exp\(m ?- ?m_new\)|old max|running sum|correction|raise[sd]? the max",
         reject=[r"dtype|device|nan|fully masked|in-?place"],
         bodies=[COST_OK, CROSS_OK, """
n = x.size(-1)
m = torch.full_like(x[..., :1], float("-inf"))
l = torch.zeros_like(x[..., :1])
for start in range(0, n, block_size):
    blk = x[..., start:start + block_size]
    m_new = torch.maximum(m, blk.amax(dim=-1, keepdim=True))
    shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
    l = l + torch.exp(blk - shift).sum(dim=-1, keepdim=True)
    m = m_new
shift = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
l = torch.where(l == 0, torch.ones_like(l), l)
return torch.exp(x - shift) / l
""", TILED_OK]),
    dict(name="wrong_full_causal_mask", kind="wrong",
         mistake="tiled_attention builds the whole (L_q, L_k) causal mask up front and slices it per block: values are right but memory grows like L², which the exercise forbids (and a long sequence runs out of memory)",
         ideal="tiled_attention: never build an (L_q, L_k) tensor, not even a bool mask; build each block's (L_q, block_size) mask from key and query positions inside the loop",
         expect=r"L ?²|L\^2|L_q, ?L_k|quadratic|memory|whole mask|full mask|per block",
         reject=[r"dtype|device|nan|rescal|wrong value"],
         bodies=[COST_OK, CROSS_OK, ONLINE_OK, TILED_HEAD + """
if causal:
    allowed = torch.ones(L_q, L_k, dtype=torch.bool, device=q.device).tril(diagonal=L_k - L_q)
for start in range(0, L_k, block_size):
    kb = k[..., start:start + block_size, :]
    vb = v[..., start:start + block_size, :]
    s = (q @ kb.transpose(-2, -1)) * scale  # (..., L_q, b)
    if causal:
        s = s.masked_fill(~allowed[:, start:start + kb.size(-2)], float("-inf"))
    m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
    shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
    alpha = torch.exp(m - shift)
    p = torch.exp(s - shift)
    l = l * alpha + p.sum(dim=-1, keepdim=True)
    o = o * alpha + p @ vb
    m = m_new
""" + RETURN_OK]),
    dict(name="wrong_causal_ignores_offset", kind="wrong",
         mistake="tiled_attention's causal mask compares key positions with the query index i instead of its position L_k - L_q + i, so with fewer queries than keys (a KV-cache step) each query sees too few keys",
         ideal="tiled_attention: the queries are the LAST L_q positions, so query i sits at L_k - L_q + i and sees keys up to there; comparing with i alone is right only when L_q == L_k",
         expect=r"L_k ?- ?L_q|offset|last L_q|position|KV.?cache|L_q ?[<!=]|fewer queries",
         reject=[r"dtype|device|nan|rescal|memory"],
         bodies=[COST_OK, CROSS_OK, ONLINE_OK, TILED_HEAD.replace(
             "q_pos = torch.arange(L_q, device=q.device) + (L_k - L_q)  # absolute position of each query",
             "q_pos = torch.arange(L_q, device=q.device)  # position of each query") + LOOP_OK + RETURN_OK]),
    dict(name="wrong_output_not_rescaled", kind="wrong",
         mistake="tiled_attention rescales the running sum l by e^(m - m_new) but not the running output o, so blocks read before the max rose are over-weighted",
         ideal="tiled_attention: o was accumulated against the old max just like l; multiply it by e^(m - m_new) too before adding the block's e^(s - m_new) @ v",
         expect=r"rescal|e\^\(m ?- ?m_new\)|exp\(m ?- ?m_new\)|running (output|o)|\bo\b|correction",
         reject=[r"dtype|device|nan|memory|in-?place"],
         bodies=[COST_OK, CROSS_OK, ONLINE_OK, TILED_HEAD + LOOP_OK.replace("o = o * alpha + p @ vb", "o = o + p @ vb") + RETURN_OK]),
    dict(name="wrong_inplace_mask_probs", kind="wrong",
         mistake="with causal=True tiled_attention zeroes the hidden keys' probabilities with the in-place p.masked_fill_ on the output of torch.exp, which autograd saved: forward is right, backward raises 'modified by an inplace operation'",
         ideal="tiled_attention: torch.exp saves its output for backward, so editing p in place breaks autograd; mask the scores with -inf before the exp (out of place) instead",
         expect=r"in-?place|masked_fill_|backward|autograd|grad|modified",
         reject=[r"dtype|device|nan|rescal|memory|wrong value"],
         bodies=[COST_OK, CROSS_OK, ONLINE_OK, TILED_HEAD + """
for start in range(0, L_k, block_size):
    kb = k[..., start:start + block_size, :]
    vb = v[..., start:start + block_size, :]
    s = (q @ kb.transpose(-2, -1)) * scale  # (..., L_q, b)
    if causal:
        k_pos = torch.arange(start, start + kb.size(-2), device=q.device)
        hidden = k_pos[None, :] > q_pos[:, None]
        block_max = s.masked_fill(hidden, float("-inf")).amax(dim=-1, keepdim=True)
    else:
        block_max = s.amax(dim=-1, keepdim=True)
    m_new = torch.maximum(m, block_max)
    shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
    alpha = torch.exp(m - shift)
    p = torch.exp(s - shift)
    if causal:
        p.masked_fill_(hidden, 0.0)
    l = l * alpha + p.sum(dim=-1, keepdim=True)
    o = o * alpha + p @ vb
    m = m_new
""" + RETURN_OK]),
    dict(name="wrong_nan_grad_no_key_query", kind="wrong",
         mistake="tiled_attention returns torch.where(l > 0, o / l, 0): the forward gives zeros for a query that sees no key, but o / l is 0/0 there and its gradient is NaN",
         ideal="tiled_attention: torch.where does not stop NaN gradients from the branch it discards; divide by a safe l (1 where l == 0) so queries with no visible key get finite (zero) gradients",
         expect=r"nan|grad|0/0|divide|where|safe",
         reject=[r"dtype|device|rescal|memory|in-?place"],
         bodies=[COST_OK, CROSS_OK, ONLINE_OK, TILED_HEAD + LOOP_OK + """
return torch.where(l > 0, o / l, torch.zeros_like(o))
"""]),
    dict(name="honest_split_blocks_fp32", kind="honest",
         method="keys and values cut with torch.split; float16/bfloat16 are accumulated in float32 and cast back; masks per block from arange; online_softmax keeps per-row state over torch.split chunks",
         helpers='''
def _work_dtype(dtype):
    """Accumulate half-precision inputs in float32."""
    return torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype


def _zero_where_neginf(t):
    return torch.where(torch.isneginf(t), torch.zeros_like(t), t)
''',
         bodies=["""
core = 2 * (L * L * d_model) * 2  # Q K^T and A V, 2 FLOPs per multiply-add
projections = 4 * (2 * L * d_model * d_model)
feed_forward = 2 * (2 * L * d_model * 4 * d_model)
return {"core_attention": core, "projections": projections, "feed_forward": feed_forward}
""", """
# 4 L^2 d = 24 L d^2  <=>  L = 24 d^2 / (4 d) = 6 d
return (24 * d_model * d_model) // (4 * d_model)
""", """
work = x.to(_work_dtype(x.dtype))
row_max = torch.full_like(work[..., :1], float("-inf"))
row_sum = torch.zeros_like(work[..., :1])
for chunk in torch.split(work, block_size, dim=-1):
    new_max = torch.maximum(row_max, chunk.amax(dim=-1, keepdim=True))
    ref_max = _zero_where_neginf(new_max)
    row_sum = row_sum * torch.exp(row_max - ref_max) + torch.exp(chunk - ref_max).sum(-1, keepdim=True)
    row_max = new_max
row_sum = torch.where(row_sum > 0, row_sum, torch.ones_like(row_sum))
return (torch.exp(work - _zero_where_neginf(row_max)) / row_sum).to(x.dtype)
""", """
wd = _work_dtype(q.dtype)
qw, kw, vw = q.to(wd), k.to(wd), v.to(wd)
n_q, n_k = qw.shape[-2], kw.shape[-2]
qw = qw * (1.0 / math.sqrt(qw.shape[-1]))
query_at = torch.arange(n_k - n_q, n_k, device=q.device).unsqueeze(-1)  # (L_q, 1)
run_max = torch.full(qw.shape[:-1] + (1,), float("-inf"), dtype=wd, device=q.device)
run_sum = torch.zeros(qw.shape[:-1] + (1,), dtype=wd, device=q.device)
acc = torch.zeros(qw.shape[:-1] + (vw.shape[-1],), dtype=wd, device=q.device)
first = 0
for k_blk, v_blk in zip(torch.split(kw, block_size, dim=-2), torch.split(vw, block_size, dim=-2)):
    scores = qw @ k_blk.mT
    if causal:
        key_at = torch.arange(first, first + k_blk.shape[-2], device=q.device).unsqueeze(0)  # (1, b)
        scores = scores.masked_fill(key_at > query_at, float("-inf"))
    new_max = torch.maximum(run_max, scores.amax(dim=-1, keepdim=True))
    ref_max = _zero_where_neginf(new_max)
    decay = torch.exp(run_max - ref_max)
    probs = torch.exp(scores - ref_max)
    run_sum = decay * run_sum + probs.sum(dim=-1, keepdim=True)
    acc = decay * acc + probs @ v_blk
    run_max = new_max
    first += k_blk.shape[-2]
safe_sum = torch.where(run_sum > 0, run_sum, torch.ones_like(run_sum))
return (acc / safe_sum).to(q.dtype)
"""]),
    dict(name="honest_merge_partial_states", kind="honest",
         method="split-KV style (as in FlashDecoding's combine step): each key block yields a partial state (block max, block sum, NORMALISED block output) and a helper merges two states associatively (float32 state for half inputs), guarded for rows that see nothing",
         helpers='''
_NEG_INF = float("-inf")


def _accumulator_dtype(dtype):
    return torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype


def _finite_or_zero(t):
    return torch.where(torch.isneginf(t), torch.zeros_like(t), t)


def _nonzero_or_one(t):
    return torch.where(t == 0, torch.ones_like(t), t)


def _combine(m_a, l_a, m_b, l_b):
    """Merge two (max, sum of e^(x - max)) states; also returns each side's weight in the merged sum."""
    m = torch.maximum(m_a, m_b)
    ref = _finite_or_zero(m)
    w_a = l_a * torch.exp(m_a - ref)
    w_b = l_b * torch.exp(m_b - ref)
    return m, w_a + w_b, w_a, w_b


def _block_state(scores, values):
    """(max, sum, normalised output) of one block of scores; a row that sees nothing gives (-inf, 0, 0)."""
    m = scores.amax(dim=-1, keepdim=True)
    p = torch.exp(scores - _finite_or_zero(m))
    l = p.sum(dim=-1, keepdim=True)
    return m, l, (p @ values) / _nonzero_or_one(l)
''',
         bodies=["""
flops_per_mac = 2
return {
    "core_attention": flops_per_mac * 2 * L * L * d_model,
    "projections": flops_per_mac * 4 * L * d_model ** 2,
    "feed_forward": flops_per_mac * 2 * L * d_model * (4 * d_model),
}
""", """
L = (24 * d_model ** 2) // (4 * d_model)
assert 4 * L * L * d_model == 24 * L * d_model ** 2
return int(L)
""", """
xs = x.to(_accumulator_dtype(x.dtype))
m = torch.full_like(xs[..., :1], _NEG_INF)
l = torch.zeros_like(xs[..., :1])
for start in range(0, xs.shape[-1], block_size):
    block = xs[..., start:start + block_size]
    block_m = block.amax(dim=-1, keepdim=True)
    block_l = torch.exp(block - _finite_or_zero(block_m)).sum(dim=-1, keepdim=True)
    m, l, _, _ = _combine(m, l, block_m, block_l)
return (torch.exp(xs - _finite_or_zero(m)) / _nonzero_or_one(l)).to(x.dtype)
""", """
out_dtype = q.dtype
q, k, v = (t.to(_accumulator_dtype(out_dtype)) for t in (q, k, v))
L_q, L_k = q.shape[-2], k.shape[-2]
sm_scale = q.shape[-1] ** -0.5
offset = L_k - L_q
m = q.new_full(q.shape[:-1] + (1,), _NEG_INF)
l = q.new_zeros(q.shape[:-1] + (1,))
out = q.new_zeros(q.shape[:-1] + (v.shape[-1],))
for start in range(0, L_k, block_size):
    stop = min(start + block_size, L_k)
    scores = torch.matmul(q, k[..., start:stop, :].transpose(-1, -2)) * sm_scale
    if causal:
        rows = torch.arange(L_q, device=q.device)[:, None] + offset
        cols = torch.arange(start, stop, device=q.device)[None, :]
        scores = scores.masked_fill(cols > rows, _NEG_INF)
    block_m, block_l, block_out = _block_state(scores, v[..., start:stop, :])
    m, l, w_old, w_new = _combine(m, l, block_m, block_l)
    out = (out * w_old + block_out * w_new) / _nonzero_or_one(l)
return out.to(out_dtype)
"""]),
]
