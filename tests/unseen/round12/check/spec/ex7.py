STUB = "exercise7_gqa.py"

REPEAT_OK = """
return x.repeat_interleave(n_rep, dim=1)
"""
INIT_OK = """
self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
self.d_head = d_model // n_heads
self.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
self.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
self.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
self.o_proj = nn.Linear(n_heads * self.d_head, d_model, bias=False)
"""
FWD_HEAD = """
B, L, _ = x.shape
q = self.q_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)
k = self.k_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)
v = self.v_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)
"""
FWD_OK = FWD_HEAD + """
rep = self.n_heads // self.n_kv_heads
k, v = repeat_kv(k, rep), repeat_kv(v, rep)
if mask is None:
    mask = causal_mask(L, x.device)
y, _ = scaled_dot_product_attention(q, k, v, mask)
y = y.transpose(1, 2).contiguous().view(B, L, -1)
return self.o_proj(y)
"""

FILES = [
    dict(name="wrong_repeat_tiles", kind="wrong",
         mistake="repeat_kv uses x.repeat(1, n_rep, 1, 1), which tiles the KV heads as [0, 1, 0, 1, ...] instead of repeating each head next to itself [0, 0, 1, 1, ...]",
         ideal="repeat_kv: output head j must be input head j // n_rep (each KV head repeated next to itself); Tensor.repeat tiles the whole set of heads, so use repeat_interleave(n_rep, dim=1)",
         expect=r"repeat_interleave|\[0, ?0, ?0, ?1|\[0, ?1, ?0, ?1|order|tile|j ?// ?n_rep|group",
         reject=[r"dtype|device|in-?place|bias"],
         bodies=["""
return x.repeat(1, n_rep, 1, 1)
""", INIT_OK, FWD_OK]),
    dict(name="wrong_repeat_token_axis", kind="wrong",
         mistake="repeat_kv calls repeat_interleave on dim=2, duplicating tokens (L axis) instead of heads (dim=1)",
         ideal="repeat_kv: repeat along the heads dim (dim=1) to get H_kv*n_rep heads; dim=2 repeats every token instead",
         expect=r"dim ?= ?1|dim ?= ?2|heads? (dim|axis)|token|axis|shape",
         reject=[r"dtype|device|in-?place|bias"],
         bodies=["""
return x.repeat_interleave(n_rep, dim=2)
""", INIT_OK, FWD_OK]),
    dict(name="wrong_group_size_inverted", kind="wrong",
         mistake="forward computes the group size as n_kv_heads // n_heads (0 whenever n_kv_heads < n_heads) instead of n_heads // n_kv_heads: works only for plain multi-head attention",
         ideal="GroupedQueryAttention.forward: each KV head serves n_heads // n_kv_heads query heads; n_kv_heads // n_heads is 0 for real GQA/MQA and repeat_kv then returns no heads",
         expect=r"n_heads ?// ?n_kv_heads|n_kv_heads ?// ?n_heads|group size|n_rep|rep\b|invert|MQA|multi-query",
         reject=[r"dtype|device|in-?place|bias|order"],
         bodies=[REPEAT_OK, INIT_OK, FWD_HEAD + """
rep = self.n_kv_heads // self.n_heads
k, v = repeat_kv(k, rep), repeat_kv(v, rep)
if mask is None:
    mask = causal_mask(L, x.device)
y, _ = scaled_dot_product_attention(q, k, v, mask)
y = y.transpose(1, 2).contiguous().view(B, L, -1)
return self.o_proj(y)
"""]),
    dict(name="wrong_causal_on_cpu", kind="wrong",
         mistake="forward builds its causal mask with torch.tril(torch.ones(L, L, dtype=torch.bool)) and no device=, so on a GPU the mask is on the CPU and masking the scores fails",
         ideal="GroupedQueryAttention.forward: create the causal mask on x's device (causal_mask(L, x.device)); a CPU mask cannot mask GPU scores",
         expect=r"device|cuda|on the cpu|cpu tensor|x\.device",
         reject=[r"dtype|in-?place|bias|order|repeat"],
         bodies=[REPEAT_OK, INIT_OK, FWD_HEAD + """
rep = self.n_heads // self.n_kv_heads
k, v = repeat_kv(k, rep), repeat_kv(v, rep)
if mask is None:
    mask = torch.tril(torch.ones(L, L, dtype=torch.bool))
y, _ = scaled_dot_product_attention(q, k, v, mask)
y = y.transpose(1, 2).contiguous().view(B, L, -1)
return self.o_proj(y)
"""]),
    dict(name="wrong_full_size_kv_proj", kind="wrong",
         mistake="k_proj and v_proj output n_heads*d_head (one KV head per query head) instead of n_kv_heads*d_head, so the layer is plain multi-head attention and the grader's smaller W_K/W_V do not load",
         ideal="GroupedQueryAttention: k_proj and v_proj must be nn.Linear(d_model, n_kv_heads * d_head): only H_kv key/value heads, shared by the query heads via repeat_kv; that is the whole saving of GQA",
         expect=r"k_proj|v_proj|n_kv_heads ?\* ?d_head|smaller|shape|size mismatch|state.?dict|H_kv",
         reject=[r"dtype|device|in-?place|bias"],
         bodies=[REPEAT_OK, """
self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
self.d_head = d_model // n_heads
self.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
self.k_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
self.v_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
self.o_proj = nn.Linear(n_heads * self.d_head, d_model, bias=False)
""", """
B, L, _ = x.shape
q = self.q_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)
k = self.k_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)
v = self.v_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)
if mask is None:
    mask = causal_mask(L, x.device)
y, _ = scaled_dot_product_attention(q, k, v, mask)
y = y.transpose(1, 2).contiguous().view(B, L, -1)
return self.o_proj(y)
"""]),
    dict(name="wrong_heads_view_no_transpose", kind="wrong",
         mistake="forward views each projection directly as (B, heads, L, d_head) instead of (B, L, heads, d_head) followed by transpose(1, 2), scrambling tokens and heads",
         ideal="GroupedQueryAttention.forward: a projection is (B, L, heads*d_head); view it as (B, L, heads, d_head) and then transpose(1, 2); viewing straight to (B, heads, L, d_head) mixes tokens into heads",
         expect=r"transpose|\(B, ?L, ?heads|\(B, ?L, ?H|view|reshape|tokens?|scrambl|mix",
         reject=[r"dtype|device|in-?place|bias|repeat_interleave"],
         bodies=[REPEAT_OK, INIT_OK, """
B, L, _ = x.shape
q = self.q_proj(x).view(B, self.n_heads, L, self.d_head)
k = self.k_proj(x).view(B, self.n_kv_heads, L, self.d_head)
v = self.v_proj(x).view(B, self.n_kv_heads, L, self.d_head)
rep = self.n_heads // self.n_kv_heads
k, v = repeat_kv(k, rep), repeat_kv(v, rep)
if mask is None:
    mask = causal_mask(L, x.device)
y, _ = scaled_dot_product_attention(q, k, v, mask)
y = y.transpose(1, 2).contiguous().view(B, L, -1)
return self.o_proj(y)
"""]),
    dict(name="wrong_linear_bias_default", kind="wrong",
         mistake="__init__ leaves nn.Linear's default bias=True on the four projections, though the docstring requires bias-free layers: the module gains q_proj.bias etc. and the grader's state dict does not load strictly",
         ideal="GroupedQueryAttention: pass bias=False to all four nn.Linear layers; with the default bias=True the parameters (and state dict keys) differ from the required ones",
         expect=r"bias",
         reject=[r"dtype|device|in-?place|repeat"],
         bodies=[REPEAT_OK, """
self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
self.d_head = d_model // n_heads
self.q_proj = nn.Linear(d_model, n_heads * self.d_head)
self.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head)
self.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head)
self.o_proj = nn.Linear(n_heads * self.d_head, d_model)
""", FWD_OK]),
    dict(name="wrong_inline_softmax_nan", kind="wrong",
         mistake="forward writes its own attention with torch.softmax on -inf-masked scores instead of the given function, so a query whose mask row is all False (an all-padding sequence) gets NaN output and NaN gradients",
         ideal="GroupedQueryAttention.forward: softmax of a row that is all -inf is 0/0 = NaN; zero such rows (as the given scaled_dot_product_attention does) so an all-padding sequence outputs zeros",
         expect=r"nan|fully masked|all.?(false|padding|-inf)|0/0|padding",
         reject=[r"dtype|device|in-?place|bias|repeat_interleave|order"],
         bodies=[REPEAT_OK, INIT_OK, FWD_HEAD + """
rep = self.n_heads // self.n_kv_heads
k, v = repeat_kv(k, rep), repeat_kv(v, rep)
if mask is None:
    mask = causal_mask(L, x.device)
scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
scores = scores.masked_fill(~mask, float("-inf"))
y = torch.softmax(scores, dim=-1) @ v
y = y.transpose(1, 2).contiguous().view(B, L, -1)
return self.o_proj(y)
"""]),
    dict(name="honest_llama_port", kind="honest",
         method="port of Hugging Face Llama's repeat_kv (expand a new axis, then reshape) and its attention layout (view/transpose, repeat, o_proj)",
         bodies=["""
batch, num_kv_heads, slen, head_dim = x.shape
if n_rep == 1:
    return x
expanded = x[:, :, None, :, :].expand(batch, num_kv_heads, n_rep, slen, head_dim)
return expanded.reshape(batch, num_kv_heads * n_rep, slen, head_dim)
""", INIT_OK, """
bsz, q_len, _ = x.shape
hidden_shape = (bsz, q_len, -1, self.d_head)
query_states = self.q_proj(x).view(hidden_shape).transpose(1, 2)
key_states = self.k_proj(x).view(hidden_shape).transpose(1, 2)
value_states = self.v_proj(x).view(hidden_shape).transpose(1, 2)
n_groups = self.n_heads // self.n_kv_heads
key_states = repeat_kv(key_states, n_groups)
value_states = repeat_kv(value_states, n_groups)
attention_mask = causal_mask(q_len, x.device) if mask is None else mask
attn_output, _ = scaled_dot_product_attention(query_states, key_states, value_states, attention_mask)
attn_output = attn_output.transpose(1, 2).reshape(bsz, q_len, -1).contiguous()
return self.o_proj(attn_output)
"""]),
    dict(name="honest_grouped_no_copy", kind="honest",
         method="repeat_kv by index_select with head index j // n_rep; forward never copies K/V: queries are viewed as (B, H_kv, group, L, d_head) and broadcast against one KV head per group, with its own masked softmax that zeroes fully masked rows",
         bodies=["""
head_of = torch.arange(x.shape[1] * n_rep, device=x.device) // n_rep
return x.index_select(1, head_of)
""", INIT_OK, """
B, L, _ = x.shape
G, R, dh = self.n_kv_heads, self.n_heads // self.n_kv_heads, self.d_head
q = self.q_proj(x).view(B, L, G, R, dh).permute(0, 2, 3, 1, 4)  # (B, G, R, L, dh): head g*R + r
k = self.k_proj(x).view(B, L, G, 1, dh).permute(0, 2, 3, 1, 4)  # (B, G, 1, L, dh)
v = self.v_proj(x).view(B, L, G, 1, dh).permute(0, 2, 3, 1, 4)
if mask is None:
    mask = causal_mask(L, x.device)
allowed = mask.expand(B, self.n_heads, L, L).reshape(B, G, R, L, L)
scores = (q @ k.transpose(-2, -1)) / math.sqrt(dh)  # (B, G, R, L, L)
scores = scores.masked_fill(~allowed, float("-inf"))
weights = torch.softmax(scores, dim=-1).masked_fill(~allowed, 0.0)
y = weights @ v  # (B, G, R, L, dh)
return self.o_proj(y.permute(0, 3, 1, 2, 4).reshape(B, L, self.n_heads * dh))
"""]),
]
