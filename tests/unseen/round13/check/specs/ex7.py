STUB = "exercise7_gqa.py"
INIT = "self.n_heads, self.n_kv_heads = n_heads, n_kv_heads\nself.d_head = d_model // n_heads\nself.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)\nself.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)\nself.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)\nself.o_proj = nn.Linear(n_heads * self.d_head, d_model, bias=False)"
FWD = "B, L, _ = x.shape\nq = self.q_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)\nk = self.k_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)\nv = self.v_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)\nrep = self.n_heads // self.n_kv_heads\nk, v = repeat_kv(k, rep), repeat_kv(v, rep)\nif mask is None:\n    mask = causal_mask(L, x.device)\ny, _ = scaled_dot_product_attention(q, k, v, mask)\ny = y.transpose(1, 2).contiguous().view(B, L, -1)\nreturn self.o_proj(y)"
DEFAULT = ["return x.repeat_interleave(n_rep, dim=1)", INIT, FWD]
V = []
def add(kind, name, what, ideal, expect, reject, bodies, fails=(), helpers=None):
    V.append(dict(kind=kind, name=name, what=what, ideal=ideal, expect=expect, reject=reject,
                  bodies=bodies, fails=list(fails), helpers=helpers))
OKX, BADX = r"(?i)(pass|correct|full marks|no (mistake|problem))", r"(?i)(wrong|mistake|incorrect|fail)"

add("wrong", "expand_new_axis_first",
    "repeat_kv ports the expand-and-reshape trick but inserts the new axis BEFORE the KV-head axis (x[:, None].expand(B, n_rep, H_kv, L, d)), which tiles the heads [0, 1, 0, 1, ...] instead of [0, 0, 1, 1, ...].",
    "With the repeat axis in front of H_kv the reshape tiles the heads (0, 1, 0, 1, ...); put it after the KV-head axis, x[:, :, None].expand(B, H_kv, n_rep, L, d), so output head j is input head j // n_rep.",
    r"(?i)(order|tile|\[0, ?0|\[0, ?1, ?0|j ?// ?n_rep|interleave|after the (kv[- ])?head|axis)",
    r"(?i)(dtype|device|in[- ]place|NaN|float32|state[_ ]dict)",
    ["B, H, L, d = x.shape\nreturn x[:, None].expand(B, n_rep, H, L, d).reshape(B, H * n_rep, L, d)", None, None],
    fails=["repeat_values"])
add("wrong", "float32_softmax_upcast",
    "forward computes its own attention with the softmax in float32 (scores.float()), a habit ported from library code, so float64 modules lose precision, against the rule that float64 is computed in float64 all the way.",
    "Casting the scores to float32 for the softmax throws away float64 precision (the rule says float64 all the way); take the softmax in the scores' own dtype.",
    r"(?i)(float32|\.float\(\)|float64|precision|dtype)",
    r"(?i)(device|in[- ]place|NaN|order|state[_ ]dict|causal)",
    [None, None, FWD.replace("y, _ = scaled_dot_product_attention(q, k, v, mask)", "s = (q @ k.transpose(-2, -1) / math.sqrt(self.d_head)).masked_fill(~mask, float('-inf'))\nw = torch.softmax(s.float(), dim=-1).to(q.dtype).masked_fill(~mask, 0.0)\ny = w @ v")],
    fails=["gqa_values"])
add("wrong", "kv_proj_full_width",
    "__init__ makes k_proj and v_proj with n_heads * d_head outputs (like q_proj) instead of n_kv_heads * d_head, so the weights have the wrong shape and the KV cache saving is gone.",
    "k_proj and v_proj must have n_kv_heads * d_head outputs (that is the point of GQA); with n_heads * d_head they do not load the grader's state dict.",
    r"(?i)(n_kv_heads|k_proj|v_proj|shape|state[_ ]dict|smaller|H_kv)",
    r"(?i)(dtype|device|in[- ]place|NaN|float32|order of)",
    [None, INIT.replace("self.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head", "self.k_proj = nn.Linear(d_model, n_heads * self.d_head").replace("self.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head", "self.v_proj = nn.Linear(d_model, n_heads * self.d_head"),
     FWD.replace("rep = self.n_heads // self.n_kv_heads", "rep = self.n_heads // self.n_kv_heads\nk, v = k[:, ::rep], v[:, ::rep]")],
    fails=["state_dict"])
add("wrong", "no_causal_default",
    "forward passes mask straight through, so with mask=None it runs unmasked attention instead of the causal attention the docstring asks for.",
    "mask=None means causal attention (token i sees 0..i); build causal_mask(L, x.device) when no mask is given.",
    r"(?i)(causal|mask is None|mask=None|future|default)",
    r"(?i)(dtype|device|in[- ]place|float32|order|state[_ ]dict)",
    [None, None, FWD.replace("if mask is None:\n    mask = causal_mask(L, x.device)\n", "")],
    fails=["gqa_values"])
add("wrong", "view_heads_without_transpose",
    "forward reshapes each projection straight to (B, heads, L, d_head) with view, skipping the (B, L, heads, d_head) view and transpose(1, 2), which scrambles tokens and heads.",
    "Viewing (B, L, H*d_head) directly as (B, H, L, d_head) mixes tokens and heads; view as (B, L, H, d_head) and then transpose(1, 2).",
    r"(?i)(transpose|view|\(B, ?L, ?H|reshape|scrambl|order)",
    r"(?i)(dtype|device|in[- ]place|NaN|float32|state[_ ]dict)",
    [None, None, FWD.replace("view(B, L, self.n_heads, self.d_head).transpose(1, 2)", "view(B, self.n_heads, L, self.d_head)").replace("view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)", "view(B, self.n_kv_heads, L, self.d_head)")],
    fails=["gqa_values"])
