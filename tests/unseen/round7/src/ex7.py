from build import H, W

BASE = {
    "repeat_kv": """
        return x.repeat_interleave(n_rep, dim=1)  # (B, H_kv * n_rep, L, d): heads 0,0,..,1,1,..
    """,
    "GroupedQueryAttention.__init__": """
        assert d_model % n_heads == 0, "d_model must divide evenly into heads"
        assert n_heads % n_kv_heads == 0, "n_heads must be a multiple of n_kv_heads"
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.d_head = d_model // n_heads
        self.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
        self.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.o_proj = nn.Linear(n_heads * self.d_head, d_model, bias=False)
    """,
    "GroupedQueryAttention.forward": """
        B, L, _ = x.shape
        q = self.q_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)  # (B, H, L, dh)
        k = self.k_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)  # (B, Hkv, L, dh)
        v = self.v_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)
        rep = self.n_heads // self.n_kv_heads
        k, v = repeat_kv(k, rep), repeat_kv(v, rep)  # (B, H, L, dh)
        if mask is None:
            mask = causal_mask(L, x.device)
        y, _ = scaled_dot_product_attention(q, k, v, mask)  # (B, H, L, dh)
        y = y.transpose(1, 2).contiguous().view(B, L, self.n_heads * self.d_head)
        return self.o_proj(y)
    """,
}

NOT_DTYPE = r"\bdtype\b.*(lost|changed|not kept)"
NOT_INPLACE = r"in.place"
FWD = r"forward|GroupedQueryAttention"

