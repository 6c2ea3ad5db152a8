OK_SPLIT = """
B, L, D = x.shape
return x.view(B, L, n_heads, D // n_heads).transpose(1, 2)
"""
OK_MERGE = """
B, H, L, d = x.shape
return x.transpose(1, 2).contiguous().view(B, L, H * d)
"""
OK_INIT = """
assert d_model % n_heads == 0, "d_model must divide evenly into heads"
self.n_heads = n_heads
self.d_head = d_model // n_heads
self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
self.out = nn.Linear(d_model, d_model, bias=bias)
"""
OK_FORWARD = """
B, L, D = x.shape
q, k, v = self.qkv(x).split(D, dim=-1)
q, k, v = split_heads(q, self.n_heads), split_heads(k, self.n_heads), split_heads(v, self.n_heads)
if mask is None:
    mask = causal_mask(L, x.device)
y, _ = scaled_dot_product_attention(q, k, v, mask)
return self.out(merge_heads(y))
"""


def ok(**over):
    b = {"split_heads": OK_SPLIT, "merge_heads": OK_MERGE,
         "MultiHeadAttention.__init__": OK_INIT, "MultiHeadAttention.forward": OK_FORWARD}
    b.update(over)
    return b


VARIANTS = [
    dict(
        name="split_reshape_no_transpose", kind="wrong",
        mistake="split_heads reshapes (B, L, D) straight to (B, H, L, d_head), which has the right shape but mixes tokens and heads: 'head' h gets chunks of several tokens",
        ideal="Reshaping the memory straight to (B, H, L, d_head) cuts along the wrong axis. View as (B, L, H, d_head) first, so each token's D-vector is cut into\nH chunks, then transpose(1, 2) to make the heads a batch dim.",
        expect=[r"transpose|\(B, ?L, ?H, ?d_head\)|order|mix|scrambl|interleav|tokens? and heads|wrong (axis|dim)|view"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies=ok(split_heads="""
            B, L, D = x.shape
            return x.reshape(B, n_heads, L, D // n_heads)
            """),
    ),
    dict(
        name="merge_reshape_no_transpose", kind="wrong",
        mistake="merge_heads reshapes (B, H, L, d_head) straight to (B, L, H*d_head) without transposing the heads back next to their tokens",
        ideal="reshape keeps memory order, which is head-major: it concatenates tokens, not heads. transpose(1, 2) first, to (B, L, H, d_head),\nthen .contiguous().view(B, L, H*d_head) (or reshape).",
        expect=[r"transpose|\(B, ?L, ?H, ?d_head\)|order|mix|scrambl|tokens? and heads|wrong (axis|dim)|head-major"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies=ok(merge_heads="""
            B, H, L, d = x.shape
            return x.reshape(B, L, H * d)
            """),
    ),
    dict(
        name="merge_view_noncontiguous", kind="wrong",
        mistake="merge_heads calls .view(B, L, H*d_head) right after transpose(1, 2) without .contiguous(), which raises for the (non-contiguous) transposed tensor",
        ideal="A transpose is only a view with permuted strides; view needs contiguous memory. Add .contiguous() before .view (or use reshape),\nexactly as the chapter's walkthrough does.",
        expect=[r"contiguous|reshape|stride|memory|view"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies=ok(merge_heads="""
            B, H, L, d = x.shape
            return x.transpose(1, 2).view(B, L, H * d)
            """),
    ),
    dict(
        name="qkv_per_head_layout", kind="wrong",
        mistake="forward reads the fused qkv output as per-head [q|k|v] triples, view(B, L, H, 3, d_head) (Megatron/GPT-NeoX layout), instead of [Q | K | V] blocks of D columns",
        ideal="The kit's qkv is W_Q, W_K, W_V side by side: columns 0..D-1 are all of Q. A per-head interleaved layout reads a loaded state dict wrongly.\nSplit with self.qkv(x).split(D, dim=-1), then split_heads each.",
        expect=[r"split\(D|layout|interleav|per[- ]head|side by side|\[Q ?\| ?K|column|order|fused|qkv"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies=ok(**{"MultiHeadAttention.forward": """
            B, L, D = x.shape
            qkv = self.qkv(x).view(B, L, self.n_heads, 3, self.d_head)
            q, k, v = (t.transpose(1, 2) for t in qkv.unbind(dim=3))
            if mask is None:
                mask = causal_mask(L, x.device)
            y, _ = scaled_dot_product_attention(q, k, v, mask)
            return self.out(merge_heads(y))
            """}),
    ),
    dict(
        name="mask_and_causal", kind="wrong",
        mistake="forward combines a given mask with the causal mask (mask & causal) instead of letting the given mask replace it",
        ideal="A given mask replaces the causal one: with a padding or full mask the queries must also see later keys.\nUse causal_mask only when mask is None.",
        expect=[r"replac|combin|&|and(ed)? with|causal|instead of|given mask|only when (the )?mask is None"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies=ok(**{"MultiHeadAttention.forward": """
            B, L, D = x.shape
            q, k, v = self.qkv(x).split(D, dim=-1)
            q, k, v = split_heads(q, self.n_heads), split_heads(k, self.n_heads), split_heads(v, self.n_heads)
            causal = causal_mask(L, x.device)
            mask = causal if mask is None else (mask & causal)
            y, _ = scaled_dot_product_attention(q, k, v, mask)
            return self.out(merge_heads(y))
            """}),
    ),
    dict(
        name="scale_by_d_model", kind="wrong",
        mistake="forward computes its own attention scaled by √d_model instead of √d_head (the width of each head's queries)",
        ideal="Each head compares d_head-wide queries and keys, so the scores are divided by √d_head = √(D/H), not √D.\nUse the given scaled_dot_product_attention on the split heads (it takes d_k = q.size(-1)).",
        expect=[r"d_head|d_model|√ ?D|sqrt|scal|per[- ]head width|head (width|dim)"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies=ok(**{"MultiHeadAttention.forward": """
            B, L, D = x.shape
            q, k, v = self.qkv(x).split(D, dim=-1)
            q, k, v = split_heads(q, self.n_heads), split_heads(k, self.n_heads), split_heads(v, self.n_heads)
            if mask is None:
                mask = causal_mask(L, x.device)
            scores = q @ k.transpose(-2, -1) / math.sqrt(D)
            scores = scores.masked_fill(~mask, float("-inf"))
            weights = torch.softmax(scores, dim=-1).masked_fill(~mask, 0.0)
            return self.out(merge_heads(weights @ v))
            """}),
    ),
    dict(
        name="softmax_nan_rows", kind="wrong",
        mistake="forward does its own masked torch.softmax without zeroing fully masked rows, so a sequence that is all padding gives NaN",
        ideal="torch.softmax of a row that is all -inf is 0/0 = NaN, which spreads to every later layer. Zero the weights where the mask is False after the softmax,\nas the given scaled_dot_product_attention does (or just call it).",
        expect=[r"nan|fully masked|all[- ]?(-inf|masked|false|padding)|0 ?/ ?0|sees? no key|padding"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies=ok(**{"MultiHeadAttention.forward": """
            B, L, D = x.shape
            q, k, v = self.qkv(x).split(D, dim=-1)
            q, k, v = split_heads(q, self.n_heads), split_heads(k, self.n_heads), split_heads(v, self.n_heads)
            if mask is None:
                mask = causal_mask(L, x.device)
            att = (q @ k.transpose(-2, -1)) / math.sqrt(self.d_head)
            att = att.masked_fill(~mask, float("-inf"))
            att = torch.softmax(att, dim=-1)
            return self.out(merge_heads(att @ v))
            """}),
    ),
    dict(
        name="bias_always_on", kind="wrong",
        mistake="__init__ ignores the bias argument (nn.Linear's default bias=True), so MultiHeadAttention(..., bias=False) still has qkv.bias and out.bias",
        ideal="Pass bias=bias to both nn.Linear layers: with bias=False the module must have no bias parameters\n(a bias-free state dict will not load, and the output of a fully masked query must be zeros).",
        expect=[r"bias"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies=ok(**{"MultiHeadAttention.__init__": """
            self.n_heads = n_heads
            self.d_head = d_model // n_heads
            self.qkv = nn.Linear(d_model, 3 * d_model)
            self.out = nn.Linear(d_model, d_model)
            """}),
    ),
    dict(
        name="unflatten_functional", kind="honest",
        method="split_heads with unflatten + permute, merge_heads with permute + flatten; forward slices the fused weight and calls F.linear per projection",
        helpers="import torch.nn.functional as F",
        bodies=ok(split_heads="""
            return x.unflatten(-1, (n_heads, x.size(-1) // n_heads)).permute(0, 2, 1, 3)
            """, merge_heads="""
            return x.permute(0, 2, 1, 3).flatten(start_dim=2)
            """, **{"MultiHeadAttention.__init__": """
            self.n_heads = n_heads
            self.d_head = d_model // n_heads
            self.d_model = d_model
            self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
            self.out = nn.Linear(d_model, d_model, bias=bias)
            """, "MultiHeadAttention.forward": """
            D = self.d_model
            W, b = self.qkv.weight, self.qkv.bias
            parts = []
            for i in range(3):
                bi = None if b is None else b[i * D:(i + 1) * D]
                parts.append(split_heads(F.linear(x, W[i * D:(i + 1) * D], bi), self.n_heads))
            q, k, v = parts
            if mask is None:
                mask = causal_mask(x.size(1), device=x.device)
            y, _ = scaled_dot_product_attention(q, k, v, mask=mask)
            return self.out(merge_heads(y))
            """}),
    ),
    dict(
        name="mingpt_heads_loop", kind="honest",
        method="minGPT-style names (n_embd, split along dim 2); merge_heads concatenates the unbound heads with torch.cat; attention run head by head",
        bodies=ok(split_heads="""
            B, T, C = x.size()
            return x.reshape(B, T, n_heads, C // n_heads).transpose(1, 2)
            """, merge_heads="""
            return torch.cat(x.unbind(dim=1), dim=-1)
            """, **{"MultiHeadAttention.__init__": """
            assert d_model % n_heads == 0
            self.n_embd = d_model
            self.n_head = self.n_heads = n_heads
            self.d_head = d_model // n_heads
            self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
            self.out = nn.Linear(d_model, d_model, bias=bias)
            """, "MultiHeadAttention.forward": """
            B, T, C = x.size()
            q, k, v = self.qkv(x).split(self.n_embd, dim=2)
            q, k, v = (split_heads(t, self.n_head) for t in (q, k, v))
            if mask is None:
                mask = causal_mask(T, x.device)
            mask = mask.expand(B, self.n_head, T, T)
            heads = []
            for h in range(self.n_head):
                y_h, _ = scaled_dot_product_attention(q[:, h], k[:, h], v[:, h], mask[:, h])
                heads.append(y_h)
            y = torch.stack(heads, dim=1)
            return self.out(merge_heads(y))
            """}),
    ),
]