add("wrong", "repeat_by_kv_heads",
    "forward calls repeat_kv(k, self.n_kv_heads) instead of repeat_kv(k, n_heads // n_kv_heads); it only works when n_heads == n_kv_heads² (e.g. 4 and 2).",
    "The repeat factor is the group size n_heads // n_kv_heads, not n_kv_heads (they agree only when n_heads = n_kv_heads²); use rep = self.n_heads // self.n_kv_heads.",
    r"(?i)(n_heads ?// ?n_kv_heads|group size|repeat factor|n_rep|n_kv_heads)",
    r"(?i)(dtype|device|in[- ]place|NaN|float32|state[_ ]dict)",
    [None, None, FWD.replace("rep = self.n_heads // self.n_kv_heads", "rep = self.n_kv_heads")],
    fails=["gqa_values"])
add("wrong", "additive_mask_nan_to_num",
    "forward ports the additive-mask style (scores + a 0 / -inf bias) and cleans the softmax of a fully masked row with torch.nan_to_num: the output is right but the NaN gradient of that row flows back through the addition into q and k.",
    "With an additive -inf mask the gradient of an all-masked row still reaches the scores, and softmax's backward there is NaN; mask with scores.masked_fill(~mask, -inf) and zero the weights with masked_fill(~mask, 0) (as the given attention does), so no gradient flows through that row.",
    r"(?i)(gradient|backward|NaN)",
    r"(?i)(dtype|device|in[- ]place|float32|order|state[_ ]dict)",
    [None, None, FWD.replace("y, _ = scaled_dot_product_attention(q, k, v, mask)", "bias = torch.zeros(mask.shape, dtype=q.dtype, device=q.device).masked_fill(~mask, float('-inf'))\ns = q @ k.transpose(-2, -1) / math.sqrt(self.d_head) + bias\ny = torch.nan_to_num(torch.softmax(s, dim=-1)) @ v")],
    fails=["gqa_padding"])
add("wrong", "llama_layout_repeat_axis",
    "repeat_kv ports Meta's Llama repeat_kv, written for (B, L, H_kv, d) tensors, onto this kit's (B, H_kv, L, d) layout, so it repeats along the sequence axis (dim 2) instead of the head axis.",
    "Meta's repeat_kv expects (B, L, H_kv, d); here the heads are dim 1, so your expand/reshape repeats tokens instead of heads; repeat along dim=1 (x.repeat_interleave(n_rep, dim=1)).",
    r"(?i)(dim ?=? ?1|head (axis|dim)|sequence (axis|dim)|dim 2|layout|wrong (axis|dim)|tokens)",
    r"(?i)(dtype|device|in[- ]place|NaN|float32|state[_ ]dict)",
    ["B, H, L, d = x.shape\nif n_rep == 1:\n    return x\nreturn x[:, :, :, None, :].expand(B, H, L, n_rep, d).reshape(B, H, L * n_rep, d).view(B, H * n_rep, L, d)", None, None],
    fails=["repeat_values"])
add("honest", "index_select_grouped_queries",
    "repeat_kv gathers heads with index_select on arange // n_rep; forward never repeats K/V but groups the query heads as (B, H_kv, rep, L, d) and broadcasts each KV head over its group.",
    "", OKX, BADX,
    ["idx = torch.arange(x.shape[1] * n_rep, device=x.device) // n_rep\nreturn x.index_select(1, idx)",
     INIT,
     "B, L, _ = x.shape\nH, Hkv, dh = self.n_heads, self.n_kv_heads, self.d_head\nrep = H // Hkv\nq = self.q_proj(x).view(B, L, Hkv, rep, dh).permute(0, 2, 3, 1, 4)\nk = self.k_proj(x).view(B, L, Hkv, 1, dh).permute(0, 2, 3, 1, 4)\nv = self.v_proj(x).view(B, L, Hkv, 1, dh).permute(0, 2, 3, 1, 4)\nif mask is None:\n    mask = causal_mask(L, x.device)\nm = torch.broadcast_to(mask, (B, H, L, L)).reshape(B, Hkv, rep, L, L)\ny, _ = scaled_dot_product_attention(q, k, v, m)\nreturn self.o_proj(y.reshape(B, H, L, dh).permute(0, 2, 1, 3).reshape(B, L, H * dh))"])
add("honest", "expand_reshape_einsum",
    "repeat_kv with the expand-then-reshape idiom (new axis after the KV-head axis); forward builds q, k, v with unflatten/movedim and attention with einsum, torch.softmax and masked_fill of dead rows.",
    "", OKX, BADX,
    ["B, H, L, d = x.shape\nreturn x[:, :, None, :, :].expand(B, H, n_rep, L, d).reshape(B, H * n_rep, L, d)",
     INIT,
     "L = x.shape[-2]\nq = self.q_proj(x).unflatten(-1, (self.n_heads, self.d_head)).movedim(-2, 1)\nk = self.k_proj(x).unflatten(-1, (self.n_kv_heads, self.d_head)).movedim(-2, 1)\nv = self.v_proj(x).unflatten(-1, (self.n_kv_heads, self.d_head)).movedim(-2, 1)\nr = self.n_heads // self.n_kv_heads\nk, v = repeat_kv(k, r), repeat_kv(v, r)\nallowed = causal_mask(L, x.device) if mask is None else mask\ns = torch.einsum('bhqd,bhkd->bhqk', q, k) * (1.0 / math.sqrt(self.d_head))\nw = torch.softmax(s.masked_fill(~allowed, float('-inf')), dim=-1).masked_fill(~allowed, 0.0)\ny = torch.einsum('bhqk,bhkd->bhqd', w, v)\nreturn self.o_proj(y.movedim(1, -2).flatten(-2))"])
VARIANTS = V