FILES = [
    W("expand_before_head_axis",
      "repeat_kv inserts the repeat axis before the KV-head axis (x[:, None].expand(B, n_rep, H_kv, ...)), so the heads come out tiled [0, 1, 0, 1] instead of [0, 0, 1, 1]",
      "repeat_kv expands x[:, None] to (B, n_rep, H_kv, L, d) and reshapes, which tiles the heads [0, 1, 0, 1, ...] instead of repeating each KV head next to itself [0, 0, 1, 1, ...]; query head j then reads KV head j % H_kv instead of j // n_rep; put the new axis after the head axis (x[:, :, None]) or use repeat_interleave.",
      [r"repeat_kv", r"order|tiled?|\[0, ?1, ?0, ?1|\[0, ?0, ?1, ?1|next to itself|j ?// ?n_rep|j ?% ?H_kv|interleave|axis (before|after)"],
      [NOT_DTYPE, NOT_INPLACE, r"token axis|repeats (the )?tokens"],
      {"repeat_kv": """
        B, H_kv, L, d = x.shape
        return x[:, None].expand(B, n_rep, H_kv, L, d).reshape(B, n_rep * H_kv, L, d)
    """}),
    W("llama_layout_repeats_tokens",
      "repeat_kv is Meta Llama's repeat_kv (ported from meta-llama/llama model.py), written for (B, L, H_kv, d) tensors: on the stub's (B, H_kv, L, d) it repeats the tokens, not the heads",
      "repeat_kv is Meta Llama's repeat_kv, which expects x as (bs, seqlen, n_kv_heads, head_dim); the stub's x is (B, H_kv, L, d), so the expand at dim 3 repeats each token n_rep times and returns (B, H_kv, L·n_rep, d) instead of (B, H_kv·n_rep, L, d); repeat along dim 1, the heads.",
      [r"repeat_kv", r"Llama|layout|token|seq(uence)? (axis|dim)|dim(ension)? ?1|heads? (axis|dim)|\(B, ?H_kv, ?L|L·n_rep|L ?\* ?n_rep|shape"],
      [NOT_DTYPE, NOT_INPLACE, r"\[0, ?1, ?0, ?1"],
      {"repeat_kv": """
        bs, slen, n_kv_heads, head_dim = x.shape
        if n_rep == 1:
            return x
        return (
            x[:, :, :, None, :]
            .expand(bs, slen, n_kv_heads, n_rep, head_dim)
            .reshape(bs, slen, n_kv_heads * n_rep, head_dim)
        )
    """}),
    W("kv_proj_full_width",
      "__init__ makes k_proj and v_proj full width, nn.Linear(d_model, d_model), instead of n_kv_heads * d_head outputs",
      "__init__ creates k_proj and v_proj as nn.Linear(d_model, d_model, bias=False), full multi-head width, instead of n_kv_heads * d_head outputs; the KV heads are then not fewer, the grader's state dict (k_proj.weight of shape (H_kv·d_head, d_model)) does not load, and forward's view as n_kv_heads heads fails when n_kv_heads < n_heads.",
      [r"__init__|k_proj|v_proj", r"n_kv_heads ?\* ?d_head|H_kv|full.width|d_model, ?d_model|size mismatch|shape|smaller|state.dict"],
      [NOT_DTYPE, NOT_INPLACE, r"bias=True|(default|extra|missing) bias"],
      {"GroupedQueryAttention.__init__": """
        assert d_model % n_heads == 0, "d_model must divide evenly into heads"
        assert n_heads % n_kv_heads == 0, "n_heads must be a multiple of n_kv_heads"
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.d_head = d_model // n_heads
        self.q_proj = nn.Linear(d_model, d_model, bias=False)
        self.k_proj = nn.Linear(d_model, d_model, bias=False)
        self.v_proj = nn.Linear(d_model, d_model, bias=False)
        self.o_proj = nn.Linear(d_model, d_model, bias=False)
    """}),
    W("linear_bias_default",
      "__init__ creates the four projections with nn.Linear's default bias=True: the class must be bias-free",
      "__init__ leaves out bias=False, so q_proj, k_proj, v_proj and o_proj each get a bias (nn.Linear's default); the class must be bias-free, so the grader's weights-only state dict fails to load (missing q_proj.bias ...) and the output gains biases; pass bias=False.",
      [r"__init__|nn\.Linear|bias", r"bias=False|bias.free|default bias|missing key|\.bias|state.dict|extra param"],
      [NOT_DTYPE, NOT_INPLACE, r"full.width|d_model, ?d_model"],
      {"GroupedQueryAttention.__init__": """
        assert d_model % n_heads == 0, "d_model must divide evenly into heads"
        assert n_heads % n_kv_heads == 0, "n_heads must be a multiple of n_kv_heads"
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.d_head = d_model // n_heads
        self.q_proj = nn.Linear(d_model, n_heads * self.d_head)
        self.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head)
        self.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head)
        self.o_proj = nn.Linear(n_heads * self.d_head, d_model)
    """}),
    W("kv_view_with_n_heads",
      "forward views the keys and values as n_heads heads, copying exercise 6, but k_proj/v_proj only produce n_kv_heads * d_head numbers per token: the view fails whenever n_kv_heads != n_heads",
      "forward reshapes k_proj(x) and v_proj(x) with .view(B, L, self.n_heads, self.d_head), but those projections only produce n_kv_heads · d_head numbers per token, so the view raises whenever n_kv_heads != n_heads (it only works for plain multi-head attention); view them as n_kv_heads heads and repeat them afterwards.",
      [FWD, r"n_kv_heads|H_kv|view|shape.{0,30}invalid|n_heads, ?self\.d_head"],
      [NOT_DTYPE, NOT_INPLACE, r"bias"],
      {"GroupedQueryAttention.forward": """
        B, L, _ = x.shape
        q = self.q_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)
        k = self.k_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)
        v = self.v_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)
        rep = self.n_heads // self.n_kv_heads
        k, v = repeat_kv(k, rep), repeat_kv(v, rep)
        if mask is None:
            mask = causal_mask(L, x.device)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        y = y.transpose(1, 2).contiguous().view(B, L, self.n_heads * self.d_head)
        return self.o_proj(y)
    """}),
    W("transformerlens_ignore_value",
      "forward writes its own attention with TransformerLens' masking, torch.where(mask, scores, IGNORE) with IGNORE = -1e5 (ported from TransformerLens' apply_causal_mask), instead of the given attention: a fully masked query reads the mean of the values",
      "forward masks the scores with torch.where(mask, scores, IGNORE), IGNORE = -1e5 as in TransformerLens, and calls torch.softmax itself instead of the given scaled_dot_product_attention; a query whose mask row is all False then has equal scores, gets uniform weights and reads the mean of the values, instead of the zero output the docstring asks for.",
      [FWD, r"IGNORE|-1e5|1e5|uniform|mean of the values|zero output|fully masked|all.{0,6}False"],
      [NOT_DTYPE, NOT_INPLACE, r"\[0, ?1, ?0, ?1"],
      {"GroupedQueryAttention.forward": """
        B, L, _ = x.shape
        q = self.q_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)
        k = self.k_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)
        v = self.v_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)
        rep = self.n_heads // self.n_kv_heads
        k, v = repeat_kv(k, rep), repeat_kv(v, rep)
        attn_scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
        if mask is None:
            mask = causal_mask(L, x.device)
        # TransformerLens' apply_causal_mask: torch.where(mask, attn_scores, self.IGNORE)
        IGNORE = torch.tensor(-1e5, dtype=attn_scores.dtype, device=x.device)
        attn_scores = torch.where(mask, attn_scores, IGNORE)
        pattern = torch.softmax(attn_scores, dim=-1)
        y = pattern @ v
        y = y.transpose(1, 2).contiguous().view(B, L, self.n_heads * self.d_head)
        return self.o_proj(y)
    """}),
    W("no_default_causal_mask",
      "forward passes mask=None straight to the attention, so with no mask every token attends to the future",
      "forward hands mask straight to scaled_dot_product_attention, so when mask is None every token attends to every other, including the future; the docstring says None means causal attention: build causal_mask(L, x.device) when no mask is given.",
      [FWD, r"causal|future|mask(=| is )None|no mask|tril"],
      [NOT_DTYPE, NOT_INPLACE, r"\[0, ?1, ?0, ?1"],
      {"GroupedQueryAttention.forward": """
        B, L, _ = x.shape
        q = self.q_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)
        k = self.k_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)
        v = self.v_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)
        rep = self.n_heads // self.n_kv_heads
        k, v = repeat_kv(k, rep), repeat_kv(v, rep)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        y = y.transpose(1, 2).contiguous().view(B, L, self.n_heads * self.d_head)
        return self.o_proj(y)
    """}),
    W("repeat_by_n_heads",
      "forward repeats each KV head n_heads times instead of n_heads // n_kv_heads: right only for multi-query attention (n_kv_heads = 1)",
      "forward calls repeat_kv(k, self.n_heads) and repeat_kv(v, self.n_heads), giving n_kv_heads · n_heads KV heads instead of n_heads; it only lines up for multi-query attention (n_kv_heads = 1) and fails for real grouped-query layers; repeat n_heads // n_kv_heads times.",
      [FWD, r"n_heads ?// ?n_kv_heads|n_rep|repeat(s|ed)? .{0,30}times|group size|n_kv_heads ?[·*] ?n_heads|multi.query|repeat_kv\(k, ?self\.n_heads"],
      [NOT_DTYPE, NOT_INPLACE, r"\[0, ?1, ?0, ?1"],
      {"GroupedQueryAttention.forward": """
        B, L, _ = x.shape
        q = self.q_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)
        k = self.k_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)
        v = self.v_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)
        k, v = repeat_kv(k, self.n_heads), repeat_kv(v, self.n_heads)  # one copy per query head
        if mask is None:
            mask = causal_mask(L, x.device)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        y = y.transpose(1, 2).contiguous().view(B, L, self.n_heads * self.d_head)
        return self.o_proj(y)
    """}),
    W("casts_input_to_float32",
      "forward casts x to float32 before the projections ('the layers expect float32'): a float64 or half-precision module fails with a dtype mismatch",
      "forward starts with x = x.float(), so a module in float64, float16 or bfloat16 (its parameters in that dtype) multiplies a float32 input by weights of another dtype and the projection raises a dtype mismatch; the docstring says the output keeps x's dtype and the parameters are in it: leave x as it is.",
      [FWD, r"\.float\(\)|float32|dtype|cast"],
      [NOT_INPLACE, r"\[0, ?1, ?0, ?1", r"bias"],
      {"GroupedQueryAttention.forward": """
        x = x.float()  # the projections expect float32
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
    """}),
    H("hf_expand_reshape",
      "ported from Hugging Face transformers' Llama repeat_kv (hidden_states[:, :, None].expand(...).reshape(...), x itself for n_rep == 1) and its hidden_shape = (*input_shape, -1, head_dim) views",
      {"repeat_kv": """
        batch, num_key_value_heads, slen, head_dim = x.shape
        if n_rep == 1:
            return x
        x = x[:, :, None, :, :].expand(batch, num_key_value_heads, n_rep, slen, head_dim)
        return x.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)
    """,
       "GroupedQueryAttention.forward": """
        input_shape = x.shape[:-1]
        hidden_shape = (*input_shape, -1, self.d_head)
        q = self.q_proj(x).view(hidden_shape).transpose(1, 2)
        k = self.k_proj(x).view(hidden_shape).transpose(1, 2)
        v = self.v_proj(x).view(hidden_shape).transpose(1, 2)
        n_rep = self.n_heads // self.n_kv_heads
        k, v = repeat_kv(k, n_rep), repeat_kv(v, n_rep)
        if mask is None:
            mask = causal_mask(x.shape[1], x.device)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        y = y.transpose(1, 2).reshape(*input_shape, -1).contiguous()
        return self.o_proj(y)
    """}),
    H("index_select_heads",
      "repeat_kv gathers heads with index_select(1, arange(H) // n_rep); forward splits heads with unflatten and merges with flatten",
      {"repeat_kv": """
        heads = torch.arange(x.size(1) * n_rep, device=x.device) // n_rep  # output head j reads input head j // n_rep
        return x.index_select(1, heads)
    """,
       "GroupedQueryAttention.forward": """
        L = x.size(1)
        q = self.q_proj(x).unflatten(-1, (self.n_heads, self.d_head)).transpose(1, 2)
        k = self.k_proj(x).unflatten(-1, (self.n_kv_heads, self.d_head)).transpose(1, 2)
        v = self.v_proj(x).unflatten(-1, (self.n_kv_heads, self.d_head)).transpose(1, 2)
        group = self.n_heads // self.n_kv_heads
        y, _ = scaled_dot_product_attention(
            q, repeat_kv(k, group), repeat_kv(v, group), causal_mask(L, x.device) if mask is None else mask
        )
        return self.o_proj(y.transpose(1, 2).flatten(2))
    """}),
]
