"""Exercises 9-10."""
S = {}
OK = dict(ideal="full marks", expect=r"full marks|pass|correct|✓", rejects=[r"\bis wrong\b|\bmistake (is|in|here)\b|\bincorrect(ly)?\b|\bfails? (the|on|for|when)\b|\b[1-9]\d* (tests? )?failed\b"])

CHECK4 = """
if pattern.dim() != 4 or pattern.shape[-1] != pattern.shape[-2]:
    raise ValueError(f"pattern must be (B, H, L, L), got {tuple(pattern.shape)}")
"""
PREV = CHECK4 + """
if pattern.shape[-1] < 2:
    raise ValueError("need L >= 2 for a previous token")
d = pattern.diagonal(offset=-1, dim1=-2, dim2=-1)       # (B, H, L-1): pattern[..., i, i-1]
return d.mean(dim=(0, 2))
"""
IND_CHECK = CHECK4 + """
if pattern.shape[-1] != 2 * seq_len:
    raise ValueError(f"L = {pattern.shape[-1]} is not 2 * seq_len = {2 * seq_len}")
"""
IND = IND_CHECK + """
d = pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)[..., 1:]   # queries seq_len .. 2*seq_len-1
return d.mean(dim=(0, 2))
"""
FIND_HEAD = """
found = {"previous_token": [], "induction": []}
for layer, pattern in enumerate(patterns):
    seq_len = pattern.shape[-1] // 2
    prev = previous_token_score(pattern)
    ind = induction_score(pattern, seq_len)
"""
FIND = FIND_HEAD + """
    for h in range(prev.shape[0]):
        if prev[h].item() > threshold:
            found["previous_token"].append((layer, h))
        if ind[h].item() > threshold:
            found["induction"].append((layer, h))
return found
"""
S[9] = dict(base=["""
first = torch.randint(vocab_size, (batch, seq_len), generator=generator)
return torch.cat([first, first], dim=1)
""", PREV, IND, FIND], files=[
dict(name="wrong_randint_inclusive_high", kind="wrong",
     first="repeated_tokens calls torch.randint(0, vocab_size - 1, ...) as if the upper bound were inclusive (Python's random.randint habit): token vocab_size - 1 never appears, and vocab_size = 1 raises",
     ideal="torch.randint's high is exclusive, so vocab_size - 1 draws from 0..vocab_size-2: the last token id is never produced (and vocab_size=1 fails with an empty range)",
     expect=r"exclusive|inclusive|vocab_?size\s*-\s*1|off-?by-?one|never (drawn|appears|produced)|last token|upper bound|high",
     rejects=[r"generator (is )?(ignored|not passed|unused)|global rng|seed", r"diagonal|offset|mean"],
     bodies={0: """
first = torch.randint(0, vocab_size - 1, (batch, seq_len), generator=generator)
return torch.cat([first, first], dim=1)
"""}, fails=["tokens_range"]),
dict(name="wrong_generator_ignored", kind="wrong",
     first="repeated_tokens never passes generator= to torch.randint, so it always uses the global RNG: the same seeded generator does not give the same tokens",
     ideal="the generator argument is ignored; tokens come from torch's global RNG, so results are not reproducible from the given torch.Generator (and the global RNG state is consumed)",
     expect=r"generator|seed|reproduc|global (rng|random)|determin",
     rejects=[r"exclusive|inclusive|vocab_?size\s*-\s*1", r"diagonal|offset"],
     bodies={0: """
first = torch.randint(vocab_size, (batch, seq_len))
return torch.cat([first, first], dim=1)
"""}, fails=["tokens_generator"]),
dict(name="wrong_prev_mean_over_L", kind="wrong",
     first="previous_token_score sums the sub-diagonal and divides by B * L instead of B * (L - 1), i.e. counts query 0 (which has no previous token) in the mean",
     ideal="the average divides by L queries, but only L-1 queries (1..L-1) have a previous token; a perfect previous-token head scores (L-1)/L instead of 1",
     expect=r"L\s*-\s*1|divid|denominator|mean|average|count|query 0|off-?by-?one|first query",
     rejects=[r"ValueError|shape check", r"generator|randint"],
     bodies={1: CHECK4 + """
if pattern.shape[-1] < 2:
    raise ValueError("need L >= 2 for a previous token")
B, H, L, _ = pattern.shape
return pattern.diagonal(offset=-1, dim1=-2, dim2=-1).sum(dim=(0, 2)) / (B * L)
"""}, fails=["prev_values"]),
dict(name="wrong_prev_no_square_check", kind="wrong",
     first="previous_token_score checks only that pattern is 4-D with L >= 2, not that its last two dims are equal, so a non-square (B, H, L, L') pattern returns a number instead of raising ValueError",
     ideal="the ValueError contract is incomplete: a pattern whose last two dims differ is accepted (diagonal still works) instead of raising; check pattern.shape[-1] == pattern.shape[-2]",
     expect=r"ValueError|square|last two dims|shape[- ]check|raise|validat|L\s*!=|not equal",
     rejects=[r"divid(e|es|ing) by|denominator|L\s*-\s*1", r"generator"],
     bodies={1: """
if pattern.dim() != 4 or pattern.shape[-1] < 2:
    raise ValueError(f"pattern must be (B, H, L, L) with L >= 2, got {tuple(pattern.shape)}")
d = pattern.diagonal(offset=-1, dim1=-2, dim2=-1)
return d.mean(dim=(0, 2))
"""}, fails=["prev_errors"]),
dict(name="wrong_induction_same_token", kind="wrong",
     first="induction_score reads key i - seq_len (the earlier copy of the SAME token, diagonal offset -seq_len) instead of key i - seq_len + 1 (the token after it)",
     ideal="off by one key: an induction head attends to the token AFTER the earlier occurrence (key i - seq_len + 1, offset 1 - seq_len); offset -seq_len measures a duplicate-token head instead",
     expect=r"\+\s*1|offset|1\s*-\s*seq_?len|-\s*seq_?len|token after|next token|off-?by-?one|same token|duplicate",
     rejects=[r"ValueError", r"generator|randint", r"\[\s*1\s*:\s*\]|drop (the )?first (entry|element)"],
     bodies={2: IND_CHECK + """
d = pattern.diagonal(offset=-seq_len, dim1=-2, dim2=-1)   # query i, key i - seq_len
return d.mean(dim=(0, 2))
"""}, fails=["ind_values"]),
dict(name="wrong_induction_keeps_first", kind="wrong",
     first="induction_score averages the whole diagonal at offset 1 - seq_len, including its first entry (query seq_len - 1, in the first half), so it averages seq_len + 1 cells",
     ideal="the diagonal's first entry belongs to query seq_len - 1 (first half, no earlier copy) and must be dropped; only queries seq_len..2*seq_len-1 count",
     expect=r"first (entry|element|half|query)|seq_?len\s*-\s*1|\[\s*1\s*:\s*\]|drop|exclud|leave (it )?out|second half|extra (cell|entry)|off-?by-?one",
     rejects=[r"ValueError", r"generator|randint"],
     bodies={2: IND_CHECK + """
d = pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)
return d.mean(dim=(0, 2))
"""}, fails=["ind_values"]),
dict(name="wrong_threshold_inclusive", kind="wrong",
     first="find_heads keeps heads with score >= threshold instead of score > threshold, so a head scoring exactly the threshold is wrongly listed",
     ideal="the comparison must be strict (score > threshold); `>=` also counts a head whose score equals the threshold (e.g. exactly 0.5 with threshold 0.5)",
     expect=r">=|>\s|strict|greater than|equal|boundary|threshold",
     rejects=[r"ValueError", r"generator", r"type|int\b"],
     bodies={3: FIND_HEAD + """
    for h in range(prev.shape[0]):
        if prev[h].item() >= threshold:
            found["previous_token"].append((layer, h))
        if ind[h].item() >= threshold:
            found["induction"].append((layer, h))
return found
"""}, fails=["find_boundary"]),
dict(name="wrong_tensor_head_indices", kind="wrong",
     first="find_heads takes the head numbers from torch.nonzero, so the tuples are (int, 0-d tensor) instead of (int, int)",
     ideal="the head index in each tuple is a 0-dimensional tensor (from nonzero), not a Python int as the docstring requires; convert with int(h) or .tolist()",
     expect=r"\bint\b|tensor|type|nonzero|tolist|item\(\)",
     rejects=[r">=|strict(ly)? greater", r"ValueError", r"generator"],
     bodies={3: FIND_HEAD + """
    for h in torch.nonzero(prev > threshold).flatten():
        found["previous_token"].append((layer, h))
    for h in torch.nonzero(ind > threshold).flatten():
        found["induction"].append((layer, h))
return found
"""}, fails=["find_types"]),
dict(name="honest_fancy_indexing", kind="honest",
     first="randint(0, vocab)+repeat(1, 2); scores by advanced indexing pattern[:, :, i, j] with arange index vectors; find_heads via nonzero().tolist()",
     **OK,
     bodies=["""
return torch.randint(0, vocab_size, (batch, seq_len), generator=generator, dtype=torch.long).repeat(1, 2)
""", CHECK4 + """
L = pattern.shape[-1]
if L < 2:
    raise ValueError("L must be at least 2")
i = torch.arange(1, L, device=pattern.device)
return pattern[:, :, i, i - 1].mean(dim=(0, 2))
""", IND_CHECK + """
i = torch.arange(seq_len, 2 * seq_len, device=pattern.device)
return pattern[:, :, i, i - seq_len + 1].mean(dim=(0, 2))
""", """
result = {"previous_token": [], "induction": []}
for layer, pattern in enumerate(patterns):
    L = pattern.shape[-1]
    for key, score in (("previous_token", previous_token_score(pattern)),
                       ("induction", induction_score(pattern, L // 2))):
        result[key].extend((layer, h) for h in (score > threshold).nonzero().flatten().tolist())
return result
"""]),
dict(name="honest_selector_masks", kind="honest",
     first="tokens written into a preallocated long tensor twice; scores as (pattern * selector).sum / count with boolean selector matrices; find_heads collects then sorts",
     **OK,
     bodies=["""
first = torch.randint(vocab_size, (batch, seq_len), generator=generator)
out = torch.empty(batch, 2 * seq_len, dtype=torch.long)
out[:, :seq_len] = first
out[:, seq_len:] = first
return out
""", CHECK4 + """
B, H, L, _ = pattern.shape
if L < 2:
    raise ValueError("L must be at least 2")
sel = torch.zeros(L, L, dtype=torch.bool, device=pattern.device)
rows = torch.arange(1, L, device=pattern.device)
sel[rows, rows - 1] = True
return (pattern * sel).sum(dim=(-2, -1)).sum(dim=0) / (B * (L - 1))
""", IND_CHECK + """
B, H, L, _ = pattern.shape
sel = torch.zeros(L, L, dtype=torch.bool, device=pattern.device)
rows = torch.arange(seq_len, L, device=pattern.device)
sel[rows, rows - seq_len + 1] = True
return (pattern * sel).sum(dim=(-2, -1)).sum(dim=0) / (B * seq_len)
""", """
prev_heads, ind_heads = [], []
for layer, pattern in enumerate(patterns):
    p = previous_token_score(pattern).tolist()
    s = induction_score(pattern, pattern.shape[-1] // 2).tolist()
    prev_heads += [(layer, h) for h, val in enumerate(p) if val > threshold]
    ind_heads += [(layer, h) for h, val in enumerate(s) if val > threshold]
return {"previous_token": sorted(prev_heads), "induction": sorted(ind_heads)}
"""]),
])

