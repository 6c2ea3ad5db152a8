CORRECT = {
    "split_heads": """
        B, L, D = x.shape
        return x.view(B, L, n_heads, D // n_heads).transpose(1, 2)  # (B, H, L, d_head)
    """,
    "merge_heads": """
        B, H, L, d_head = x.shape
        return x.transpose(1, 2).contiguous().view(B, L, H * d_head)
    """,
    "MultiHeadAttention.__init__": """
        assert d_model % n_heads == 0, "d_model must divide evenly into heads"
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
        self.out = nn.Linear(d_model, d_model, bias=bias)
    """,
    "MultiHeadAttention.forward": """
        B, L, D = x.shape
        q, k, v = self.qkv(x).split(D, dim=-1)  # three (B, L, D)
        q, k, v = (split_heads(t, self.n_heads) for t in (q, k, v))  # (B, H, L, d_head)
        if mask is None:
            mask = causal_mask(L, x.device)
        y, _ = scaled_dot_product_attention(q, k, v, mask)  # (B, H, L, d_head)
        return self.out(merge_heads(y))
    """,
}

FWD = CORRECT["MultiHeadAttention.forward"]

WRONG = [
    dict(
        name="wrong_split_view_no_transpose",
        mistake="split_heads views (B, L, D) directly as (B, H, L, d_head) with no transpose, mixing tokens and heads",
        ideal="split_heads reshapes straight to (B, H, L, d_head): that cuts the flat (L*D) memory into H blocks of whole tokens instead of cutting each token's D-vector into H chunks; view as (B, L, H, d_head) then transpose(1, 2). Right only when H == 1 or L == 1",
        expect=r"transpos|\(B, ?L, ?H|\(B, ?H, ?L|order of (the )?(dims|axes)|mix(es|ing)? (tokens|positions)|heads? and (tokens|positions)|whole tokens|chunks? of (each|the) (token|d)",
        reject=[r"merge_heads", r"bias", r"causal|mask", r"dtype|device"],
    ),
    dict(
        name="wrong_merge_view_noncontig",
        mistake="merge_heads calls .view after transpose(1, 2) without .contiguous(), which raises on the (non-contiguous) transposed tensor",
        ideal="merge_heads uses view on the transposed tensor: a transpose is only a view with swapped strides, and view needs contiguous memory, so it raises whenever H > 1 and L > 1 (and MultiHeadAttention with it); add .contiguous() or use reshape",
        expect=r"contiguous|view|reshape|stride|memory",
        reject=[r"split_heads", r"bias", r"causal|mask", r"dtype"],
    ),
    dict(
        name="wrong_combines_masks",
        mistake="MultiHeadAttention.forward ANDs a given mask with the causal mask; the docstring says a given mask replaces the causal one",
        ideal="forward combines the caller's mask with the causal mask (mask & causal) instead of using it as given: a non-causal mask (e.g. padding or full attention) still hides future keys",
        expect=r"combin|and(ed|s)? (it )?(with|the)|&|replac|given mask|both masks|intersect|on top of",
        reject=[r"split_heads|merge_heads", r"bias", r"dtype|device", r"contiguous"],
    ),
    dict(
        name="wrong_fused_layout_per_head",
        mistake="MultiHeadAttention.forward reads the fused qkv output per head (view (B, L, H, 3*d_head) then split), GPT-NeoX style, instead of [Q | K | V] side by side",
        ideal="forward splits qkv(x) with a per-head interleaved layout (each head's q, k, v next to each other) while the qkv weight stores W_Q, W_K, W_V as three blocks of d_model columns: with the grader's state dict q, k, v get the wrong columns; split(D, dim=-1) first",
        expect=r"split|layout|interleav|order|column|(q|k|v).{0,20}(mix|wrong)|per.?head|side by side|block|\[q ?\| ?k ?\| ?v\]|qkv",
        reject=[r"bias", r"causal", r"dtype|device", r"contiguous"],
    ),
    dict(
        name="wrong_out_bias_ignored",
        mistake="MultiHeadAttention.__init__ makes self.out = nn.Linear(d_model, d_model) without bias=bias, so bias=False still has out.bias",
        ideal="out ignores the bias flag: with bias=False the module still has out.bias (an extra parameter, an unexpected key in the state dict, and a non-zero output for a fully masked query); pass bias=bias to both linears",
        expect=r"bias",
        reject=[r"split_heads|merge_heads", r"causal", r"contiguous", r"dtype|device"],
    ),
    dict(
        name="wrong_no_default_causal",
        mistake="MultiHeadAttention.forward passes mask=None straight to attention, so with no mask it is not causal",
        ideal="when mask is None forward must use the causal mask (token i sees 0..i), but it attends to every key: tokens read the future",
        expect=r"causal|future|tril|mask.{0,30}none|none.{0,30}mask|default|peek|look.?ahead",
        reject=[r"split_heads|merge_heads", r"bias", r"contiguous", r"dtype"],
    ),
    dict(
        name="wrong_mask_cpu_device",
        mistake="MultiHeadAttention.forward builds the default mask with causal_mask(L) (no device), so on a GPU the mask stays on the CPU and attention fails",
        ideal="causal_mask(L) is made on the CPU; for x on CUDA (or any other device) masked_fill gets a CPU mask and raises a device mismatch; pass x.device",
        expect=r"device|cpu|cuda|gpu",
        reject=[r"split_heads|merge_heads", r"bias", r"contiguous", r"dtype|float"],
    ),
    dict(
        name="wrong_mask_unsqueeze_heads",
        mistake="MultiHeadAttention.forward always unsqueezes a given mask at dim 1 'to add the head dim', which only suits a (B, L, L) mask: (L, L) and (B, 1, 1, L) masks break",
        ideal="forward adds a head dim to every given mask (mask.unsqueeze(1)); the mask is already broadcastable to (B, H, L, L), so an (L, L) mask becomes (L, 1, L) and misaligns (crash or wrong broadcast) and a 4-D mask becomes 5-D; use the mask as given",
        expect=r"unsqueeze|broadcast|shape|head dim|extra dim|(l, ?1, ?l)|5.?d|dim(ension)?s? of the mask|mask'?s? (shape|dims?)",
        reject=[r"split_heads|merge_heads", r"bias", r"contiguous", r"dtype"],
    ),
]

