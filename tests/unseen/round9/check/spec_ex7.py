OK_REPEAT = """
return x.repeat_interleave(n_rep, dim=1)
"""
OK_INIT = """
self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
self.d_head = d_model // n_heads
self.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
self.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
self.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
self.o_proj = nn.Linear(n_heads * self.d_head, d_model, bias=False)
"""
OK_FORWARD = """
B, L, _ = x.shape
q = self.q_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)
k = self.k_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)
v = self.v_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)
rep = self.n_heads // self.n_kv_heads
k, v = repeat_kv(k, rep), repeat_kv(v, rep)
if mask is None:
    mask = causal_mask(L, x.device)
y, _ = scaled_dot_product_attention(q, k, v, mask)
y = y.transpose(1, 2).contiguous().view(B, L, -1)
return self.o_proj(y)
"""


def ok(**over):
    b = {"repeat_kv": OK_REPEAT, "GroupedQueryAttention.__init__": OK_INIT,
         "GroupedQueryAttention.forward": OK_FORWARD}
    b.update(over)
    return b


def fwd(prep):
    return OK_FORWARD.replace("k, v = repeat_kv(k, rep), repeat_kv(v, rep)\n", prep)


VARIANTS = [
    dict(
        name="repeat_tiles", kind="wrong",
        mistake="repeat_kv uses x.repeat(1, n_rep, 1, 1), which tiles the heads as [0, 1, 0, 1, ...] instead of [0, 0, 1, 1, ...]",
        ideal="Each KV head must sit next to its own copies, so query head j reads KV head j // n_rep. Tensor.repeat tiles the whole block of heads.\nUse repeat_interleave(n_rep, dim=1).",
        expect=[r"repeat_interleave|order|tile|\[0, ?0|\[0, ?1, ?0|j ?// ?n_rep|next to|group|interleav"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies=ok(repeat_kv="""
            return x.repeat(1, n_rep, 1, 1)
            """),
    ),
    dict(
        name="repeat_sequence_dim", kind="wrong",
        mistake="repeat_kv repeats along dim 2 (the sequence positions) instead of dim 1 (the heads): the output is (B, H_kv, L*n_rep, d)",
        ideal="The heads are dim 1 of (B, H_kv, L, d); repeating dim 2 duplicates tokens, not heads.\nUse repeat_interleave(n_rep, dim=1).",
        expect=[r"dim ?=? ?1|dim ?=? ?2|head (dim|axis)|sequence|positions|tokens|wrong (dim|axis)|shape|L ?\* ?n_rep"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies=ok(repeat_kv="""
            return x.repeat_interleave(n_rep, dim=2)
            """),
    ),
    dict(
        name="repeat_expand_view", kind="wrong",
        mistake="repeat_kv expands a new axis and then calls .view(B, H_kv*n_rep, L, d), which cannot merge the zero-stride axis and fails whenever n_rep > 1",
        ideal="An expanded tensor has stride 0 on the new axis, so view cannot fold it into the heads; Llama's repeat_kv uses reshape, which copies.\nUse .reshape(...) (or repeat_interleave).",
        expect=[r"reshape|view|stride|contiguous|expand|memory"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies=ok(repeat_kv="""
            B, H_kv, L, d = x.shape
            if n_rep == 1:
                return x
            x = x[:, :, None, :, :].expand(B, H_kv, n_rep, L, d)
            return x.view(B, H_kv * n_rep, L, d)
            """),
    ),
    dict(
        name="repeat_unsqueeze_inplace", kind="wrong",
        mistake="repeat_kv calls x.unsqueeze_(2), which changes the caller's tensor to 5-D in place before expanding",
        ideal="unsqueeze_ (with the underscore) edits x itself: after the call the caller's keys have an extra axis.\nUse x.unsqueeze(2) or x[:, :, None], which return a view and leave x alone.",
        expect=[r"in[- ]?place|unsqueeze_|modif|mutat|chang\w* (the )?(input|caller|x\b)|underscore"],
        reject=[r"\bdtype\b", r"order"],
        bodies=ok(repeat_kv="""
            B, H_kv, L, d = x.shape
            x.unsqueeze_(2)
            return x.expand(B, H_kv, n_rep, L, d).reshape(B, H_kv * n_rep, L, d)
            """),
    ),
    dict(
        name="kv_proj_full_size", kind="wrong",
        mistake="__init__ makes k_proj and v_proj full size, nn.Linear(d_model, n_heads * d_head), as in multi-head attention, and forward keeps only the first H_kv heads",
        ideal="In GQA only the queries have H heads: k_proj and v_proj output n_kv_heads * d_head, which is the whole point (a smaller KV cache).\nWith full-size layers the grader's state dict cannot load.",
        expect=[r"k_proj|v_proj|n_kv_heads|H_kv|size|shape|state dict|smaller|parameter"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies=ok(**{"GroupedQueryAttention.__init__": """
            self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
            self.d_head = d_model // n_heads
            self.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
            self.k_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
            self.v_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
            self.o_proj = nn.Linear(n_heads * self.d_head, d_model, bias=False)
            """, "GroupedQueryAttention.forward": """
            B, L, _ = x.shape
            kv_width = self.n_kv_heads * self.d_head
            q = self.q_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)
            k = self.k_proj(x)[..., :kv_width].view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)
            v = self.v_proj(x)[..., :kv_width].view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)
            rep = self.n_heads // self.n_kv_heads
            k, v = repeat_kv(k, rep), repeat_kv(v, rep)
            if mask is None:
                mask = causal_mask(L, x.device)
            y, _ = scaled_dot_product_attention(q, k, v, mask)
            y = y.transpose(1, 2).contiguous().view(B, L, -1)
            return self.o_proj(y)
            """}),
    ),
    dict(
        name="forward_modulo_groups", kind="wrong",
        mistake="forward lines the KV heads up with k.repeat(1, rep, 1, 1), so query head j reads KV head j % H_kv instead of j // (H / H_kv) (repeat_kv itself is right)",
        ideal="Query heads 0..n_rep-1 form the first group and share KV head 0; tiling pairs head j with KV head j % H_kv, a different model.\nCall your repeat_kv (repeat_interleave) in forward too.",
        expect=[r"repeat_interleave|repeat_kv|order|tile|group|j ?// ?|j ?% ?|modulo|interleav|pair"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies=ok(**{"GroupedQueryAttention.forward": fwd("k, v = k.repeat(1, rep, 1, 1), v.repeat(1, rep, 1, 1)\n")}),
    ),
    dict(
        name="no_causal_default", kind="wrong",
        mistake="forward applies no mask when mask is None (the Hugging Face convention of relying on the caller), so every token also reads the future",
        ideal="mask=None means causal attention here: token i sees tokens 0..i. Build causal_mask(L, x.device) when no mask is given.",
        expect=[r"causal|None|future|default|tril|no mask"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies=ok(**{"GroupedQueryAttention.forward": OK_FORWARD.replace(
            "if mask is None:\n    mask = causal_mask(L, x.device)\n", "")}),
    ),
    dict(
        name="output_zeros_no_dtype", kind="wrong",
        mistake="forward collects the per-group outputs in torch.zeros(B, L, H*d_head) made without dtype= or device=, so it is float32 on the CPU whatever x is",
        ideal="A tensor made without dtype=/device= is float32 on the CPU: float64 inputs lose precision, half inputs are promoted and CUDA inputs fail.\nUse x.new_zeros(...) or torch.zeros(..., dtype=x.dtype, device=x.device), or avoid the buffer (torch.cat).",
        expect=[r"dtype|device|float32|float64|cpu|cuda|new_zeros|zeros_like|precision"],
        reject=[r"in[- ]?place", r"order"],
        bodies=ok(**{"GroupedQueryAttention.forward": """
            B, L, _ = x.shape
            q = self.q_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)
            k = self.k_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)
            v = self.v_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)
            rep = self.n_heads // self.n_kv_heads
            if mask is None:
                mask = causal_mask(L, x.device)
            y = torch.zeros(B, L, self.n_heads * self.d_head)
            for g in range(self.n_kv_heads):
                qs = q[:, g * rep:(g + 1) * rep]
                ks, vs = k[:, g:g + 1], v[:, g:g + 1]
                m = mask.expand(B, self.n_heads, L, L)[:, g * rep:(g + 1) * rep] if mask.dim() == 4 else mask
                out, _ = scaled_dot_product_attention(qs, ks, vs, m)
                y[:, :, g * rep * self.d_head:(g + 1) * rep * self.d_head] = out.transpose(1, 2).reshape(B, L, -1)
            return self.o_proj(y)
            """}),
    ),
    dict(
        name="llama_port", kind="honest",
        method="port of Meta's Llama repeat_kv (expand a new axis, then reshape) and Llama's attention forward (xq/xk/xv, transpose, matmul, softmax with masked rows zeroed)",
        bodies=ok(repeat_kv="""
            bs, n_kv_heads, slen, head_dim = x.shape
            if n_rep == 1:
                return x
            return (
                x[:, :, None, :, :]
                .expand(bs, n_kv_heads, n_rep, slen, head_dim)
                .reshape(bs, n_kv_heads * n_rep, slen, head_dim)
            )
            """, **{"GroupedQueryAttention.__init__": """
            self.n_heads = n_heads
            self.n_kv_heads = n_kv_heads
            self.n_rep = n_heads // n_kv_heads
            self.d_head = self.head_dim = d_model // n_heads
            self.q_proj = nn.Linear(d_model, n_heads * self.head_dim, bias=False)
            self.k_proj = nn.Linear(d_model, n_kv_heads * self.head_dim, bias=False)
            self.v_proj = nn.Linear(d_model, n_kv_heads * self.head_dim, bias=False)
            self.o_proj = nn.Linear(n_heads * self.head_dim, d_model, bias=False)
            """, "GroupedQueryAttention.forward": """
            bsz, seqlen, _ = x.shape
            xq = self.q_proj(x).view(bsz, seqlen, self.n_heads, self.head_dim)
            xk = self.k_proj(x).view(bsz, seqlen, self.n_kv_heads, self.head_dim)
            xv = self.v_proj(x).view(bsz, seqlen, self.n_kv_heads, self.head_dim)
            xq = xq.transpose(1, 2)
            keys = repeat_kv(xk.transpose(1, 2), self.n_rep)
            values = repeat_kv(xv.transpose(1, 2), self.n_rep)
            if mask is None:
                mask = causal_mask(seqlen, device=x.device)
            scores = torch.matmul(xq, keys.transpose(2, 3)) / math.sqrt(self.head_dim)
            scores = scores.masked_fill(~mask, float("-inf"))
            scores = torch.softmax(scores, dim=-1)
            scores = scores.masked_fill(~mask, 0.0)
            output = torch.matmul(scores, values)
            output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1)
            return self.o_proj(output)
            """}),
    ),
    dict(
        name="grouped_broadcast", kind="honest",
        method="repeat_kv by index_select with arange(H) // n_rep; forward never copies the KV heads: queries are viewed as (B, H_kv, n_rep, L, d) and broadcast against (B, H_kv, 1, L, d)",
        bodies=ok(repeat_kv="""
            idx = torch.arange(x.size(1) * n_rep, device=x.device) // n_rep
            return x.index_select(1, idx)
            """, **{"GroupedQueryAttention.__init__": OK_INIT, "GroupedQueryAttention.forward": """
            B, L, _ = x.shape
            G, R, d = self.n_kv_heads, self.n_heads // self.n_kv_heads, self.d_head
            q = self.q_proj(x).view(B, L, G, R, d).permute(0, 2, 3, 1, 4)   # (B, G, R, L, d)
            k = self.k_proj(x).view(B, L, G, d).transpose(1, 2).unsqueeze(2)  # (B, G, 1, L, d)
            v = self.v_proj(x).view(B, L, G, d).transpose(1, 2).unsqueeze(2)
            if mask is None:
                mask = causal_mask(L, x.device)
            mask = mask.expand(B, self.n_heads, L, L).reshape(B, G, R, L, L)
            y, _ = scaled_dot_product_attention(q, k, v, mask)              # (B, G, R, L, d)
            y = y.permute(0, 3, 1, 2, 4).reshape(B, L, self.n_heads * d)
            return self.o_proj(y)
            """}),
    ),
]
