EX = 7
STUB = "exercise7_gqa.py"
FWD = """
B, L, _ = x.shape
q = self.q_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)  # (B, H, L, dh)
k = self.k_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)  # (B, Hkv, L, dh)
v = self.v_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)
rep = self.n_heads // self.n_kv_heads
k, v = repeat_kv(k, rep), repeat_kv(v, rep)
if mask is None:
    mask = causal_mask(L, x.device)
y, _ = scaled_dot_product_attention(q, k, v, mask)
y = y.transpose(1, 2).contiguous().view(B, L, self.n_heads * self.d_head)
return self.o_proj(y)
"""
INIT = """
assert n_heads % n_kv_heads == 0, "n_heads must be a multiple of n_kv_heads"
self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
self.d_head = d_model // n_heads
self.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
self.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
self.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
self.o_proj = nn.Linear(n_heads * self.d_head, d_model, bias=False)
"""
CORRECT = {
    "repeat_kv": """
return x.repeat_interleave(n_rep, dim=1)  # (B, H_kv * n_rep, L, d)
""",
    "GroupedQueryAttention.__init__": INIT,
    "GroupedQueryAttention.forward": FWD,
}
VARIANTS = [
    dict(slug="repeat_tiles", kind="wrong",
         mistake="repeat_kv uses x.repeat(1, n_rep, 1, 1), which tiles the heads [0, 1, 0, 1, ...] instead of repeating each head next to itself [0, 0, 1, 1, ...]",
         ideal="repeat_kv uses Tensor.repeat, which tiles the KV heads in the order [0, 1, 0, 1, ...] instead of repeat_interleave's [0, 0, 1, 1, ...], so query head j reads KV head j % H_kv instead of j // n_rep (it only works for H_kv = 1 or n_rep = 1).",
         expect=[r"repeat_interleave|tile|order|\[0, ?1, ?0|j ?% ?h|interleav", r"head|group"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"wrong device|device (mismatch|is wrong)|made on the cpu|cuda|gpu"],
         bodies={"repeat_kv": """
return x.repeat(1, n_rep, 1, 1)
"""}),
    dict(slug="expand_wrong_axis", kind="wrong",
         mistake="repeat_kv ports the expand+reshape trick but inserts the new axis BEFORE the heads (x[:, None]), which tiles the heads instead of repeating each one",
         ideal="repeat_kv expands a new axis in front of the KV-head axis (x[:, None].expand(B, n_rep, H_kv, ...)), so after the reshape the heads come out tiled [0, 1, 0, 1] rather than each head repeated next to itself [0, 0, 1, 1]; the new axis belongs after the head axis.",
         expect=[r"expand|new axis|x\[:, ?none\]|tile|\[0, ?1, ?0|wrong (place|position)", r"head|interleav|next to itself|j ?// ?n_rep"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"wrong device|device (mismatch|is wrong)|made on the cpu|cuda|gpu"],
         bodies={"repeat_kv": """
B, H_kv, L, d = x.shape
return x[:, None].expand(B, n_rep, H_kv, L, d).reshape(B, H_kv * n_rep, L, d)
"""}),
    dict(slug="repeat_float32_buffer", kind="wrong",
         mistake="repeat_kv copies heads into torch.empty(..., device=x.device) without dtype=, so the result is float32 whatever x's dtype",
         ideal="repeat_kv fills a buffer made with torch.empty(..., device=x.device) but no dtype=x.dtype, so it returns float32 for float64 or half inputs instead of x's dtype.",
         expect=[r"dtype|float32|precision"],
         reject=[r"order|tile", r"cuda|gpu|on the cpu"],
         bodies={"repeat_kv": """
B, H_kv, L, d = x.shape
out = torch.empty(B, H_kv * n_rep, L, d, device=x.device)
for j in range(H_kv * n_rep):
    out[:, j] = x[:, j // n_rep]  # output head j is input head j // n_rep
return out
"""}),
    dict(slug="kv_reshape_no_transpose", kind="wrong",
         mistake="forward reshapes the keys and values straight to (B, H_kv, L, d_head) without the transpose (the queries are split correctly)",
         ideal="forward reshapes k_proj(x) and v_proj(x) directly to (B, H_kv, L, d_head) instead of viewing as (B, L, H_kv, d_head) and transposing, so the keys and values of each head are scrambled across tokens while the queries are right.",
         expect=[r"transpos|directly|straight", r"key|value|\bk\b|\bv\b|kv"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"wrong device|device (mismatch|is wrong)|made on the cpu|cuda|gpu", r"repeat_kv (is|was) wrong"],
         bodies={"GroupedQueryAttention.forward": FWD.replace(
             "k = self.k_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)  # (B, Hkv, L, dh)\nv = self.v_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)",
             "k = self.k_proj(x).reshape(B, self.n_kv_heads, L, self.d_head)  # (B, Hkv, L, dh)\nv = self.v_proj(x).reshape(B, self.n_kv_heads, L, self.d_head)")}),
    dict(slug="rep_by_kv_heads", kind="wrong",
         mistake="forward repeats each KV head n_kv_heads times (repeat_kv(k, self.n_kv_heads)) instead of n_heads // n_kv_heads: right only when H == H_kv**2 or H_kv == 1",
         ideal="forward passes n_kv_heads as the repeat count instead of n_heads // n_kv_heads, which happens to work for H = 4, H_kv = 2 and for multi-query attention but gives the wrong number of heads (an error) for e.g. H = 6, H_kv = 3.",
         expect=[r"n_kv_heads|repeat count|n_rep|n_heads ?// ?n_kv_heads|h ?/ ?h_kv|group size", r"repeat|rep"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)", r"wrong device|made on the cpu|cuda|gpu", r"wrong order|order (is|was) wrong|tiles? the heads"],
         bodies={"GroupedQueryAttention.forward": FWD.replace("rep = self.n_heads // self.n_kv_heads", "rep = self.n_kv_heads  # how many times to repeat each KV head")}),
    dict(slug="q_proj_bias", kind="wrong",
         mistake="__init__ creates q_proj with nn.Linear's default bias=True, so the module has an extra q_proj.bias parameter",
         ideal="__init__ forgets bias=False on q_proj, so the module has a q_proj.bias parameter that the state dict does not contain (strict loading fails and the queries are shifted).",
         expect=[r"bias"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)", r"wrong device|made on the cpu|cuda|gpu", r"repeat_kv (is|was) wrong|wrong (head )?order|tiles? the heads"],
         bodies={"GroupedQueryAttention.__init__": INIT.replace("self.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)", "self.q_proj = nn.Linear(d_model, n_heads * self.d_head)")}),
    dict(slug="mask_on_cpu", kind="wrong",
         mistake="forward builds the default causal mask with causal_mask(L), on the CPU, ignoring x.device",
         ideal="forward calls causal_mask(L) without x.device, so the default mask is on the CPU and the module fails when x and its parameters are on a GPU.",
         expect=[r"device|cuda|gpu|cpu"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)", r"repeat_kv (is|was) wrong|wrong (head )?order|tiles? the heads"],
         bodies={"GroupedQueryAttention.forward": FWD.replace("causal_mask(L, x.device)", "causal_mask(L)")}),
    dict(slug="inline_softmax_nan", kind="wrong",
         mistake="forward inlines attention with masked_fill(-inf) and torch.softmax instead of the given function, so a query whose mask row is all False gets NaN",
         ideal="forward writes its own masked_fill(-inf) + torch.softmax attention instead of the given scaled_dot_product_attention, so a fully masked query (an all-padding sequence) gets softmax of all -inf = NaN instead of a zero output.",
         expect=[r"nan|0 ?/ ?0|not a number", r"fully masked|all false|all[- ]padding|no key|softmax|-inf"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"wrong device|device (mismatch|is wrong)|made on the cpu|cuda|gpu"],
         bodies={"GroupedQueryAttention.forward": FWD.replace(
             "y, _ = scaled_dot_product_attention(q, k, v, mask)",
             "scores = (q @ k.transpose(-2, -1)) / math.sqrt(self.d_head)\nscores = scores.masked_fill(~mask, float(\"-inf\"))\ny = torch.softmax(scores, dim=-1) @ v")}),
    dict(slug="mask_and_causal", kind="wrong",
         mistake="forward ANDs a given mask with the causal mask instead of letting it replace the causal one",
         ideal="forward combines a given mask with the causal mask (mask & causal), although the docstring says a given mask replaces the causal one, so a full or padding mask still hides later keys.",
         expect=[r"combin|&|and(ed|s)? .*causal|both|replace|intersect", r"mask"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)", r"wrong device|made on the cpu|cuda|gpu", r"repeat_kv (is|was) wrong|wrong (head )?order|tiles? the heads"],
         bodies={"GroupedQueryAttention.forward": FWD.replace(
             "if mask is None:\n    mask = causal_mask(L, x.device)",
             "causal = causal_mask(L, x.device)\nmask = causal if mask is None else (mask & causal)")}),
    dict(slug="hf_expand_flatten", kind="honest",
         method="repeat_kv ported from Hugging Face's Llama (x[:, :, None].expand(...).reshape, x itself for n_rep = 1); heads split with unflatten and merged with flatten",
         ideal="Correct: expanding a new axis after the KV-head axis and reshaping repeats each head next to itself, n_rep = 1 returns x unchanged, and the module follows the chapter's steps.",
         bodies={"repeat_kv": """
if n_rep == 1:
    return x
B, H_kv, L, d = x.shape
return x[:, :, None, :, :].expand(B, H_kv, n_rep, L, d).reshape(B, H_kv * n_rep, L, d)
""", "GroupedQueryAttention.forward": """
L = x.shape[1]
q = self.q_proj(x).unflatten(-1, (self.n_heads, self.d_head)).transpose(1, 2)
k = self.k_proj(x).unflatten(-1, (self.n_kv_heads, self.d_head)).transpose(1, 2)
v = self.v_proj(x).unflatten(-1, (self.n_kv_heads, self.d_head)).transpose(1, 2)
n_rep = self.n_heads // self.n_kv_heads
y, _ = scaled_dot_product_attention(q, repeat_kv(k, n_rep), repeat_kv(v, n_rep),
                                    causal_mask(L, x.device) if mask is None else mask)
return self.o_proj(y.transpose(1, 2).flatten(2))
"""}),
    dict(slug="index_select_cat", kind="honest",
         method="repeat_kv with index_select on the head index j // n_rep (made on x's device); heads merged with torch.cat of the per-head outputs",
         ideal="Correct: index_select with arange(H_kv * n_rep) // n_rep picks input head j // n_rep for output head j on x's device, and concatenating the heads' outputs is the merge.",
         bodies={"repeat_kv": """
idx = torch.arange(x.size(1) * n_rep, device=x.device) // n_rep
return x.index_select(1, idx)
""", "GroupedQueryAttention.forward": """
B, L, D = x.shape
H, H_kv, dh = self.n_heads, self.n_kv_heads, self.d_head
q = self.q_proj(x).reshape(B, L, H, dh).permute(0, 2, 1, 3)
k = self.k_proj(x).reshape(B, L, H_kv, dh).permute(0, 2, 1, 3)
v = self.v_proj(x).reshape(B, L, H_kv, dh).permute(0, 2, 1, 3)
k, v = repeat_kv(k, H // H_kv), repeat_kv(v, H // H_kv)
if mask is None:
    mask = causal_mask(L, device=x.device)
y, _ = scaled_dot_product_attention(q, k, v, mask)
return self.o_proj(torch.cat([y[:, h] for h in range(H)], dim=-1))
"""}),
]
