DEFAULT = {
    "split_heads": """
        B, L, D = x.shape
        return x.view(B, L, n_heads, D // n_heads).transpose(1, 2)
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
        q, k, v = self.qkv(x).split(D, dim=-1)
        q, k, v = split_heads(q, self.n_heads), split_heads(k, self.n_heads), split_heads(v, self.n_heads)
        if mask is None:
            mask = causal_mask(L, x.device)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.out(merge_heads(y))
    """,
}

VARIANTS = [
    dict(kind="wrong", name="split_strided_heads",
         mistake="split_heads views each D-vector as (d_head, H) and permutes, so head h gets the strided columns h, h+H, h+2H, ... instead of a contiguous chunk",
         ideal="Viewing the last dim as (d_head, H) instead of (H, d_head) deals the columns out round-robin: head h gets columns h, h+H, ..., not columns h*d_head .. (h+1)*d_head - 1; the view must be (B, L, H, d_head).",
         expect=[r"\(d_head, ?H\)|strided|round[- ]robin|interleav", r"chunk|contiguous|h\*d_head|\(H, ?d_head\)"],
         bodies={"split_heads": """
        B, L, D = x.shape
        return x.view(B, L, D // n_heads, n_heads).permute(0, 3, 1, 2)
    """}),
    dict(kind="wrong", name="merge_without_transpose",
         mistake="merge_heads reshapes (B, H, L, d_head) straight to (B, L, H*d_head) without moving the head axis back next to d_head",
         ideal="Reshaping (B, H, L, d_head) directly to (B, L, D) keeps memory order, so a 'token' row is made of consecutive tokens of head 0 instead of every head's output for that token; transpose(1, 2) to (B, L, H, d_head) first.",
         expect=[r"transpose|permute|head axis", r"reshape|view|memory order"],
         bodies={"merge_heads": """
        B, H, L, d_head = x.shape
        return x.reshape(B, L, H * d_head)
    """}),
    dict(kind="wrong", name="merge_view_not_contiguous",
         mistake="merge_heads calls .view after transpose(1, 2) without .contiguous(), which raises for a transposed tensor",
         ideal="After transpose(1, 2) the tensor is not contiguous, and .view cannot merge the H and d_head dims of such a tensor, so it raises a RuntimeError (whenever H > 1 and L > 1); call .contiguous() first or use .reshape.",
         expect=[r"contiguous", r"view|reshape"],
         bodies={"merge_heads": """
        B, H, L, d_head = x.shape
        return x.transpose(1, 2).view(B, L, H * d_head)
    """}),
    dict(kind="wrong", name="mask_and_causal",
         mistake="forward combines a given mask with the causal mask (mask & causal) instead of letting it replace the causal one",
         ideal="A given mask must replace the causal mask, but this code ANDs it with the causal one, so with a padding or full mask a token still cannot see later tokens; use the causal mask only when mask is None.",
         expect=[r"combin|AND|&|both|together", r"replace|causal"],
         bodies={"MultiHeadAttention.forward": """
        B, L, D = x.shape
        q, k, v = self.qkv(x).split(D, dim=-1)
        q, k, v = split_heads(q, self.n_heads), split_heads(k, self.n_heads), split_heads(v, self.n_heads)
        causal = causal_mask(L, x.device)
        mask = causal if mask is None else (mask & causal)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.out(merge_heads(y))
    """}),
    dict(kind="wrong", name="qkv_per_head_layout",
         mistake="forward reads the fused qkv output as (B, L, H, 3, d_head), the Megatron per-head layout, instead of [q | k | v] side by side",
         ideal="The qkv output is unpacked as (B, L, H, 3, d_head) (each head's q, k, v together, Megatron/GPT-NeoX style), but here W_Q, W_K, W_V sit side by side: the first D columns are all of Q; split into three D-wide blocks first, then heads.",
         expect=[r"layout|Megatron|per[- ]head|\(B, ?L, ?H, ?3", r"side by side|first D|split|block"],
         bodies={"MultiHeadAttention.forward": """
        B, L, D = x.shape
        qkv = self.qkv(x).view(B, L, self.n_heads, 3, self.d_head)
        q, k, v = qkv.permute(3, 0, 2, 1, 4).unbind(0)
        if mask is None:
            mask = causal_mask(L, x.device)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.out(merge_heads(y))
    """}),
    dict(kind="wrong", name="scale_by_d_model",
         mistake="forward writes its own attention and scales the scores by sqrt(d_model) instead of sqrt(d_head)",
         ideal="Each head compares d_head-wide queries and keys, so the scores must be divided by √d_head; dividing by √d_model (the full width) makes every head's softmax √H times too flat (right only with one head).",
         expect=[r"d_model", r"d_head|per head|head width|√H"],
         bodies={"MultiHeadAttention.forward": """
        B, L, D = x.shape
        q, k, v = self.qkv(x).split(D, dim=-1)
        q, k, v = split_heads(q, self.n_heads), split_heads(k, self.n_heads), split_heads(v, self.n_heads)
        if mask is None:
            mask = causal_mask(L, x.device)
        scores = q @ k.transpose(-2, -1) / math.sqrt(D)
        scores = scores.masked_fill(~mask, float("-inf"))
        w = torch.softmax(scores, dim=-1).masked_fill(~mask, 0.0)
        return self.out(merge_heads(w @ v))
    """}),
    dict(kind="wrong", name="d_head_true_division",
         mistake="__init__ computes d_head = d_model / n_heads, a float, and forward's view with it fails",
         ideal="d_model / n_heads is true division and gives a float (e.g. 8 / 2 = 4.0); view() needs ints, so forward raises a TypeError; use integer division d_model // n_heads.",
         expect=[r"float|true division|/ n_heads", r"//|int|view"],
         bodies={"MultiHeadAttention.__init__": """
        self.n_heads = n_heads
        self.d_head = d_model / n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
        self.out = nn.Linear(d_model, d_model, bias=bias)
    """, "MultiHeadAttention.forward": """
        B, L, D = x.shape
        q, k, v = self.qkv(x).split(D, dim=-1)
        q = q.view(B, L, self.n_heads, self.d_head).transpose(1, 2)
        k = k.view(B, L, self.n_heads, self.d_head).transpose(1, 2)
        v = v.view(B, L, self.n_heads, self.d_head).transpose(1, 2)
        if mask is None:
            mask = causal_mask(L, x.device)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.out(merge_heads(y))
    """}),
    dict(kind="wrong", name="bias_argument_ignored",
         mistake="__init__ makes both linear layers with the default bias=True, ignoring the bias argument",
         ideal="nn.Linear(...) without bias=bias always has a bias, so MultiHeadAttention(d, h, bias=False) still has qkv.bias and out.bias: a bias-free state dict does not load (unexpected/missing keys) and a fully masked query's output is not zero.",
         expect=[r"bias"],
         reject=[r"transpos"],
         bodies={"MultiHeadAttention.__init__": """
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)
    """}),
    dict(kind="honest", name="chunk_stack_cat",
         method="split_heads stacks x.chunk(H, -1) on a new head dim; merge_heads concatenates the unbound heads; forward reshapes the fused output to (B, L, 3, H, d_head) and permutes",
         bodies={"split_heads": """
        return torch.stack(x.chunk(n_heads, dim=-1), dim=1)
    """, "merge_heads": """
        return torch.cat(x.unbind(dim=1), dim=-1)
    """, "MultiHeadAttention.__init__": """
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
        self.out = nn.Linear(d_model, d_model, bias=bias)
    """, "MultiHeadAttention.forward": """
        B, L, D = x.shape
        qkv = self.qkv(x).reshape(B, L, 3, self.n_heads, self.d_head)
        q, k, v = qkv.permute(2, 0, 3, 1, 4)  # each (B, H, L, d_head)
        if mask is None:
            pos = torch.arange(L, device=x.device)
            mask = pos[:, None] >= pos[None, :]
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.out(merge_heads(y))
    """}),
    dict(kind="honest", name="unflatten_permute",
         method="split_heads via unflatten + permute, merge_heads via permute + flatten (reshape copies when needed); forward uses chunk(3) and the given helpers",
         bodies={"split_heads": """
        return x.unflatten(-1, (n_heads, x.shape[-1] // n_heads)).permute(0, 2, 1, 3)
    """, "merge_heads": """
        return x.permute(0, 2, 1, 3).flatten(start_dim=2)
    """, "MultiHeadAttention.__init__": """
        if d_model % n_heads:
            raise ValueError("d_model must be divisible by n_heads")
        self.n_heads, self.d_head = n_heads, d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
        self.out = nn.Linear(d_model, d_model, bias=bias)
    """, "MultiHeadAttention.forward": """
        L = x.shape[1]
        heads = [split_heads(t, self.n_heads) for t in self.qkv(x).chunk(3, dim=-1)]
        m = causal_mask(L, device=x.device) if mask is None else mask
        y, _ = scaled_dot_product_attention(*heads, mask=m)
        return self.out(merge_heads(y))
    """}),
]