COST = """
return {"core_attention": 4 * L * L * d_model,
        "projections": 8 * L * d_model ** 2,
        "feed_forward": 16 * L * d_model ** 2}
"""
ONLINE_LOOP_HEAD = """
n = x.shape[-1]
m = torch.full(x.shape[:-1] + (1,), float("-inf"), dtype=x.dtype, device=x.device)
l = torch.zeros(x.shape[:-1] + (1,), dtype=x.dtype, device=x.device)
for s in range(0, n, block_size):
    b = x[..., s:s + block_size]
    m_new = torch.maximum(m, b.amax(dim=-1, keepdim=True))
"""
ONLINE = ONLINE_LOOP_HEAD + """
    shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
    l = l * torch.exp(m - shift) + torch.exp(b - shift).sum(dim=-1, keepdim=True)
    m = m_new
shift = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
return torch.exp(x - shift) / torch.where(l == 0, torch.ones_like(l), l)
"""
TILED_HEAD = """
d_k, L_q, L_k = q.shape[-1], q.shape[-2], k.shape[-2]
scale = 1.0 / math.sqrt(d_k)
lead = q.shape[:-2]
m = torch.full(lead + (L_q, 1), float("-inf"), dtype=q.dtype, device=q.device)
l = torch.zeros(lead + (L_q, 1), dtype=q.dtype, device=q.device)
"""
TILED_O = """
o = torch.zeros(lead + (L_q, v.shape[-1]), dtype=q.dtype, device=q.device)
"""
TILED_QPOS = """
q_pos = torch.arange(L_q, device=q.device) + (L_k - L_q)
"""
TILED_LOOP = """
for s in range(0, L_k, block_size):
    kb, vb = k[..., s:s + block_size, :], v[..., s:s + block_size, :]
    sc = (q @ kb.transpose(-2, -1)) * scale
    if causal:
        k_pos = torch.arange(s, s + kb.shape[-2], device=q.device)
        sc = sc.masked_fill(k_pos[None, :] > q_pos[:, None], float("-inf"))
    m_new = torch.maximum(m, sc.amax(dim=-1, keepdim=True))
    shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
    p = torch.exp(sc - shift)
    alpha = torch.exp(m - shift)
    l = l * alpha + p.sum(dim=-1, keepdim=True)
    o = o * alpha + p @ vb
    m = m_new
return o / torch.where(l == 0, torch.ones_like(l), l)
"""
TILED = TILED_HEAD + TILED_O + TILED_QPOS + TILED_LOOP
S[10] = dict(base=[COST, """
return 6 * d_model
""", ONLINE, TILED], files=[
dict(name="wrong_ffn_multiply_adds", kind="wrong",
     first="attention_cost counts the feed-forward as 8·L·d² (its multiply-adds, forgetting the 2 FLOPs per multiply-add) while the other two terms are in FLOPs",
     ideal="the feed-forward term is half what it should be: two products of L·d·4d multiply-adds are 8·L·d² multiply-adds = 16·L·d² FLOPs; the factor 2 per multiply-add was dropped",
     expect=r"feed[_ -]?forward|16|factor (of )?2|2 flops|multiply-?add|half|ffn",
     rejects=[r"core_attention (is |term )?wrong|projections? (is |are |term )?wrong|quadratic", r"\bint\b|type|float"],
     bodies={0: """
return {"core_attention": 4 * L * L * d_model,
        "projections": 8 * L * d_model ** 2,
        "feed_forward": 8 * L * d_model ** 2}
"""}, fails=["cost_values"]),
dict(name="wrong_rescale_sign", kind="wrong",
     first="tiled_attention rescales the running l and o by e^(m_new - m) instead of e^(m - m_new) (sign flipped; the first block is special-cased to 0), so they grow instead of shrink whenever a later key block raises the max",
     ideal="the correction factor has the wrong sign: when a block raises the running max, l and o must be multiplied by e^(m_old - m_new) <= 1; e^(m_new - m_old) >= 1 inflates the earlier blocks; right only when the max never rises after the first block",
     expect=r"sign|e\s*\^?\s*\(?\s*m\s*-\s*m_?new|m_?new\s*-\s*m|revers|invert|<=\s*1|>=?\s*1|rescal|correction|alpha|running max",
     rejects=[r"nan|fully masked", r"device|dtype", r"memory|quadratic", r"causal offset|L_?k\s*-\s*L_?q"],
     bodies={3: TILED_HEAD + TILED_O + TILED_QPOS + """
for s in range(0, L_k, block_size):
    kb, vb = k[..., s:s + block_size, :], v[..., s:s + block_size, :]
    sc = (q @ kb.transpose(-2, -1)) * scale
    if causal:
        k_pos = torch.arange(s, s + kb.shape[-2], device=q.device)
        sc = sc.masked_fill(k_pos[None, :] > q_pos[:, None], float("-inf"))
    m_new = torch.maximum(m, sc.amax(dim=-1, keepdim=True))
    shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
    p = torch.exp(sc - shift)
    alpha = torch.where(torch.isneginf(m), torch.zeros_like(m), torch.exp(m_new - m))   # nothing summed yet: 0
    l = l * alpha + p.sum(dim=-1, keepdim=True)
    o = o * alpha + p @ vb
    m = m_new
return o / torch.where(l == 0, torch.ones_like(l), l)
"""}, fails=["tiled_basic"]),
dict(name="wrong_online_no_rescale", kind="wrong",
     first="online_softmax adds each block's sum to l without rescaling the old l by e^(m_old - m_new) when the max rises, so rows whose max appears in a later block are normalised wrongly",
     ideal="the running sum is not rescaled when a later block raises the max: l mixes terms computed with different shifts, so rows don't sum to 1 unless the first block already holds the max (or there is one block)",
     expect=r"rescal|e\s*\^?\s*\(?m|exp\(\s*m|correction|running (sum|max)|max (rises|increases|changes)|later block|sum to (1|one)",
     rejects=[r"nan|-inf|fully masked", r"device|dtype", r"causal"],
     bodies={2: ONLINE_LOOP_HEAD + """
    shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
    l = l + torch.exp(b - shift).sum(dim=-1, keepdim=True)
    m = m_new
shift = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
return torch.exp(x - shift) / torch.where(l == 0, torch.ones_like(l), l)
"""}, fails=["online_increasing"]),
dict(name="wrong_online_neginf_nan", kind="wrong",
     first="online_softmax shifts by m_new without guarding m_new = -inf: a block that is entirely -inf while the running max is still -inf gives e^(-inf - -inf) = NaN (fully masked rows, and rows that start with a masked block)",
     ideal="no guard for a -inf running max: -inf - (-inf) is NaN, so an all -inf row and any row whose first block(s) are all -inf become NaN; shift by 0 where the max is -inf",
     expect=r"nan|-inf\s*-\s*-?inf|guard|fully[- ]masked|all[- ]-?inf|masked (row|block)|first block",
     rejects=[r"(not|never|missing|without) rescal|forg(o|e)t.{0,20}rescal", r"device|dtype", r"causal offset"],
     bodies={2: ONLINE_LOOP_HEAD + """
    l = l * torch.exp(m - m_new) + torch.exp(b - m_new).sum(dim=-1, keepdim=True)
    m = m_new
return torch.exp(x - m) / torch.where(l == 0, torch.ones_like(l), l)
"""}, fails=["online_leading_neginf", "online_all_neginf"]),
dict(name="wrong_causal_offset", kind="wrong",
     first="tiled_attention's causal mask compares key positions with the query index i instead of its position L_k - L_q + i, so with fewer queries than keys (the KV-cache case) queries miss keys they may see",
     ideal="the kit's convention puts query i at position L_k - L_q + i; the mask uses i, which is right only for L_q == L_k; with L_q < L_k the last queries cannot see the recent keys (and L_q > L_k is wrong too)",
     expect=r"L_?k\s*-\s*L_?q|offset|position|last L_?q|kv[- ]cache|L_?q\s*(!=|<|≠)\s*L_?k|fewer queries|diagonal",
     rejects=[r"nan|rescal", r"device|dtype", r"memory|L\s*[x×]\s*L"],
     bodies={3: TILED_HEAD + TILED_O + """
q_pos = torch.arange(L_q, device=q.device)
""" + TILED_LOOP}, fails=["tiled_causal_lq_lt_lk"]),
dict(name="wrong_full_score_matrix", kind="wrong",
     first="tiled_attention computes the whole (L_q, L_k) score matrix at once and only then runs online_softmax over it: exact, but memory grows like L², the very thing the exercise removes",
     ideal="it materialises the full (L_q, L_k) scores (q @ k.T for all keys), so memory is quadratic and a long sequence does not fit; the loop must be over blocks of keys with running m, l, o",
     expect=r"memory|L\s*\^?²|L\s*\*\*\s*2|quadratic|\(L_?q,\s*L_?k\)|full (score|matrix)|materiali[sz]|whole|block",
     rejects=[r"nan|rescal", r"device|dtype", r"causal offset"],
     bodies={3: """
L_q, L_k = q.shape[-2], k.shape[-2]
scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
if causal:
    q_pos = torch.arange(L_q, device=q.device) + (L_k - L_q)
    k_pos = torch.arange(L_k, device=q.device)
    scores = scores.masked_fill(k_pos[None, :] > q_pos[:, None], float("-inf"))
return online_softmax(scores, block_size) @ v
"""}, fails=["tiled_memory"]),
dict(name="wrong_accumulator_defaults", kind="wrong",
     first="tiled_attention creates its output accumulator with torch.zeros(*shape) without dtype= and device=: float32 on the CPU, so float16/bfloat16 inputs come back float32 and GPU inputs fail",
     ideal="the o accumulator is made with default dtype and device (float32, CPU): type promotion turns half/bfloat16 results into float32 and non-CPU inputs raise a device mismatch; pass dtype=q.dtype, device=q.device",
     expect=r"dtype|device|float32|float16|bfloat16|half|cuda|gpu|\bcpu\b|torch\.zeros|accumulator",
     rejects=[r"nan|rescal|causal offset", r"memory|quadratic"],
     bodies={3: TILED_HEAD + """
o = torch.zeros(*q.shape[:-1], v.shape[-1])
""" + TILED_QPOS + TILED_LOOP}, fails=["tiled_dtypes", "tiled_meta"]),
dict(name="wrong_inplace_mask_after_exp", kind="wrong",
     first="tiled_attention applies the causal mask after exp with p.masked_fill_(future, 0) in place; the forward is exact, but exp saved p for backward, so backward raises (tensor modified by an inplace operation)",
     ideal="masking in place on exp's output breaks autograd: exp needs its result for the gradient, so loss.backward() fails with 'modified by an inplace operation' whenever causal=True; use out-of-place masked_fill (before exp, with -inf)",
     expect=r"in-?place|masked_fill_|autograd|backward|gradient|grad|saved|version",
     rejects=[r"nan|rescal|causal offset", r"device|dtype", r"memory|quadratic"],
     bodies={3: TILED_HEAD + TILED_O + TILED_QPOS + """
for s in range(0, L_k, block_size):
    kb, vb = k[..., s:s + block_size, :], v[..., s:s + block_size, :]
    sc = (q @ kb.transpose(-2, -1)) * scale
    m_new = torch.maximum(m, sc.amax(dim=-1, keepdim=True))
    shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
    p = torch.exp(sc - shift)
    if causal:
        k_pos = torch.arange(s, s + kb.shape[-2], device=q.device)
        p.masked_fill_(k_pos[None, :] > q_pos[:, None], 0.0)      # no -inf needed
    alpha = torch.exp(m - shift)
    l = l * alpha + p.sum(dim=-1, keepdim=True)
    o = o * alpha + p @ vb
    m = m_new
return o / torch.where(l == 0, torch.ones_like(l), l)
"""}, fails=["tiled_causal_grad"]),
dict(name="honest_three_pass_normalised", kind="honest",
     first="online_softmax in three block passes (max, then sum, then output); tiled_attention keeps o already normalised (o <- (o·l·α + p@v) / l_new) and walks the key blocks from last to first",
     **OK,
     bodies=["""
core = 2 * (L * L * d_model) * 2            # Q K^T and A V: L*L*d multiply-adds each, 2 FLOPs each
proj = 2 * (L * d_model * d_model) * 4      # W_Q, W_K, W_V, W_O
ffn = 2 * (L * d_model * 4 * d_model) * 2   # d -> 4d -> d
return {"core_attention": core, "projections": proj, "feed_forward": ffn}
""", """
return (24 * d_model) // 4
""", """
n = x.shape[-1]
blocks = [(s, min(s + block_size, n)) for s in range(0, n, block_size)]
m = torch.full_like(x[..., :1], float("-inf"))
for a, b in blocks:                                      # pass 1: the max
    m = torch.maximum(m, x[..., a:b].amax(dim=-1, keepdim=True))
m = m.masked_fill(torch.isneginf(m), 0.0)
l = torch.zeros_like(m)
for a, b in blocks:                                      # pass 2: the sum
    l = l + torch.exp(x[..., a:b] - m).sum(dim=-1, keepdim=True)
l = l.masked_fill(l == 0, 1.0)
return torch.exp(x - m) / l                              # pass 3: the weights
""", """
L_q, L_k = q.shape[-2], k.shape[-2]
scale = q.shape[-1] ** -0.5
m = torch.full_like(q[..., :1], float("-inf"))           # (..., L_q, 1)
l = torch.zeros_like(m)
o = torch.zeros(q.shape[:-1] + v.shape[-1:], dtype=q.dtype, device=q.device)
pos_q = torch.arange(L_k - L_q, L_k, device=q.device).unsqueeze(-1)
starts = list(range(0, L_k, block_size))
for s in reversed(starts):                               # block order does not matter
    e = min(s + block_size, L_k)
    sc = torch.matmul(q, k[..., s:e, :].mT) * scale
    if causal:
        sc = sc.masked_fill(torch.arange(s, e, device=q.device) > pos_q, float("-inf"))
    m_new = torch.maximum(m, sc.amax(dim=-1, keepdim=True))
    ref = m_new.masked_fill(torch.isneginf(m_new), 0.0)
    p = torch.exp(sc - ref)
    alpha = torch.exp(m - ref)
    l_new = l * alpha + p.sum(dim=-1, keepdim=True)
    denom = l_new.masked_fill(l_new == 0, 1.0)
    o = (o * (l * alpha) + torch.matmul(p, v[..., s:e, :])) / denom
    l, m = l_new, m_new
return o
"""]),
dict(name="honest_flash2_query_blocks", kind="honest",
     first="FlashAttention-2 style: outer loop over query blocks, inner loop over key blocks, outputs concatenated; online_softmax guards -inf - -inf with nan_to_num(nan=-inf)",
     **OK,
     bodies=[COST, """
return int(6 * d_model)
""", """
neg = float("-inf")
m = x.new_full(x.shape[:-1] + (1,), neg)
l = x.new_zeros(x.shape[:-1] + (1,))
for s in range(0, x.shape[-1], block_size):
    b = x[..., s:s + block_size]
    m_new = torch.maximum(m, b.amax(dim=-1, keepdim=True))
    l = l * torch.exp(torch.nan_to_num(m - m_new, nan=neg)) \\
        + torch.exp(torch.nan_to_num(b - m_new, nan=neg)).sum(dim=-1, keepdim=True)
    m = m_new
return torch.exp(torch.nan_to_num(x - m, nan=neg)) / torch.where(l > 0, l, torch.ones_like(l))
""", """
L_q, L_k, d_v = q.shape[-2], k.shape[-2], v.shape[-1]
scale = 1.0 / math.sqrt(q.shape[-1])
outs = []
for qs in range(0, L_q, block_size):                     # a block of queries at a time
    qb = q[..., qs:qs + block_size, :]
    nq = qb.shape[-2]
    qpos = torch.arange(qs, qs + nq, device=q.device) + (L_k - L_q)
    m = qb.new_full(qb.shape[:-1] + (1,), float("-inf"))
    l = qb.new_zeros(qb.shape[:-1] + (1,))
    acc = qb.new_zeros(qb.shape[:-1] + (d_v,))
    for ks in range(0, L_k, block_size):
        kb, vb = k[..., ks:ks + block_size, :], v[..., ks:ks + block_size, :]
        sc = (qb @ kb.mT) * scale
        if causal:
            kpos = torch.arange(ks, ks + kb.shape[-2], device=q.device)
            sc = sc.masked_fill(kpos[None, :] > qpos[:, None], float("-inf"))
        m_new = torch.maximum(m, sc.amax(dim=-1, keepdim=True))
        base = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
        p = torch.exp(sc - base)
        corr = torch.exp(m - base)
        l = l * corr + p.sum(dim=-1, keepdim=True)
        acc = acc * corr + p @ vb
        m = m_new
    outs.append(acc / torch.where(l > 0, l, torch.ones_like(l)))
return torch.cat(outs, dim=-2)
"""]),
])
