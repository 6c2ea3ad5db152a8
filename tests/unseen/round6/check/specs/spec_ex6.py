EX = 6
STUB = "exercise6_multihead.py"
CORRECT = {
    "split_heads": """
B, L, D = x.shape
return x.view(B, L, n_heads, D // n_heads).transpose(1, 2)  # (B, H, L, d_head)
""",
    "merge_heads": """
B, H, L, d_head = x.shape
return x.transpose(1, 2).contiguous().view(B, L, H * d_head)  # (B, L, D)
""",
    "MultiHeadAttention.__init__": """
self.n_heads = n_heads
self.d_head = d_model // n_heads
self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)  # W_Q, W_K, W_V fused
self.out = nn.Linear(d_model, d_model, bias=bias)  # W_O
""",
    "MultiHeadAttention.forward": """
B, L, D = x.shape
q, k, v = self.qkv(x).split(D, dim=-1)
q, k, v = (split_heads(t, self.n_heads) for t in (q, k, v))
if mask is None:
    mask = causal_mask(L, x.device)
y, _ = scaled_dot_product_attention(q, k, v, mask)
return self.out(merge_heads(y))
""",
}
VARIANTS = [
    dict(slug="split_reshape_no_transpose", kind="wrong",
         mistake="split_heads reshapes (B, L, D) straight to (B, H, L, d_head) with no transpose, so head h holds a block of L/H tokens' numbers instead of columns h*d_head.. of every token",
         ideal="split_heads reshapes directly to (B, H, L, d_head) instead of viewing as (B, L, H, d_head) and transposing, so the shape is right but each head gets a slab of consecutive tokens' numbers rather than its own d_head columns of every token.",
         expect=[r"transpos|directly|straight", r"token|column|position"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"wrong device|device (mismatch|is wrong)|made on the cpu|cuda|gpu", r"merge_heads (is|was) wrong"],
         bodies={"split_heads": """
B, L, D = x.shape
return x.reshape(B, n_heads, L, D // n_heads)
"""}),
    dict(slug="split_strided_heads", kind="wrong",
         mistake="split_heads views the width as (d_head, H) and permutes, so head h gets every H-th column (strided) instead of the contiguous columns h*d_head .. (h+1)*d_head - 1",
         ideal="split_heads views D as (d_head, H) rather than (H, d_head), so each head takes every H-th column (a strided slice) instead of the contiguous block of columns h*d_head to (h+1)*d_head - 1.",
         expect=[r"strid|every h|interleav|\(d_head, ?h\)", r"column|contiguous|block|chunk"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"wrong device|device (mismatch|is wrong)|made on the cpu|cuda|gpu"],
         bodies={"split_heads": """
B, L, D = x.shape
return x.view(B, L, D // n_heads, n_heads).permute(0, 3, 1, 2)
"""}),
    dict(slug="merge_reshape_no_transpose", kind="wrong",
         mistake="merge_heads reshapes (B, H, L, d_head) straight to (B, L, H*d_head) without transposing back, mixing tokens of different positions into one row",
         ideal="merge_heads reshapes (B, H, L, d_head) directly to (B, L, H*d_head) without the transpose(1, 2), so rows mix numbers of different tokens instead of concatenating each token's heads.",
         expect=[r"transpos|directly|straight", r"token|position|row|mix"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"wrong device|device (mismatch|is wrong)|made on the cpu|cuda|gpu", r"split_heads (is|was) wrong"],
         bodies={"merge_heads": """
B, H, L, d_head = x.shape
return x.reshape(B, L, H * d_head)
"""}),
    dict(slug="merge_interleaved", kind="wrong",
         mistake="merge_heads permutes to (B, L, d_head, H) before flattening, so the output interleaves the heads column by column instead of head 0's d_head numbers, then head 1's",
         ideal="merge_heads uses permute(0, 2, 3, 1), giving (B, L, d_head, H), so flattening interleaves the heads' numbers instead of putting head 0's d_head numbers first, then head 1's, and so on.",
         expect=[r"permut|interleav|\(b, ?l, ?d_head, ?h\)", r"head"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"wrong device|device (mismatch|is wrong)|made on the cpu|cuda|gpu"],
         bodies={"merge_heads": """
B, H, L, d_head = x.shape
return x.permute(0, 2, 3, 1).reshape(B, L, H * d_head)
"""}),
    dict(slug="mask_on_cpu", kind="wrong",
         mistake="forward builds the default causal mask with causal_mask(L), on the CPU, ignoring x.device",
         ideal="forward calls causal_mask(L) without x.device, so the default causal mask is on the CPU and the module fails for inputs and parameters on a GPU.",
         expect=[r"device|cuda|gpu|cpu"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"transpos(e|ed|ing) (the )?(weight|w_|k\b|key)|missing (a )?transpose|needs? a transpose"],
         bodies={"MultiHeadAttention.forward": """
B, L, D = x.shape
q, k, v = self.qkv(x).split(D, dim=-1)
q, k, v = (split_heads(t, self.n_heads) for t in (q, k, v))
if mask is None:
    mask = causal_mask(L)
y, _ = scaled_dot_product_attention(q, k, v, mask)
return self.out(merge_heads(y))
"""}),
    dict(slug="mask_and_causal", kind="wrong",
         mistake="forward combines a given mask with the causal mask (mask & causal) instead of letting it replace the causal one",
         ideal="forward ANDs a given mask with the causal mask, but the docstring says a given mask replaces the causal one, so with e.g. a full or padding mask the queries still cannot see later keys.",
         expect=[r"combin|&|and(ed|s)? .*causal|both|replace|intersect", r"mask"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"wrong device|device (mismatch|is wrong)|made on the cpu|cuda|gpu"],
         bodies={"MultiHeadAttention.forward": """
B, L, D = x.shape
q, k, v = self.qkv(x).split(D, dim=-1)
q, k, v = (split_heads(t, self.n_heads) for t in (q, k, v))
causal = causal_mask(L, x.device)
mask = causal if mask is None else mask & causal  # never let a token see the future
y, _ = scaled_dot_product_attention(q, k, v, mask)
return self.out(merge_heads(y))
"""}),
    dict(slug="qkv_per_head_layout", kind="wrong",
         mistake="forward unpacks the fused qkv output as (B, L, H, 3, d_head) (per-head interleaved, Megatron-style) instead of three side-by-side (B, L, D) blocks",
         ideal="forward views the fused qkv output as (B, L, H, 3, d_head), which assumes q, k, v interleaved per head, but the weights are W_Q, W_K, W_V side by side, so it should split the last dim into three D-wide parts first.",
         expect=[r"layout|interleav|\(B, ?L, ?H, ?3|per[- ]head|side by side|split", r"qkv|q, ?k, ?v|fused|w_q"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"wrong device|device (mismatch|is wrong)|made on the cpu|cuda|gpu"],
         bodies={"MultiHeadAttention.forward": """
B, L, D = x.shape
qkv = self.qkv(x).view(B, L, self.n_heads, 3, self.d_head)
q, k, v = (t.transpose(1, 2) for t in qkv.unbind(dim=3))  # each (B, H, L, d_head)
if mask is None:
    mask = causal_mask(L, x.device)
y, _ = scaled_dot_product_attention(q, k, v, mask)
return self.out(merge_heads(y))
"""}),
    dict(slug="out_bias_always", kind="wrong",
         mistake="__init__ makes self.out = nn.Linear(d_model, d_model) with the default bias, ignoring bias=False",
         ideal="__init__ creates the output projection without passing bias=bias, so with bias=False the module still has out.bias (the state dict has an extra key and the output is shifted).",
         expect=[r"bias"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"wrong device|device (mismatch|is wrong)|made on the cpu|cuda|gpu", r"transpos(e|ed|ing) (the )?(weight|w_|k\b|key)|missing (a )?transpose|needs? a transpose"],
         bodies={"MultiHeadAttention.__init__": """
self.n_heads = n_heads
self.d_head = d_model // n_heads
self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
self.out = nn.Linear(d_model, d_model)
"""}),
    dict(slug="cached_first_mask", kind="wrong",
         mistake="forward caches the causal mask built on its first call (self._mask) and reuses it for every later call, whatever the new length L",
         ideal="forward stores the causal mask of the first call in self._mask and reuses it, so a later call with a different sequence length gets a mask of the wrong size (an error or wrong masking): the mask must be built for the current L.",
         expect=[r"cach|reus|stor|first call|self\._mask|state", r"length|\bL\b|size|later call|second call|differen"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"wrong device|device (mismatch|is wrong)|made on the cpu|cuda|gpu"],
         bodies={"MultiHeadAttention.__init__": """
self.n_heads = n_heads
self.d_head = d_model // n_heads
self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
self.out = nn.Linear(d_model, d_model, bias=bias)
self._mask = None  # the causal mask, built once
""", "MultiHeadAttention.forward": """
B, L, D = x.shape
q, k, v = self.qkv(x).split(D, dim=-1)
q, k, v = (split_heads(t, self.n_heads) for t in (q, k, v))
if mask is None:
    if self._mask is None:
        self._mask = causal_mask(L, x.device)
    mask = self._mask
y, _ = scaled_dot_product_attention(q, k, v, mask)
return self.out(merge_heads(y))
"""}),
    dict(slug="unflatten_functional", kind="honest",
         method="unflatten/permute and flatten for the head reshapes; forward runs F.linear with the fused weight and chunk(3), like nn.MultiheadAttention's in_proj",
         ideal="Correct: unflatten(-1, (H, d_head)).permute(0, 2, 1, 3) is the chapter's view + transpose, permute + flatten is the concatenation, and F.linear with qkv's own weight and bias equals self.qkv(x).",
         bodies={"split_heads": """
d_head = x.shape[-1] // n_heads
return x.unflatten(-1, (n_heads, d_head)).permute(0, 2, 1, 3)
""", "merge_heads": """
return x.permute(0, 2, 1, 3).flatten(start_dim=2)
""", "MultiHeadAttention.forward": """
import torch.nn.functional as F
L = x.shape[1]
q, k, v = F.linear(x, self.qkv.weight, self.qkv.bias).chunk(3, dim=-1)
q, k, v = split_heads(q, self.n_heads), split_heads(k, self.n_heads), split_heads(v, self.n_heads)
attn_mask = causal_mask(L, device=x.device) if mask is None else mask
y, _ = scaled_dot_product_attention(q, k, v, attn_mask)
return F.linear(merge_heads(y), self.out.weight, self.out.bias)
"""}),
    dict(slug="movedim_cat_head_loop", kind="honest",
         method="split with unflatten + movedim (a view), merge by concatenating the heads, and forward loops over heads calling attention once per head",
         ideal="Correct: movedim of the (B, L, H, d_head) view is the chapter's transpose and concatenating x.unbind(1) is the merge, and per-head attention with the mask broadcast to (B, H, L, L) gives the same heads.",
         bodies={"split_heads": """
# (B, L, D) -> (B, L, H, d_head) -> heads moved in front of the tokens; both are views of x
return torch.movedim(x.unflatten(2, (n_heads, -1)), 2, 1)
""", "merge_heads": """
return torch.cat(x.unbind(dim=1), dim=-1)
""", "MultiHeadAttention.forward": """
B, L, D = x.shape
H = self.n_heads
q, k, v = (split_heads(t, H) for t in self.qkv(x).split(D, dim=-1))
full = causal_mask(L, x.device) if mask is None else mask
full = torch.broadcast_to(full, (B, H, L, L))
heads = []
for h in range(H):
    y_h, _ = scaled_dot_product_attention(q[:, h], k[:, h], v[:, h], full[:, h])
    heads.append(y_h)  # (B, L, d_head)
return self.out(merge_heads(torch.stack(heads, dim=1)))
"""}),
]
