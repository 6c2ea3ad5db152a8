"""Exercises 6-8."""
S = {}
OK = dict(ideal="full marks", expect=r"full marks|pass|correct|✓", rejects=[r"\bis wrong\b|\bmistake (is|in|here)\b|\bincorrect(ly)?\b|\bfails? (the|on|for|when)\b|\b[1-9]\d* (tests? )?failed\b"])

MHA_INIT = """
assert d_model % n_heads == 0, "d_model must divide evenly into heads"
self.n_heads = n_heads
self.d_head = d_model // n_heads
self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
self.out = nn.Linear(d_model, d_model, bias=bias)
"""
MHA_FWD = """
B, L, D = x.shape
q, k, v = self.qkv(x).split(D, dim=-1)
q, k, v = (split_heads(t, self.n_heads) for t in (q, k, v))
if mask is None:
    mask = causal_mask(L, x.device)
y, _ = scaled_dot_product_attention(q, k, v, mask)
return self.out(merge_heads(y))
"""
S[6] = dict(base=["""
B, L, D = x.shape
return x.view(B, L, n_heads, D // n_heads).transpose(1, 2)
""", """
B, H, L, d = x.shape
return x.transpose(1, 2).contiguous().view(B, L, H * d)
""", MHA_INIT, MHA_FWD], files=[
dict(name="wrong_split_reshape_no_transpose", kind="wrong",
     first="split_heads reshapes (B, L, D) straight to (B, H, L, d_head) with no transpose, so each 'head' is a run of consecutive numbers across tokens, not columns h*d_head.. of each token",
     ideal="reshape to (B, H, L, d_head) without the (B, L, H, d_head) view and transpose(1, 2) scrambles tokens and heads: head h gets pieces of several tokens; shape is right, data layout wrong",
     expect=r"transpose|permute|layout|order|scrambl|mix|reshape|view\s*\(\s*B,\s*L,\s*H|\(B,\s*L,\s*H,\s*d",
     rejects=[r"device|dtype", r"causal mask|\bbias\b"],
     bodies={0: """
B, L, D = x.shape
return x.reshape(B, n_heads, L, D // n_heads)
"""}, fails=["split_values", "mha_causal"]),
dict(name="wrong_merge_reshape_no_transpose", kind="wrong",
     first="merge_heads reshapes (B, H, L, d_head) straight to (B, L, H*d_head) without transpose(1, 2), so tokens and heads get mixed in the concatenation",
     ideal="merge_heads skips the transpose(1, 2): reshape of (B, H, L, d) to (B, L, H*d) interleaves different tokens' outputs instead of concatenating each token's heads",
     expect=r"transpose|permute|layout|order|scrambl|mix|concat|reshape|\(B,\s*L,\s*H,\s*d",
     rejects=[r"device|dtype", r"causal mask|\bbias\b"],
     bodies={1: """
B, H, L, d = x.shape
return x.reshape(B, L, H * d)
"""}, fails=["merge_values", "mha_causal"]),
dict(name="wrong_merge_view_noncontiguous", kind="wrong",
     first="merge_heads calls .view right after transpose(1, 2) without .contiguous(), which raises for the transposed (non-contiguous) layout whenever H > 1 and L > 1",
     ideal="a transpose is only a view with permuted strides; .view(B, L, H*d) needs contiguous memory, so it raises (use .contiguous().view or .reshape); only H == 1 or L == 1 slip through",
     expect=r"contiguous|stride|view|reshape|memory|layout",
     rejects=[r"device|dtype", r"causal|mask", r"bias"],
     bodies={1: """
B, H, L, d = x.shape
return x.transpose(1, 2).view(B, L, H * d)
"""}, fails=["merge_values", "mha_causal"]),
dict(name="wrong_none_means_no_mask", kind="wrong",
     first="MultiHeadAttention.forward passes mask=None straight to attention (nn.MultiheadAttention's convention), so with no mask the attention is not causal",
     ideal="when mask is None the module must build causal_mask(L, x.device); it attends to all tokens instead, letting token i read the future",
     expect=r"causal|none|default|tril|future|peek|look[- ]?ahead",
     rejects=[r"wrong device|cuda|dtype", r"bias", r"transpos|contiguous|layout"],
     bodies={3: """
B, L, D = x.shape
q, k, v = self.qkv(x).split(D, dim=-1)
q, k, v = (split_heads(t, self.n_heads) for t in (q, k, v))
y, _ = scaled_dot_product_attention(q, k, v, mask)
return self.out(merge_heads(y))
"""}, fails=["mha_causal"]),
dict(name="wrong_mask_and_causal", kind="wrong",
     first="MultiHeadAttention.forward combines a given mask with the causal one (mask & causal) instead of letting the given mask replace it",
     ideal="a given mask must replace the causal mask (docstring); AND-ing it with the causal mask removes the future keys a non-causal (e.g. padding-only or full) mask allows",
     expect=r"replac|combin|&|and-?ed|causal|intersect|given mask|both masks|together",
     rejects=[r"device|dtype", r"bias", r"transpos|contiguous|layout"],
     bodies={3: """
B, L, D = x.shape
q, k, v = self.qkv(x).split(D, dim=-1)
q, k, v = (split_heads(t, self.n_heads) for t in (q, k, v))
causal = causal_mask(L, x.device)
mask = causal if mask is None else (mask & causal)
y, _ = scaled_dot_product_attention(q, k, v, mask)
return self.out(merge_heads(y))
"""}, fails=["mha_full_mask"]),
dict(name="wrong_attention_before_split", kind="wrong",
     first="MultiHeadAttention.forward never splits into heads: it runs one full-width attention on (B, L, D) q, k, v (scale sqrt(D)), i.e. single-head attention for any n_heads",
     ideal="the heads are never split: attention runs once over the whole model width (one softmax per token, scale sqrt(d_model) not sqrt(d_head)); correct only for n_heads = 1",
     expect=r"split|head|single|one softmax|d_?head|d_?model|sqrt\(\s*D\s*\)|width",
     rejects=[r"device|dtype", r"bias", r"contiguous"],
     bodies={3: """
B, L, D = x.shape
q, k, v = self.qkv(x).split(D, dim=-1)
if mask is None:
    mask = causal_mask(L, x.device)
y, _ = scaled_dot_product_attention(q, k, v, mask)
return self.out(y)
"""}, fails=["mha_causal"]),
dict(name="wrong_bias_always_on", kind="wrong",
     first="MultiHeadAttention.__init__ builds nn.Linear(...) with the default bias=True and ignores the bias argument, so bias=False modules have extra bias parameters (state dict keys differ)",
     ideal="the bias argument is ignored: with bias=False the layers still get biases, so the state dict has unexpected qkv.bias/out.bias keys (load fails) and outputs differ",
     expect=r"bias|state[_ ]dict|unexpected key|parameter|argument",
     rejects=[r"device|dtype", r"causal|mask", r"transpos|contiguous|layout"],
     bodies={2: """
assert d_model % n_heads == 0, "d_model must divide evenly into heads"
self.n_heads = n_heads
self.d_head = d_model // n_heads
self.qkv = nn.Linear(d_model, 3 * d_model)
self.out = nn.Linear(d_model, d_model)
"""}, fails=["mha_params_nobias"]),
dict(name="wrong_mask_unsqueeze_always", kind="wrong",
     first="MultiHeadAttention.forward always does mask = mask.unsqueeze(1) to 'add the head dim' (HF (B, L) -> (B, 1, L) habit): right for a (B, L, L) mask, but an (L, L) or (B, 1, L, L) / (B, 1, 1, L) mask is broadcast wrongly or raises",
     ideal="a given mask is already broadcastable to (B, H, L, L); unsqueezing it again shifts its dims (an (L, L) mask becomes (L, 1, L), a 4-D mask becomes 5-D), giving shape errors or attention across the wrong axis",
     expect=r"unsqueez|broadcast|shape|dim|head (dim|axis)|\(L,\s*1,\s*L\)|5-?d|mask",
     rejects=[r"device|dtype", r"bias", r"contiguous|transpos"],
     bodies={3: """
B, L, D = x.shape
q, k, v = self.qkv(x).split(D, dim=-1)
q, k, v = (split_heads(t, self.n_heads) for t in (q, k, v))
if mask is None:
    mask = causal_mask(L, x.device)
else:
    mask = mask.unsqueeze(1)          # add the head dim
y, _ = scaled_dot_product_attention(q, k, v, mask)
return self.out(merge_heads(y))
"""}, fails=["mha_full_mask", "mha_padding"]),
dict(name="honest_unflatten_permute", kind="honest",
     first="unflatten/permute/flatten for the head reshapes; forward applies the three slices of the fused weight with F.linear (same maths as the fused layer)",
     **OK, extra="import torch.nn.functional as F",
     bodies=["""
return x.unflatten(-1, (n_heads, -1)).permute(0, 2, 1, 3)
""", """
return x.permute(0, 2, 1, 3).flatten(2)
""", MHA_INIT, """
B, L, D = x.shape
ws = self.qkv.weight.chunk(3, dim=0)
bs = self.qkv.bias.chunk(3, dim=0) if self.qkv.bias is not None else (None, None, None)
q, k, v = (split_heads(F.linear(x, w, b), self.n_heads) for w, b in zip(ws, bs))
y, _ = scaled_dot_product_attention(q, k, v, causal_mask(L, x.device) if mask is None else mask)
return self.out(merge_heads(y))
"""]),
dict(name="honest_head_loop", kind="honest",
     first="reshape+swapaxes to split, cat of unbind(1) to merge; forward loops over heads, one given attention call per head on column slices, and concatenates",
     **OK,
     bodies=["""
B, L, D = x.shape
return x.reshape(B, L, n_heads, D // n_heads).swapaxes(1, 2)
""", """
return torch.cat(x.unbind(dim=1), dim=-1)       # head 0's columns, then head 1's, ...
""", MHA_INIT, """
B, L, D = x.shape
dh = self.d_head
qkv = self.qkv(x)
if mask is None:
    mask = causal_mask(L, x.device)
mask = torch.broadcast_to(mask, (B, self.n_heads, L, L))
heads = []
for h in range(self.n_heads):
    cols = slice(h * dh, (h + 1) * dh)
    q_h = qkv[..., cols]
    k_h = qkv[..., D:][..., cols]
    v_h = qkv[..., 2 * D:][..., cols]
    y_h, _ = scaled_dot_product_attention(q_h, k_h, v_h, mask[:, h])
    heads.append(y_h)
return self.out(torch.cat(heads, dim=-1))
"""]),
])

