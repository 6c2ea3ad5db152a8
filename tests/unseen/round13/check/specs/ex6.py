STUB = "exercise6_multihead.py"
INIT = "self.n_heads = n_heads\nself.d_head = d_model // n_heads\nself.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)\nself.out = nn.Linear(d_model, d_model, bias=bias)"
FWD = "B, L, D = x.shape\nq, k, v = self.qkv(x).split(D, dim=-1)\nq, k, v = (split_heads(t, self.n_heads) for t in (q, k, v))\nif mask is None:\n    mask = causal_mask(L, x.device)\ny, _ = scaled_dot_product_attention(q, k, v, mask)\nreturn self.out(merge_heads(y))"
DEFAULT = [
    "B, L, D = x.shape\nreturn x.view(B, L, n_heads, D // n_heads).transpose(1, 2)",
    "B, H, L, d = x.shape\nreturn x.transpose(1, 2).contiguous().view(B, L, H * d)",
    INIT, FWD,
]
V = []
def add(kind, name, what, ideal, expect, reject, bodies, fails=(), helpers=None):
    V.append(dict(kind=kind, name=name, what=what, ideal=ideal, expect=expect, reject=reject,
                  bodies=bodies, fails=list(fails), helpers=helpers))
OKX, BADX = r"(?i)(pass|correct|full marks|no (mistake|problem))", r"(?i)(wrong|mistake|incorrect|fail)"

add("wrong", "split_einops_d_h_order",
    "split_heads ports the einops pattern 'b l (d h) -> b h l d', viewing D as (d_head, H), so head h gets every H-th column instead of the contiguous block h*d_head .. (h+1)*d_head - 1.",
    "Viewing D as (d_head, H) interleaves the heads (head h takes columns h, h+H, ...); view it as (H, d_head) so each head is a contiguous block of d_head columns, then transpose(1, 2).",
    r"(?i)(\(H, ?d_head\)|\(d_head, ?H\)|interleav|contiguous block|order|every H|einops|columns)",
    r"(?i)(dtype|device|in[- ]place|contiguous\(\)|NaN|bias)",
    ["B, L, D = x.shape\nreturn x.view(B, L, D // n_heads, n_heads).permute(0, 3, 1, 2)", None, None, None],
    fails=["split_values"])
add("wrong", "merge_view_noncontiguous",
    "merge_heads calls .view(B, L, H*d) right after transpose(1, 2) without .contiguous(), which raises for the (non-contiguous) transposed tensor.",
    "After transpose(1, 2) the tensor is not contiguous, so .view fails; call .contiguous() before .view (or use .reshape).",
    r"(?i)(contiguous|\.view|reshape|stride|memory)",
    r"(?i)(dtype|device|in[- ]place|NaN|bias|interleav)",
    [None, "B, H, L, d = x.shape\nreturn x.transpose(1, 2).view(B, L, H * d)", None, None],
    fails=["merge_values"])
add("wrong", "nanogpt_mask_buffer",
    "__init__ ports nanoGPT's register_buffer('bias', torch.tril(...)) causal-mask buffer, so the state dict holds an extra key besides qkv and out (and sequences longer than its 256 slots break).",
    "The registered causal-mask buffer puts an extra entry in the state dict (the grader's state dict then fails to load); build the mask in forward with causal_mask(L, x.device), or register it with persistent=False.",
    r"(?i)(buffer|state[_ ]dict|register_buffer|extra key|persistent)",
    r"(?i)(dtype|in[- ]place|NaN|interleav|view)",
    [None, None, INIT + "\nself.register_buffer('bias', torch.tril(torch.ones(256, 256, dtype=torch.bool)).view(1, 1, 256, 256))",
     FWD.replace("mask = causal_mask(L, x.device)", "mask = self.bias[:, :, :L, :L]")],
    fails=["state_dict"])
add("wrong", "mask_combined_with_causal",
    "forward ANDs a given mask with the causal mask, but the docstring says a given mask replaces the causal one.",
    "A given mask replaces the causal mask, it is not combined with it; use causal_mask only when mask is None.",
    r"(?i)(replac|combin|causal|&|and(ed)? with|given mask)",
    r"(?i)(dtype|device|in[- ]place|NaN|interleav|view)",
    [None, None, None, FWD.replace("if mask is None:\n    mask = causal_mask(L, x.device)", "causal = causal_mask(L, x.device)\nmask = causal if mask is None else (mask & causal)")],
    fails=["mha_values"])
add("wrong", "bias_argument_ignored",
    "__init__ always builds nn.Linear(..., bias=True) and ignores the bias argument, so bias=False modules still have qkv.bias and out.bias.",
    "You ignore the bias argument: pass bias=bias to both nn.Linear layers so bias=False gives bias-free layers.",
    r"(?i)(bias)",
    r"(?i)(dtype|device|in[- ]place|NaN|interleav|view)",
    [None, None, INIT.replace("bias=bias", "bias=True"), None],
    fails=["state_dict"])