BODIES = {
    "wrong_split_view_no_transpose": {"split_heads": """
        B, L, D = x.shape
        return x.view(B, n_heads, L, D // n_heads)  # (B, H, L, d_head)
    """},
    "wrong_merge_view_noncontig": {"merge_heads": """
        B, H, L, d_head = x.shape
        return x.transpose(1, 2).view(B, L, H * d_head)
    """},
    "wrong_combines_masks": {"MultiHeadAttention.forward": """
        B, L, D = x.shape
        q, k, v = self.qkv(x).split(D, dim=-1)
        q, k, v = (split_heads(t, self.n_heads) for t in (q, k, v))
        causal = causal_mask(L, x.device)
        mask = causal if mask is None else (mask & causal)  # padding AND no peeking
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.out(merge_heads(y))
    """},
    "wrong_fused_layout_per_head": {"MultiHeadAttention.forward": """
        B, L, D = x.shape
        qkv = self.qkv(x).view(B, L, self.n_heads, 3 * self.d_head)  # per head: [q | k | v]
        q, k, v = (t.transpose(1, 2) for t in qkv.split(self.d_head, dim=-1))  # (B, H, L, d_head)
        if mask is None:
            mask = causal_mask(L, x.device)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.out(merge_heads(y))
    """},
    "wrong_out_bias_ignored": {"MultiHeadAttention.__init__": """
        assert d_model % n_heads == 0, "d_model must divide evenly into heads"
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
        self.out = nn.Linear(d_model, d_model)
    """},
    "wrong_no_default_causal": {"MultiHeadAttention.forward": """
        B, L, D = x.shape
        q, k, v = self.qkv(x).split(D, dim=-1)
        q, k, v = (split_heads(t, self.n_heads) for t in (q, k, v))
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.out(merge_heads(y))
    """},
    "wrong_mask_cpu_device": {"MultiHeadAttention.forward": """
        B, L, D = x.shape
        q, k, v = self.qkv(x).split(D, dim=-1)
        q, k, v = (split_heads(t, self.n_heads) for t in (q, k, v))
        if mask is None:
            mask = causal_mask(L)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.out(merge_heads(y))
    """},
    "wrong_mask_unsqueeze_heads": {"MultiHeadAttention.forward": """
        B, L, D = x.shape
        q, k, v = self.qkv(x).split(D, dim=-1)
        q, k, v = (split_heads(t, self.n_heads) for t in (q, k, v))
        if mask is None:
            mask = causal_mask(L, x.device)
        else:
            mask = mask.unsqueeze(1)  # add the heads dim: (B, 1, L, L)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.out(merge_heads(y))
    """},
}

HONEST = [
    dict(
        name="honest_unflatten_permute",
        method="split_heads with unflatten + permute, merge_heads with permute + flatten, qkv cut with chunk; uses the given attention",
        bodies={
            "split_heads": """
                return x.unflatten(-1, (n_heads, -1)).permute(0, 2, 1, 3)
            """,
            "merge_heads": """
                return x.permute(0, 2, 1, 3).flatten(2)  # flatten copies when it must
            """,
            "MultiHeadAttention.__init__": """
                self.n_heads = n_heads
                self.d_head = d_model // n_heads
                self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
                self.out = nn.Linear(d_model, d_model, bias=bias)
            """,
            "MultiHeadAttention.forward": """
                L = x.shape[1]
                heads = [split_heads(t, self.n_heads) for t in self.qkv(x).chunk(3, dim=-1)]
                allowed = causal_mask(L, device=x.device) if mask is None else mask
                y, _ = scaled_dot_product_attention(*heads, mask=allowed)
                return self.out(merge_heads(y))
            """,
        },
    ),
    dict(
        name="honest_nanogpt_port",
        method="port of nanoGPT's CausalSelfAttention (Karpathy) to this API: explicit attention with a guard for fully masked rows; merge_heads by concatenating the unbound heads",
        bodies={
            "split_heads": """
                B, T, C = x.size()
                return x.reshape(B, T, n_heads, C // n_heads).transpose(1, 2)
            """,
            "merge_heads": """
                return torch.cat(x.unbind(dim=1), dim=-1)  # head 0's columns, then head 1's, ...
            """,
            "MultiHeadAttention.__init__": """
                assert d_model % n_heads == 0
                self.n_head = self.n_heads = n_heads
                self.n_embd = d_model
                self.d_head = d_model // n_heads
                self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)  # nanoGPT's c_attn
                self.out = nn.Linear(d_model, d_model, bias=bias)  # nanoGPT's c_proj
            """,
            "MultiHeadAttention.forward": """
                B, T, C = x.size()
                q, k, v = self.qkv(x).split(self.n_embd, dim=2)
                k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
                q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
                v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
                if mask is None:
                    mask = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
                att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
                att = att.masked_fill(~mask, float("-inf"))
                empty = torch.isneginf(att).all(dim=-1, keepdim=True)  # a query that sees no key
                att = torch.softmax(att.masked_fill(empty, 0.0), dim=-1).masked_fill(~mask, 0.0)
                y = att @ v  # (B, nh, T, hs)
                y = y.transpose(1, 2).contiguous().view(B, T, C)
                return self.out(y)
            """,
        },
    ),
]