GQA_INIT = """
self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
self.d_head = d_model // n_heads
self.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
self.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
self.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
self.o_proj = nn.Linear(n_heads * self.d_head, d_model, bias=False)
"""
GQA_PROJ = """
B, L, _ = x.shape
q = self.q_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)
k = self.k_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)
v = self.v_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)
"""
GQA_TAIL = """
y = y.transpose(1, 2).contiguous().view(B, L, self.n_heads * self.d_head)
return self.o_proj(y)
"""
GQA_FWD = GQA_PROJ + """
rep = self.n_heads // self.n_kv_heads
k, v = repeat_kv(k, rep), repeat_kv(v, rep)
if mask is None:
    mask = causal_mask(L, x.device)
y, _ = scaled_dot_product_attention(q, k, v, mask)
""" + GQA_TAIL
S[7] = dict(base=["""
return x.repeat_interleave(n_rep, dim=1)
""", GQA_INIT, GQA_FWD], files=[
dict(name="wrong_repeat_tiles", kind="wrong",
     first="repeat_kv uses x.repeat(1, n_rep, 1, 1), which tiles the heads [0, 1, 0, 1, ...] instead of [0, 0, 1, 1, ...], so query head j reads KV head j % H_kv",
     ideal="Tensor.repeat tiles the whole head axis; each KV head must be repeated next to itself (repeat_interleave): output head j must be input head j // n_rep, here it is j % H_kv",
     expect=r"repeat_interleave|tile|order|\[0,\s*1,\s*0,\s*1|j\s*//\s*n_rep|j\s*%|group|next to itself|interleav",
     rejects=[r"device|dtype", r"causal|bias"],
     bodies={0: """
return x.repeat(1, n_rep, 1, 1)
"""}, fails=["repeat_values", "gqa_grouped"]),
dict(name="wrong_repeat_seq_dim", kind="wrong",
     first="repeat_kv repeats along dim=2 (ported from Llama's (B, L, H_kv, d) layout), which here is the sequence axis, giving (B, H_kv, L*n_rep, d)",
     ideal="the repeat is on the wrong axis: in the kit's (B, H_kv, L, d) layout the heads are dim 1; dim 2 repeats tokens, so the shape is (B, H_kv, L*n_rep, d) and GQA breaks whenever n_rep > 1",
     expect=r"dim\s*=?\s*1|dim\s*=?\s*2|axis|sequence|token|shape|layout|\(B,\s*H_?kv,\s*L",
     rejects=[r"device|dtype", r"causal|bias", r"tile|\[0,\s*1,\s*0"],
     bodies={0: """
return x.repeat_interleave(n_rep, dim=2)
"""}, fails=["repeat_values", "gqa_grouped", "gqa_mqa"]),
dict(name="wrong_full_width_kv", kind="wrong",
     first="GroupedQueryAttention makes k_proj and v_proj full width (n_heads * d_head) and uses H key/value heads, i.e. ordinary MHA: the state dict shapes do not match and no memory is saved",
     ideal="k_proj/v_proj must have n_kv_heads * d_head outputs; building them with n_heads heads makes the module plain multi-head attention, so loading a GQA state dict fails (size mismatch)",
     expect=r"k_proj|v_proj|n_kv_heads|h_?kv|full[- ]width|size mismatch|state[_ ]dict|shape|smaller",
     rejects=[r"device|dtype", r"causal", r"tile|repeat_interleave order"],
     bodies={1: """
self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
self.d_head = d_model // n_heads
self.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
self.k_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
self.v_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
self.o_proj = nn.Linear(n_heads * self.d_head, d_model, bias=False)
""", 2: """
B, L, _ = x.shape
q = self.q_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)
k = self.k_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)
v = self.v_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)
if mask is None:
    mask = causal_mask(L, x.device)
y, _ = scaled_dot_product_attention(q, k, v, mask)
""" + GQA_TAIL}, fails=["gqa_params"]),
dict(name="wrong_rep_ratio_inverted", kind="wrong",
     first="GroupedQueryAttention.forward computes rep = n_kv_heads // n_heads (upside down): 1 when H_kv == H, but 0 for real GQA/MQA, so repeat_kv returns no heads and attention raises",
     ideal="the group size is n_heads // n_kv_heads; the inverted ratio is 0 whenever H_kv < H, so K and V end up with zero heads (shape error); only plain MHA (H_kv == H) works",
     expect=r"n_heads\s*//\s*n_kv|n_kv_heads\s*//\s*n_heads|ratio|invert|upside|rep\b|group size|zero heads|0 heads",
     rejects=[r"device|dtype", r"causal|bias", r"tile"],
     bodies={2: GQA_PROJ + """
rep = self.n_kv_heads // self.n_heads
k, v = repeat_kv(k, rep), repeat_kv(v, rep)
if mask is None:
    mask = causal_mask(L, x.device)
y, _ = scaled_dot_product_attention(q, k, v, mask)
""" + GQA_TAIL}, fails=["gqa_grouped", "gqa_mqa"]),
dict(name="wrong_query_grouping_order", kind="wrong",
     first="GroupedQueryAttention.forward skips repeat_kv and groups the query heads as (n_rep, H_kv) instead of (H_kv, n_rep), so query head h is served by KV head h % H_kv instead of h // n_rep",
     ideal="the broadcast grouping puts query head h with KV head h % H_kv; consecutive query heads must share a KV head (h // n_rep), as repeat_interleave lines them up; wrong whenever 1 < H_kv < H",
     expect=r"group|order|h\s*//\s*n_rep|h\s*%|consecutive|interleav|view\s*\(.*n_rep|which kv head|query head",
     rejects=[r"device|dtype", r"causal|bias"],
     bodies={2: """
B, L, _ = x.shape
G, R = self.n_kv_heads, self.n_heads // self.n_kv_heads
q = self.q_proj(x).view(B, L, R, G, self.d_head).permute(0, 3, 2, 1, 4)     # (B, G, R, L, dh)
k = self.k_proj(x).view(B, L, G, 1, self.d_head).permute(0, 2, 3, 1, 4)     # (B, G, 1, L, dh)
v = self.v_proj(x).view(B, L, G, 1, self.d_head).permute(0, 2, 3, 1, 4)
if mask is None:
    mask = causal_mask(L, x.device)
m = torch.broadcast_to(mask, (B, self.n_heads, L, L)).reshape(B, R, G, L, L).transpose(1, 2)
y, _ = scaled_dot_product_attention(q, k, v, m)                              # (B, G, R, L, dh)
y = y.permute(0, 3, 2, 1, 4).reshape(B, L, self.n_heads * self.d_head)
return self.o_proj(y)
"""}, fails=["gqa_grouped"]),
dict(name="wrong_additive_mask_nan_grad", kind="wrong",
     first="GroupedQueryAttention.forward writes its own attention with an additive -inf mask (HF style) and torch.nan_to_num on the weights: outputs are right, but a fully masked query gives NaN gradients",
     ideal="the additive -inf mask plus nan_to_num hides the NaN only in the forward; backward through the all -inf softmax row is NaN and the addition passes it on, so q/k projection gradients are NaN (the given function's masked_fill zeroes them)",
     expect=r"nan|gradient|grad|backward|nan_to_num|additive|fully[- ]masked|all[- ]false|padding",
     rejects=[r"device|dtype", r"tile|repeat order"],
     bodies={2: GQA_PROJ + """
rep = self.n_heads // self.n_kv_heads
k, v = repeat_kv(k, rep), repeat_kv(v, rep)
if mask is None:
    mask = causal_mask(L, x.device)
scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
scores = scores + torch.zeros_like(scores).masked_fill(~mask, float("-inf"))
weights = torch.nan_to_num(torch.softmax(scores, dim=-1))   # fully masked rows: NaN -> 0
y = weights @ v
""" + GQA_TAIL}, fails=["gqa_padding_grad"]),
dict(name="wrong_causal_mask_no_device", kind="wrong",
     first="GroupedQueryAttention.forward builds its default mask with causal_mask(L), forgetting x.device, so the mask is always on the CPU",
     ideal="causal_mask(L) without x.device makes a CPU mask; with the module and x on a GPU, masked_fill mixes devices and raises; pass x.device",
     expect=r"device|cuda|gpu|\bcpu\b",
     rejects=[r"tile|repeat order|group", r"dtype", r"bias"],
     bodies={2: GQA_PROJ + """
rep = self.n_heads // self.n_kv_heads
k, v = repeat_kv(k, rep), repeat_kv(v, rep)
if mask is None:
    mask = causal_mask(L)
y, _ = scaled_dot_product_attention(q, k, v, mask)
""" + GQA_TAIL}, fails=["gqa_meta"]),
dict(name="wrong_softmax_over_queries", kind="wrong",
     first="GroupedQueryAttention.forward writes its own attention and takes torch.softmax over dim=-2 (the queries) instead of dim=-1 (the keys)",
     ideal="softmax is taken over the wrong axis: columns (queries) sum to 1 instead of each query's row over the keys; outputs are wrong for every configuration",
     expect=r"dim\s*=?\s*-?[12]|axis|quer(y|ies)|keys|rows?|columns?|sum to (1|one)|wrong dim",
     rejects=[r"device|dtype", r"tile|repeat order", r"bias"],
     bodies={2: GQA_PROJ + """
rep = self.n_heads // self.n_kv_heads
k, v = repeat_kv(k, rep), repeat_kv(v, rep)
if mask is None:
    mask = causal_mask(L, x.device)
scores = (q @ k.transpose(-2, -1)) / math.sqrt(self.d_head)
scores = scores.masked_fill(~mask, float("-inf"))
weights = torch.softmax(scores, dim=-2).masked_fill(~mask, 0.0)
y = weights @ v
""" + GQA_TAIL}, fails=["gqa_mha_equiv", "gqa_grouped"]),
dict(name="honest_hf_expand_grouped", kind="honest",
     first="repeat_kv ported from Hugging Face (x[:, :, None].expand(...).reshape); forward never copies KV heads: queries viewed as (B, H_kv, n_rep, L, d) broadcast against (B, H_kv, 1, L, d)",
     **OK,
     bodies=["""
B, H_kv, L, d = x.shape
if n_rep == 1:
    return x
return x[:, :, None, :, :].expand(B, H_kv, n_rep, L, d).reshape(B, H_kv * n_rep, L, d)
""", GQA_INIT, """
B, L, _ = x.shape
G, R, dh = self.n_kv_heads, self.n_heads // self.n_kv_heads, self.d_head
q = self.q_proj(x).view(B, L, G, R, dh).permute(0, 2, 3, 1, 4)   # query head g*R + r
k = self.k_proj(x).view(B, L, G, 1, dh).permute(0, 2, 3, 1, 4)   # shared by its R query heads
v = self.v_proj(x).view(B, L, G, 1, dh).permute(0, 2, 3, 1, 4)
if mask is None:
    mask = causal_mask(L, x.device)
m = torch.broadcast_to(mask, (B, self.n_heads, L, L)).reshape(B, G, R, L, L)
y, _ = scaled_dot_product_attention(q, k, v, m)                   # (B, G, R, L, dh)
return self.o_proj(y.permute(0, 3, 1, 2, 4).reshape(B, L, self.n_heads * dh))
"""]),
dict(name="honest_stack_head_loop", kind="honest",
     first="repeat_kv via torch.stack([x]*n_rep, dim=2).flatten(1, 2); forward loops over query heads, each reading KV head h // n_rep from column slices",
     **OK,
     bodies=["""
return torch.stack([x] * n_rep, dim=2).flatten(1, 2)
""", GQA_INIT, """
B, L, _ = x.shape
dh, R = self.d_head, self.n_heads // self.n_kv_heads
q, k, v = self.q_proj(x), self.k_proj(x), self.v_proj(x)
if mask is None:
    mask = causal_mask(L, x.device)
mask = torch.broadcast_to(mask, (B, self.n_heads, L, L))
outs = []
for h in range(self.n_heads):
    g = h // R
    y_h, _ = scaled_dot_product_attention(q[..., h * dh:(h + 1) * dh], k[..., g * dh:(g + 1) * dh],
                                          v[..., g * dh:(g + 1) * dh], mask[:, h])
    outs.append(y_h)
return self.o_proj(torch.cat(outs, dim=-1))
"""]),
])