add("wrong", "megatron_qkv_layout",
    "forward splits the fused qkv output Megatron-style, as (B, L, H, 3*d_head) chunked per head, but W_Q, W_K, W_V sit side by side as three d_model-wide blocks.",
    "The qkv layer's output is [Q | K | V], three blocks of d_model columns; split it with .split(D, dim=-1) before cutting each into heads, not per head into (q, k, v) thirds.",
    r"(?i)(split\(D|side by side|three blocks|\[Q ?\| ?K ?\| ?V\]|per head|layout|megatron|interleav)",
    r"(?i)(dtype|device|in[- ]place|NaN|contiguous)",
    [None, None, None, "B, L, D = x.shape\nqkv = self.qkv(x).view(B, L, self.n_heads, 3 * self.d_head).transpose(1, 2)\nq, k, v = qkv.chunk(3, dim=-1)\nif mask is None:\n    mask = causal_mask(L, x.device)\ny, _ = scaled_dot_product_attention(q, k, v, mask)\nreturn self.out(merge_heads(y))"],
    fails=["mha_values"])
add("wrong", "causal_mask_on_cpu",
    "forward builds the causal mask with causal_mask(L) and no device, so on a GPU the CPU mask meets GPU scores and masked_fill fails.",
    "causal_mask(L) is made on the CPU; pass the input's device, causal_mask(L, x.device).",
    r"(?i)(device|cpu|cuda|gpu)",
    r"(?i)(dtype|in[- ]place|NaN|interleav|bias|view)",
    [None, None, None, FWD.replace("causal_mask(L, x.device)", "causal_mask(L)")],
    fails=["mha_device"])
add("wrong", "chapter_attention_nan",
    "forward pastes the chapter's attention (torch.softmax without zeroing the fully masked rows) instead of the given one, so an all-padding sequence gives NaN outputs and gradients.",
    "The chapter's attention turns a query whose mask row is all False into NaN; use the given scaled_dot_product_attention (or zero those weights after the softmax) so it reads nothing.",
    r"(?i)(NaN|fully masked|all[- ]False|all padding|masked row|zero)",
    r"(?i)(dtype|device|in[- ]place|interleav|bias|view)",
    [None, None, None, "B, L, D = x.shape\nq, k, v = self.qkv(x).split(D, dim=-1)\nq, k, v = (split_heads(t, self.n_heads) for t in (q, k, v))\nif mask is None:\n    mask = causal_mask(L, x.device)\nscores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)\nscores = scores.masked_fill(~mask, float('-inf'))\ny = torch.softmax(scores, dim=-1) @ v\nreturn self.out(merge_heads(y))"],
    fails=["mha_padding"])
add("honest", "unflatten_movedim_functional",
    "split_heads with unflatten + movedim, merge_heads with movedim + flatten; forward slices the fused weight into W_Q, W_K, W_V and applies F.linear to each, then the given attention.",
    "", OKX, BADX,
    ["return x.unflatten(-1, (n_heads, x.shape[-1] // n_heads)).movedim(2, 1)",
     "return x.movedim(1, 2).flatten(start_dim=2)",
     "self.n_heads = n_heads\nself.d_head = d_model // n_heads\nself.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)\nself.out = nn.Linear(d_model, d_model, bias=bias)",
     "D = x.shape[-1]\nws = self.qkv.weight.split(D, dim=0)\nbs = self.qkv.bias.split(D) if self.qkv.bias is not None else (None, None, None)\nq, k, v = (split_heads(F.linear(x, w, b), self.n_heads) for w, b in zip(ws, bs))\nif mask is None:\n    mask = causal_mask(x.shape[1], device=x.device)\ny, _ = scaled_dot_product_attention(q, k, v, mask=mask)\nreturn self.out(merge_heads(y))"],
    helpers="import torch.nn.functional as F")
add("honest", "reshape_permute_einsum",
    "split_heads with reshape + permute, merge_heads with permute + reshape; forward computes all heads with einsum and torch.softmax, zeroing fully masked rows with torch.where.",
    "", OKX, BADX,
    ["B, L, D = x.shape\nreturn x.reshape(B, L, n_heads, D // n_heads).permute(0, 2, 1, 3)",
     "B, H, L, d = x.shape\nreturn x.permute(0, 2, 1, 3).reshape(B, L, H * d)",
     "self.n_heads = n_heads\nself.d_head = d_model // n_heads\nself.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)\nself.out = nn.Linear(d_model, d_model, bias=bias)",
     "B, L, D = x.shape\nq, k, v = (split_heads(t, self.n_heads) for t in self.qkv(x).chunk(3, dim=-1))\nallowed = causal_mask(L, x.device) if mask is None else mask\ns = torch.einsum('bhid,bhjd->bhij', q, k) / math.sqrt(self.d_head)\ns = s.masked_fill(~allowed, float('-inf'))\nw = torch.softmax(s, dim=-1)\nw = torch.where(allowed, w, torch.zeros((), dtype=w.dtype, device=w.device))\ny = torch.einsum('bhij,bhjd->bhid', w, v)\nreturn self.out(merge_heads(y))"])
VARIANTS = V
