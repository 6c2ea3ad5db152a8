_FWD = """
        B, L, _ = x.shape
        q = self.q_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)
        k = self.k_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)
        v = self.v_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)
        rep = self.n_heads // self.n_kv_heads
        k, v = repeat_kv(k, rep), repeat_kv(v, rep)
        if mask is None:
            mask = causal_mask(L, x.device)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        y = y.transpose(1, 2).contiguous().view(B, L, self.n_heads * self.d_head)
        return self.o_proj(y)
"""
_INIT = """
        assert n_heads % n_kv_heads == 0, "n_heads must be a multiple of n_kv_heads"
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.d_head = d_model // n_heads
        self.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
        self.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.o_proj = nn.Linear(n_heads * self.d_head, d_model, bias=False)
"""
DEFAULT = {
    "repeat_kv": """
        return x.repeat_interleave(n_rep, dim=1)
    """,
    "GroupedQueryAttention.__init__": _INIT,
    "GroupedQueryAttention.forward": _FWD,
}

VARIANTS = [
    dict(kind="wrong", name="expand_tiles_heads",
         mistake="repeat_kv inserts the new axis BEFORE the heads (x[:, None].expand(B, n_rep, H_kv, L, d)), which tiles the heads [0, 1, 0, 1, ...]",
         ideal="Expanding a new axis in front of the KV-head axis and flattening gives the order [0, 1, 0, 1, ...] (tiled, like repeat), so query head j is paired with KV head j % H_kv instead of j // n_rep; the new axis must come after the heads: x[:, :, None].expand(B, H_kv, n_rep, L, d).",
         expect=[r"expand|axis|\[:, ?None\]", r"order|tiled|\[0, ?1, ?0, ?1|j ?// ?n_rep|j ?% ?H_kv"],
         bodies={"repeat_kv": """
        B, H_kv, L, d = x.shape
        return x[:, None].expand(B, n_rep, H_kv, L, d).reshape(B, n_rep * H_kv, L, d)
    """}),
    dict(kind="wrong", name="expand_then_view",
         mistake="repeat_kv expands a new axis and flattens it with .view, which fails on an expanded (stride-0) tensor whenever n_rep > 1",
         ideal="x[:, :, None].expand(...) has a stride-0 axis, and .view cannot merge it with the head axis, so repeat_kv raises a RuntimeError for every n_rep > 1; use .reshape (which copies) or repeat_interleave.",
         expect=[r"\.view|view\(", r"expand|stride|reshape"],
         bodies={"repeat_kv": """
        B, H_kv, L, d = x.shape
        return x[:, :, None, :, :].expand(B, H_kv, n_rep, L, d).view(B, H_kv * n_rep, L, d)
    """}),
    dict(kind="wrong", name="repeat_interleave_no_dim",
         mistake="repeat_kv calls x.repeat_interleave(n_rep) without dim=, which flattens the tensor to 1-D before repeating",
         ideal="Without dim=1, repeat_interleave flattens x and repeats every single number n_rep times, returning a 1-D tensor of B*H_kv*L*d*n_rep values (for n_rep = 1 the flat x), not (B, H_kv*n_rep, L, d); pass dim=1.",
         expect=[r"dim ?= ?1|without dim|no dim", r"flatten|1-D|every (single )?(number|element|value)"],
         bodies={"repeat_kv": """
        return x.repeat_interleave(n_rep)
    """}),
    dict(kind="wrong", name="kv_proj_full_width",
         mistake="__init__ gives k_proj and v_proj n_heads * d_head outputs, like multi-head attention, instead of n_kv_heads * d_head",
         ideal="k_proj and v_proj are sized d_model -> n_heads*d_head (one KV head per query head), so the GQA state dict with n_kv_heads*d_head rows does not load and the KV cache is not smaller; they must output n_kv_heads * d_head.",
         expect=[r"n_kv_heads|H_kv|KV heads", r"k_proj|v_proj|size|width|state dict"],
         bodies={"GroupedQueryAttention.__init__": """
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.d_head = d_model // n_heads
        self.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
        self.k_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
        self.v_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
        self.o_proj = nn.Linear(n_heads * self.d_head, d_model, bias=False)
    """, "GroupedQueryAttention.forward": """
        B, L, _ = x.shape
        q = self.q_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)
        k = self.k_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)
        v = self.v_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)
        if mask is None:
            mask = causal_mask(L, x.device)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        y = y.transpose(1, 2).contiguous().view(B, L, self.n_heads * self.d_head)
        return self.o_proj(y)
    """}),
    dict(kind="wrong", name="repeat_columns_before_split",
         mistake="forward repeats the projected keys/values with .repeat(1, 1, rep) BEFORE splitting into heads, which tiles the KV heads [0, 1, 0, 1, ...]",
         ideal="Repeating the (B, L, H_kv*d_head) projection along its last dim and then splitting into H heads gives heads in the order 0, 1, ..., H_kv-1, 0, 1, ... (tiled), so query head j reads KV head j % H_kv instead of j // (H/H_kv); split into heads first, then repeat_kv (repeat_interleave on the head dim).",
         expect=[r"before split|\.repeat|tiled|order", r"j ?// ?|j ?% ?|group|repeat_interleave|head"],
         bodies={"GroupedQueryAttention.forward": """
        B, L, _ = x.shape
        rep = self.n_heads // self.n_kv_heads
        q = self.q_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)
        k = self.k_proj(x).repeat(1, 1, rep).view(B, L, self.n_heads, self.d_head).transpose(1, 2)
        v = self.v_proj(x).repeat(1, 1, rep).view(B, L, self.n_heads, self.d_head).transpose(1, 2)
        if mask is None:
            mask = causal_mask(L, x.device)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        y = y.transpose(1, 2).contiguous().view(B, L, self.n_heads * self.d_head)
        return self.o_proj(y)
    """}),
    dict(kind="wrong", name="chapter_attention_nan",
         mistake="forward inlines the chapter's attention (masked_fill then torch.softmax) without zeroing fully masked rows, so an all-padding sequence gives NaN",
         ideal="The chapter's attention applies torch.softmax to a row that is all -inf when a query may see no key, which is 0/0 = NaN, and the NaN goes through o_proj into the output (and the gradients); the contract wants a zero output there, as the given scaled_dot_product_attention does.",
         expect=[r"NaN|0/0", r"fully masked|all -inf|all False|padding|no key"],
         bodies={"GroupedQueryAttention.forward": """
        B, L, _ = x.shape
        q = self.q_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)
        k = self.k_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)
        v = self.v_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)
        rep = self.n_heads // self.n_kv_heads
        k, v = repeat_kv(k, rep), repeat_kv(v, rep)
        if mask is None:
            mask = causal_mask(L, x.device)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
        scores = scores.masked_fill(~mask, float("-inf"))
        y = torch.softmax(scores, dim=-1) @ v
        y = y.transpose(1, 2).contiguous().view(B, L, self.n_heads * self.d_head)
        return self.o_proj(y)
    """}),
    dict(kind="wrong", name="index_on_cpu",
         mistake="repeat_kv gathers the heads with index_select(1, torch.arange(...) // n_rep) but builds the index on the CPU",
         ideal="torch.arange(...) without device= makes the head index on the CPU, so index_select fails for keys on a GPU (any device but the CPU); build the index with device=x.device (or use repeat_interleave).",
         expect=[r"device|CPU|GPU|cuda"],
         reject=[r"dtype"],
         bodies={"repeat_kv": """
        H_kv = x.shape[1]
        idx = torch.arange(H_kv * n_rep) // n_rep
        return x.index_select(1, idx)
    """}),
    dict(kind="wrong", name="given_mask_ignored",
         mistake="forward always uses the causal mask, ignoring a mask that is passed in",
         ideal="The mask argument is never used: forward always builds causal_mask(L), so padding masks and custom masks have no effect (padding keys are read, an all-padding sequence is not zero); a given mask must replace the causal one.",
         expect=[r"ignor|never used|always", r"mask"],
         bodies={"GroupedQueryAttention.forward": """
        B, L, _ = x.shape
        q = self.q_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)
        k = self.k_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)
        v = self.v_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)
        rep = self.n_heads // self.n_kv_heads
        k, v = repeat_kv(k, rep), repeat_kv(v, rep)
        y, _ = scaled_dot_product_attention(q, k, v, causal_mask(L, x.device))
        y = y.transpose(1, 2).contiguous().view(B, L, self.n_heads * self.d_head)
        return self.o_proj(y)
    """}),
    dict(kind="honest", name="expand_reshape",
         method="repeat_kv by expanding a new axis after the KV heads and reshaping; forward uses unflatten/movedim and flatten, mask from aranges",
         bodies={"repeat_kv": """
        if n_rep == 1:
            return x
        B, H_kv, L, d = x.shape
        return x.unsqueeze(2).expand(B, H_kv, n_rep, L, d).reshape(B, H_kv * n_rep, L, d)
    """, "GroupedQueryAttention.forward": """
        L = x.shape[1]
        q = self.q_proj(x).unflatten(-1, (self.n_heads, self.d_head)).movedim(2, 1)
        k = self.k_proj(x).unflatten(-1, (self.n_kv_heads, self.d_head)).movedim(2, 1)
        v = self.v_proj(x).unflatten(-1, (self.n_kv_heads, self.d_head)).movedim(2, 1)
        group = self.n_heads // self.n_kv_heads
        if mask is None:
            pos = torch.arange(L, device=x.device)
            mask = pos.unsqueeze(1) >= pos.unsqueeze(0)
        y, _ = scaled_dot_product_attention(q, repeat_kv(k, group), repeat_kv(v, group), mask)
        return self.o_proj(y.movedim(1, 2).flatten(2))
    """}),
    dict(kind="honest", name="grouped_broadcast",
         method="repeat_kv with index_select on a device-aware index; forward never copies the KV heads: queries are grouped as (B, H_kv, group, L, d) and broadcast against (B, H_kv, 1, L, d)",
         bodies={"repeat_kv": """
        idx = torch.div(torch.arange(x.shape[1] * n_rep, device=x.device), n_rep, rounding_mode="floor")
        return torch.index_select(x, 1, idx)
    """, "GroupedQueryAttention.forward": """
        B, L, _ = x.shape
        Hkv, g, dh = self.n_kv_heads, self.n_heads // self.n_kv_heads, self.d_head
        q = self.q_proj(x).reshape(B, L, Hkv, g, dh).permute(0, 2, 3, 1, 4)  # (B, Hkv, g, L, dh)
        k = self.k_proj(x).reshape(B, L, Hkv, 1, dh).permute(0, 2, 3, 1, 4)  # (B, Hkv, 1, L, dh)
        v = self.v_proj(x).reshape(B, L, Hkv, 1, dh).permute(0, 2, 3, 1, 4)
        if mask is None:
            mask = causal_mask(L, x.device)  # (L, L) broadcasts over (B, Hkv, g)
        else:
            mask = torch.broadcast_to(mask, (B, self.n_heads, L, L)).reshape(B, Hkv, g, L, L)
        y, _ = scaled_dot_product_attention(q, k, v, mask)  # (B, Hkv, g, L, dh)
        y = y.permute(0, 3, 1, 2, 4).reshape(B, L, self.n_heads * dh)
        return self.o_proj(y)
    """}),
]
