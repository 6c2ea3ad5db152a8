STUB = "exercise6_multihead.py"

SPLIT_OK = """
B, L, D = x.shape
return x.reshape(B, L, n_heads, D // n_heads).transpose(1, 2)
"""
MERGE_OK = """
B, H, L, d_head = x.shape
return x.transpose(1, 2).reshape(B, L, H * d_head)
"""
INIT_OK = """
self.n_heads = n_heads
self.d_head = d_model // n_heads
self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
self.out = nn.Linear(d_model, d_model, bias=bias)
"""
FWD_OK = """
B, L, D = x.shape
q, k, v = self.qkv(x).split(D, dim=-1)
q, k, v = (split_heads(t, self.n_heads) for t in (q, k, v))
if mask is None:
    mask = causal_mask(L, x.device)
y, _ = scaled_dot_product_attention(q, k, v, mask)
return self.out(merge_heads(y))
"""

FILES = [
    dict(name="wrong_split_without_transpose", kind="wrong",
         mistake="split_heads reshapes (B, L, D) straight to (B, H, L, d_head) with no transpose, so each 'head' gets a jumble of different tokens' columns",
         ideal="split_heads: view as (B, L, H, d_head) first (each token's D numbers cut into H chunks), then transpose(1, 2); reshaping directly to (B, H, L, d_head) mixes tokens",
         expect=r"transpose|\(B, ?L, ?H, ?d_head\)|view|reshape|tokens?|order|mix",
         reject=[r"dtype|device|in-?place|contiguous"],
         bodies=["""
B, L, D = x.shape
return x.reshape(B, n_heads, L, D // n_heads)
""", MERGE_OK, INIT_OK, FWD_OK]),
    dict(name="wrong_split_interleaved", kind="wrong",
         mistake="split_heads views each D-vector as (d_head, H) and moves H forward, so head h takes every H-th column (interleaved) instead of the contiguous block h*d_head..(h+1)*d_head-1",
         ideal="split_heads: head h owns columns h*d_head .. (h+1)*d_head-1, so view as (B, L, H, d_head), not (B, L, d_head, H)",
         expect=r"interleav|contiguous (block|chunk)|\(B, ?L, ?H, ?d_head\)|\(B, ?L, ?d_head, ?H\)|columns|chunk|order",
         reject=[r"dtype|device|in-?place"],
         bodies=["""
B, L, D = x.shape
return x.reshape(B, L, D // n_heads, n_heads).permute(0, 3, 1, 2)
""", MERGE_OK, INIT_OK, FWD_OK]),
    dict(name="wrong_merge_view_noncontiguous", kind="wrong",
         mistake="merge_heads calls .view on the transposed tensor without .contiguous(): it raises for the usual non-contiguous output of attention (and so forward raises too)",
         ideal="merge_heads: after transpose(1, 2) the memory is not contiguous and .view fails; add .contiguous() before .view (or use .reshape)",
         expect=r"contiguous|view|reshape|stride",
         reject=[r"dtype|device|in-?place|wrong (values|order)"],
         bodies=[SPLIT_OK, """
B, H, L, d_head = x.shape
return x.transpose(1, 2).view(B, L, H * d_head)
""", INIT_OK, FWD_OK]),
    dict(name="wrong_merge_without_transpose", kind="wrong",
         mistake="merge_heads reshapes (B, H, L, d_head) straight to (B, L, H*d_head) without moving the heads back next to each token, so token rows are filled with other tokens' outputs",
         ideal="merge_heads: transpose(1, 2) back to (B, L, H, d_head) before flattening; reshaping (B, H, L, d_head) directly concatenates the wrong numbers",
         expect=r"transpose|\(B, ?L, ?H, ?d_head\)|order|reshape|tokens?|concat",
         reject=[r"dtype|device|in-?place|contiguous"],
         bodies=[SPLIT_OK, """
B, H, L, d_head = x.shape
return x.reshape(B, L, H * d_head)
""", INIT_OK, FWD_OK]),
    dict(name="wrong_no_causal_default", kind="wrong",
         mistake="forward passes mask=None straight to attention, so with no mask given every token also reads future tokens (no causal mask)",
         ideal="MultiHeadAttention.forward: when mask is None the layer must be causal: build causal_mask(L, x.device) so token i sees tokens 0..i only",
         expect=r"causal|future|mask ?(is|=)+ ?None|tril|peek",
         reject=[r"dtype|wrong device|on the cpu|in-?place|contiguous|transpose"],
         bodies=[SPLIT_OK, MERGE_OK, INIT_OK, """
B, L, D = x.shape
q, k, v = self.qkv(x).split(D, dim=-1)
q, k, v = (split_heads(t, self.n_heads) for t in (q, k, v))
y, _ = scaled_dot_product_attention(q, k, v, mask)
return self.out(merge_heads(y))
"""]),
    dict(name="wrong_mask_combined_with_causal", kind="wrong",
         mistake="forward ANDs a given mask with the causal mask, though the docstring says a given mask replaces the causal one (a non-causal mask is silently made causal)",
         ideal="MultiHeadAttention.forward: use the given mask as it is; only mask=None means causal. Combining them hides keys the caller allowed",
         expect=r"replace|combin|given mask|&|and(ed)? with|causal",
         reject=[r"dtype|device|in-?place|contiguous|transpose"],
         bodies=[SPLIT_OK, MERGE_OK, INIT_OK, """
B, L, D = x.shape
q, k, v = self.qkv(x).split(D, dim=-1)
q, k, v = (split_heads(t, self.n_heads) for t in (q, k, v))
causal = causal_mask(L, x.device)
mask = causal if mask is None else (mask & causal)
y, _ = scaled_dot_product_attention(q, k, v, mask)
return self.out(merge_heads(y))
"""]),
    dict(name="wrong_separate_projections", kind="wrong",
         mistake="__init__ builds three separate q_proj/k_proj/v_proj linears instead of the one fused qkv = nn.Linear(d_model, 3*d_model), so the grader's state dict (qkv.weight, qkv.bias, out.*) does not load",
         ideal="MultiHeadAttention: the docstring requires exactly two submodules, qkv (fused, 3*d_model outputs) and out; separate q_proj/k_proj/v_proj change the parameter names",
         expect=r"qkv|state.?dict|submodule|fused|q_proj|key|load|parameter names",
         reject=[r"dtype|device|in-?place|contiguous|transpose"],
         bodies=[SPLIT_OK, MERGE_OK, """
self.n_heads = n_heads
self.d_head = d_model // n_heads
self.q_proj = nn.Linear(d_model, d_model, bias=bias)
self.k_proj = nn.Linear(d_model, d_model, bias=bias)
self.v_proj = nn.Linear(d_model, d_model, bias=bias)
self.out = nn.Linear(d_model, d_model, bias=bias)
""", """
B, L, D = x.shape
q = split_heads(self.q_proj(x), self.n_heads)
k = split_heads(self.k_proj(x), self.n_heads)
v = split_heads(self.v_proj(x), self.n_heads)
if mask is None:
    mask = causal_mask(L, x.device)
y, _ = scaled_dot_product_attention(q, k, v, mask)
return self.out(merge_heads(y))
"""]),
    dict(name="wrong_causal_buffer_in_state", kind="wrong",
         mistake="__init__ registers a 1024x1024 causal mask as a (persistent) buffer, nanoGPT-style: the state dict gains a 'causal' key, so loading the grader's qkv/out state dict strictly fails (and L > 1024 breaks)",
         ideal="MultiHeadAttention: a persistent buffer adds a key to the state dict, so the required keys (qkv.weight, qkv.bias, out.weight, out.bias) no longer match; build causal_mask(L, x.device) in forward (or register it with persistent=False)",
         expect=r"buffer|state.?dict|persistent|unexpected|missing|key|1024",
         reject=[r"dtype|in-?place|contiguous|transpose|wrong (values|order)"],
         bodies=[SPLIT_OK, MERGE_OK, """
self.n_heads = n_heads
self.d_head = d_model // n_heads
self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
self.out = nn.Linear(d_model, d_model, bias=bias)
self.register_buffer("causal", causal_mask(1024))
""", """
B, L, D = x.shape
q, k, v = self.qkv(x).split(D, dim=-1)
q, k, v = (split_heads(t, self.n_heads) for t in (q, k, v))
if mask is None:
    mask = self.causal[:L, :L]
y, _ = scaled_dot_product_attention(q, k, v, mask)
return self.out(merge_heads(y))
"""]),
    dict(name="honest_unflatten_permute", kind="honest",
         method="unflatten/permute/flatten throughout; forward cuts the fused qkv output into (3, H, d_head) in one unflatten and unbinds it (nanoGPT-style port)",
         bodies=["""
return x.unflatten(-1, (n_heads, x.shape[-1] // n_heads)).permute(0, 2, 1, 3)
""", """
return x.permute(0, 2, 1, 3).flatten(start_dim=2)
""", INIT_OK, """
B, L, D = x.shape
qkv = self.qkv(x).unflatten(-1, (3, self.n_heads, self.d_head))  # (B, L, 3, H, d_head)
q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)  # three (B, H, L, d_head)
attn_mask = causal_mask(L, x.device) if mask is None else mask
y, _ = scaled_dot_product_attention(q, k, v, attn_mask)
return self.out(merge_heads(y))
"""]),
    dict(name="honest_strided_head_loop", kind="honest",
         method="split_heads as one torch.as_strided view with explicit strides; merge_heads concatenates the unbound heads; forward runs the heads one at a time in a Python loop on the expanded mask",
         bodies=["""
B, L, D = x.shape
d_head = D // n_heads
s_b, s_l, s_d = x.stride()
return x.as_strided((B, n_heads, L, d_head), (s_b, d_head * s_d, s_l, s_d), x.storage_offset())
""", """
return torch.cat(x.unbind(dim=1), dim=-1)
""", """
assert d_model % n_heads == 0, "d_model must divide evenly into heads"
self.n_heads = n_heads
self.d_head = d_model // n_heads
self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
self.out = nn.Linear(d_model, d_model, bias=bias)
""", """
B, L, D = x.shape
H = self.n_heads
q, k, v = (split_heads(t, H) for t in self.qkv(x).chunk(3, dim=-1))
if mask is None:
    mask = causal_mask(L, x.device)
mask = mask.expand(B, H, L, L)
heads = []
for h in range(H):
    y_h, _ = scaled_dot_product_attention(q[:, h], k[:, h], v[:, h], mask[:, h])
    heads.append(y_h)
return self.out(merge_heads(torch.stack(heads, dim=1)))
"""]),
]