# ---------------------------------------------------------------- exercise 8
KV_INIT = """
self.max_len = max_len
self.k = torch.zeros(batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
self.v = torch.zeros(batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
self.length = 0
"""
KV_UPDATE = """
start = self.length
end = start + k.shape[2]
if end > self.max_len:
    raise ValueError(f"KV cache full: {end} tokens > max_len {self.max_len}")
self.k[:, :, start:end] = k
self.v[:, :, start:end] = v
self.length = end
return self.k[:, :, :end], self.v[:, :, :end]
"""
C_PROJ = """
B, T, _ = x.shape
q = self.q_proj(x).view(B, T, self.n_heads, self.d_head).transpose(1, 2)
k = self.k_proj(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)
v = self.v_proj(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)
"""
C_TAIL = """
rep = self.n_heads // self.n_kv_heads
k, v = repeat_kv(k, rep), repeat_kv(v, rep)
y, _ = scaled_dot_product_attention(q, k, v, mask)
y = y.transpose(1, 2).contiguous().view(B, T, self.n_heads * self.d_head)
return self.o_proj(y)
"""
C_FWD = C_PROJ + """
past = 0
if cache is not None:
    past = len(cache)
    k, v = cache.update(k, v)
mask = torch.ones(T, past + T, dtype=torch.bool, device=x.device).tril(diagonal=past)
""" + C_TAIL
S[8] = dict(base=["""
return 2 * n_layers * n_kv_heads * d_head * seq_len * batch_size * bytes_per_value
""", KV_INIT, """
return self.length
""", """
self.length = 0
""", KV_UPDATE, C_FWD], files=[
dict(name="wrong_numpy_prod", kind="wrong",
     first="kv_cache_bytes returns np.prod([...]), a numpy.int64, not a Python int (and it would overflow silently past 2**63)",
     ideal="the value is right but the type is numpy.int64, not int as the docstring asks; use plain Python multiplication (or int(...))",
     expect=r"\bint\b|type|numpy|np\.prod|int64|return type",
     rejects=[r"factor (of )?2|keys and values|batch|n_heads", r"device|dtype"],
     extra="import numpy as np",
     bodies={0: """
return np.prod([2, n_layers, n_kv_heads, d_head, seq_len, batch_size, bytes_per_value])
"""}, fails=["bytes_type"]),
dict(name="wrong_concat_cache", kind="wrong",
     first="KVCache grows by torch.cat on every update (Hugging Face DynamicCache style) instead of writing into storage allocated once: results are right but each update allocates and copies all past tokens, and returns copies, not views of a fixed storage",
     ideal="the cache must preallocate max_len once and write new tokens in place; torch.cat reallocates and copies every past token on each update (O(T) per step), breaking the 'views of the storage, allocated once' rule",
     expect=r"torch\.cat|concat|allocat|preallocat|copies|copy|views?|storage|in place|once",
     rejects=[r"ValueError|overflow check", r"\bmask\b|diagonal|past\s*=\s*len", r"device"],
     bodies={1: """
self.max_len = max_len
self.k = None
self.v = None
""", 2: """
return 0 if self.k is None else self.k.shape[2]
""", 3: """
self.k = None
self.v = None
""", 4: """
if len(self) + k.shape[2] > self.max_len:
    raise ValueError(f"KV cache full: max_len {self.max_len}")
self.k = k if self.k is None else torch.cat([self.k, k], dim=2)
self.v = v if self.v is None else torch.cat([self.v, v], dim=2)
return self.k, self.v
"""}, fails=["cache_views"]),
dict(name="wrong_length_before_check", kind="wrong",
     first="KVCache.update adds T_new to its length before checking max_len, so a rejected (ValueError) update still leaves len(cache) too large and the cache corrupted",
     ideal="the overflow check must come before any change: here the length is bumped first, so after the ValueError len(cache) counts tokens that were never written and later updates write in the wrong place",
     expect=r"before|after|state|length|len\(|counter|leav|unchanged|corrupt|ValueError|atomic",
     rejects=[r"torch\.cat|device|dtype", r"mask|diagonal"],
     bodies={4: """
start = self.length
self.length += k.shape[2]
if self.length > self.max_len:
    raise ValueError(f"KV cache full: {self.length} tokens > max_len {self.max_len}")
end = self.length
self.k[:, :, start:end] = k
self.v[:, :, start:end] = v
return self.k[:, :, :end], self.v[:, :, :end]
"""}, fails=["cache_overflow"]),
dict(name="wrong_returns_whole_storage", kind="wrong",
     first="KVCache.update returns the whole storage self.k, self.v (max_len tokens, zeros past the end) instead of the first len(cache) tokens",
     ideal="update must return [:, :, :T] (only the cached tokens); returning all max_len slots gives the wrong shape and makes attention read zero keys/values of tokens that do not exist",
     expect=r"slice|:\s*end|max_len|whole|entire|all (of the )?storage|shape|zeros?|unfilled|padding|len\(cache\)",
     rejects=[r"torch\.cat|device|dtype", r"tril\(diagonal|diagonal\s*=\s*past"],
     bodies={4: """
start = self.length
end = start + k.shape[2]
if end > self.max_len:
    raise ValueError(f"KV cache full: {end} tokens > max_len {self.max_len}")
self.k[:, :, start:end] = k
self.v[:, :, start:end] = v
self.length = end
return self.k, self.v
"""}, fails=["cache_update_values", "cached_chunks"]),
dict(name="wrong_storage_no_device", kind="wrong",
     first="KVCache.__init__ allocates its storage with torch.zeros(..., dtype=dtype) but without device=device, so the cache is always on the CPU",
     ideal="the device argument is ignored when allocating the storage: a cache asked for on a GPU lives on the CPU, so updates with GPU tensors copy across devices and return CPU tensors",
     expect=r"device|cuda|gpu|\bcpu\b",
     rejects=[r"torch\.cat|ValueError|mask|diagonal", r"wrong dtype"],
     bodies={1: """
self.max_len = max_len
self.k = torch.zeros(batch_size, n_kv_heads, max_len, d_head, dtype=dtype)
self.v = torch.zeros(batch_size, n_kv_heads, max_len, d_head, dtype=dtype)
self.length = 0
"""}, fails=["cache_meta"]),
dict(name="wrong_no_grad_write", kind="wrong",
     first="KVCache.update writes into the storage under torch.no_grad() ('a cache needs no gradients'), so the keys and values it returns have lost autograd's record and k_proj/v_proj get no gradient through the cache",
     ideal="writing under no_grad detaches the cached keys/values: forward(x, cache) is right but W_K and W_V receive no gradient (the docstring says update must keep autograd's record)",
     expect=r"no_grad|gradient|grad|autograd|detach|backward|k_proj|v_proj|record",
     rejects=[r"torch\.cat|device|dtype", r"mask|diagonal|past\b"],
     bodies={4: """
start = self.length
end = start + k.shape[2]
if end > self.max_len:
    raise ValueError(f"KV cache full: {end} tokens > max_len {self.max_len}")
with torch.no_grad():              # the cache is just storage
    self.k[:, :, start:end] = k
    self.v[:, :, start:end] = v
self.length = end
return self.k[:, :, :end], self.v[:, :, :end]
"""}, fails=["cached_grad_cache"]),
dict(name="wrong_mask_diagonal_zero", kind="wrong",
     first="CachedGroupedQueryAttention.forward builds the (T_new, past + T_new) mask with tril() (diagonal 0) instead of tril(diagonal=past), so new tokens cannot see most cached tokens",
     ideal="the mask ignores the offset of the cached tokens: row i must see keys 0..past+i (tril with diagonal=past); with diagonal 0 a decoded token sees only the first few keys; right only when the cache is empty",
     expect=r"diagonal|past|offset|position|tril|cached (tokens|keys)|shift",
     rejects=[r"torch\.cat|device|dtype", r"no_grad|ValueError"],
     bodies={5: C_PROJ + """
past = 0
if cache is not None:
    past = len(cache)
    k, v = cache.update(k, v)
mask = torch.ones(T, past + T, dtype=torch.bool, device=x.device).tril()
""" + C_TAIL}, fails=["cached_chunks"]),
dict(name="wrong_past_read_after_update", kind="wrong",
     first="CachedGroupedQueryAttention.forward reads past = len(cache) AFTER cache.update, so the mask offset is past + T_new: right for one token at a time, but a chunk of T_new > 1 tokens sees its own future",
     ideal="len(cache) is read after the new tokens were appended, so the diagonal offset is too large by T_new: single-token decoding is right, but a multi-token chunk is not causal inside itself (token i sees later new tokens)",
     expect=r"after|before|past|len\(cache\)|offset|diagonal|future|chunk|causal|t_?new",
     rejects=[r"torch\.cat|device|dtype", r"no_grad|ValueError"],
     bodies={5: C_PROJ + """
past = 0
if cache is not None:
    k, v = cache.update(k, v)
    past = len(cache)
mask = torch.ones(T, k.shape[2], dtype=torch.bool, device=x.device).tril(diagonal=past)
""" + C_TAIL}, fails=["cached_chunks", "cached_grad_cache"]),
dict(name="honest_single_buffer_narrow", kind="honest",
     first="one (2, B, H_kv, max_len, d) buffer for keys and values written with narrow().copy_(); math.prod for the bytes; forward masks by comparing positions and groups queries instead of repeating KV",
     **OK, extra="import math as _m",
     bodies=["""
return int(_m.prod((2, n_layers, n_kv_heads, d_head, seq_len, batch_size, bytes_per_value)))
""", """
self._kv = torch.empty(2, batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
self._n = 0
""", """
return self._n
""", """
self._n = 0
""", """
t = k.shape[2]
if self._n + t > self._kv.shape[3]:
    raise ValueError("KV cache overflow: %d + %d > %d" % (self._n, t, self._kv.shape[3]))
self._kv[0].narrow(2, self._n, t).copy_(k)
self._kv[1].narrow(2, self._n, t).copy_(v)
self._n += t
return self._kv[0].narrow(2, 0, self._n), self._kv[1].narrow(2, 0, self._n)
""", """
B, T, _ = x.shape
G, R, dh = self.n_kv_heads, self.n_heads // self.n_kv_heads, self.d_head
q = self.q_proj(x).view(B, T, G, R, dh).permute(0, 2, 3, 1, 4)         # (B, G, R, T, dh)
k = self.k_proj(x).view(B, T, G, dh).transpose(1, 2)                    # (B, G, T, dh)
v = self.v_proj(x).view(B, T, G, dh).transpose(1, 2)
past = len(cache) if cache is not None else 0
if cache is not None:
    k, v = cache.update(k, v)
key_pos = torch.arange(past + T, device=x.device)
query_pos = torch.arange(T, device=x.device) + past
mask = key_pos[None, :] <= query_pos[:, None]                           # (T, past + T)
y, _ = scaled_dot_product_attention(q, k.unsqueeze(2), v.unsqueeze(2), mask)
return self.o_proj(y.permute(0, 3, 1, 2, 4).reshape(B, T, self.n_heads * dh))
"""]),
dict(name="honest_index_copy_head_loop", kind="honest",
     first="functools.reduce for the bytes; KVCache writes with index_copy_ into zeros storage; forward loops over query heads, each reading KV head h // n_rep with a tril(diagonal=past) mask",
     **OK, extra="import functools\nimport operator",
     bodies=["""
return functools.reduce(operator.mul, (n_layers, n_kv_heads, d_head, seq_len, batch_size, bytes_per_value), 2)
""", """
shape = (batch_size, n_kv_heads, max_len, d_head)
self.keys = torch.zeros(shape, dtype=dtype, device=device)
self.values = torch.zeros(shape, dtype=dtype, device=device)
self.max_len, self.pos = max_len, 0
""", """
return self.pos
""", """
self.pos = 0
""", """
new = k.size(2)
if self.pos + new > self.max_len:
    raise ValueError(f"cannot append {new} tokens: {self.pos} cached, room for {self.max_len}")
idx = torch.arange(self.pos, self.pos + new, device=self.keys.device)
self.keys.index_copy_(2, idx, k)
self.values.index_copy_(2, idx, v)
self.pos += new
return self.keys[:, :, :self.pos], self.values[:, :, :self.pos]
""", """
B, T, _ = x.shape
dh, R = self.d_head, self.n_heads // self.n_kv_heads
q = self.q_proj(x).view(B, T, self.n_heads, dh).transpose(1, 2)
k = self.k_proj(x).view(B, T, self.n_kv_heads, dh).transpose(1, 2)
v = self.v_proj(x).view(B, T, self.n_kv_heads, dh).transpose(1, 2)
past = 0 if cache is None else len(cache)
if cache is not None:
    k, v = cache.update(k, v)
mask = torch.ones(T, past + T, dtype=torch.bool, device=x.device).tril(diagonal=past)
heads = [scaled_dot_product_attention(q[:, h:h + 1], k[:, h // R:h // R + 1], v[:, h // R:h // R + 1], mask)[0]
         for h in range(self.n_heads)]
y = torch.cat(heads, dim=1)                                             # (B, H, T, dh)
return self.o_proj(y.transpose(1, 2).reshape(B, T, self.n_heads * dh))
"""]),
])
