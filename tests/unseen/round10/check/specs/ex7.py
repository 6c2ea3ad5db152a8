CORRECT = {
    "repeat_kv": """
        return x.repeat_interleave(n_rep, dim=1)  # heads [0, 0, 1, 1, ...]
    """,
    "GroupedQueryAttention.__init__": """
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
        k, v = repeat_kv(k, rep), repeat_kv(v, rep)
        if mask is None:
            mask = causal_mask(L, x.device)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        y = y.transpose(1, 2).contiguous().view(B, L, -1)
        return self.o_proj(y)
    """,
}


WRONG = [
    dict(
        name="wrong_repeat_tiled",
        mistake="repeat_kv uses x.repeat(1, n_rep, 1, 1), giving head order [0, 1, 0, 1, ...] instead of [0, 0, 1, 1, ...]",
        ideal="Tensor.repeat tiles the whole head axis, so output head j is input head j % H_kv, not j // n_rep: query heads are paired with the wrong KV group (right only when H_kv == 1 or n_rep == 1); use repeat_interleave",
        expect=r"repeat_interleave|\.repeat\b|til(e|ed|es|ing)|order|\[0, ?1, ?0, ?1|j ?% ?|j ?// ?n_rep|interleav|group",
        reject=[r"dtype|device", r"causal", r"scal(e|ing)|sqrt", r"nan"],
    ),
    dict(
        name="wrong_expand_view",
        mistake="repeat_kv expands a new axis and merges it with .view, which raises for an expanded (stride-0) tensor unless H_kv == 1 or n_rep == 1",
        ideal="x[:, :, None].expand(...).view(B, H_kv*n_rep, L, d) cannot be a view (the expanded axis has stride 0), so it raises for GQA with H_kv > 1 and n_rep > 1; MHA and MQA happen to work; use reshape (or repeat_interleave)",
        expect=r"view|reshape|expand|stride|contiguous",
        reject=[r"order|\.repeat\b|til(e|ed)", r"causal", r"scal(e|ing)|sqrt", r"dtype"],
    ),
    dict(
        name="wrong_kv_heads_ignored",
        mistake="GroupedQueryAttention makes k_proj and v_proj full width (d_model -> d_model) and runs plain multi-head attention, ignoring n_kv_heads",
        ideal="k_proj and v_proj should map d_model -> n_kv_heads * d_head (smaller), not d_model -> d_model: the module has the wrong parameter shapes (the grader's state dict does not load) and never shares KV heads; right only when n_kv_heads == n_heads",
        expect=r"k_proj|v_proj|kv heads.{0,40}(ignored|not (used|shared))|n_kv_heads.{0,40}(ignored|unused|not used)|state.?dict|size mismatch|smaller|d_model ?(\*|x|->) ?d_model|full.?(width|size)|parameter (shape|count)|plain (multi.?head|mha)",
        reject=[r"repeat_interleave|til(e|ed)", r"causal", r"scal(e|ing)|sqrt", r"dtype"],
    ),
    dict(
        name="wrong_rep_inverted",
        mistake="GroupedQueryAttention.forward computes the repeat factor as n_kv_heads // n_heads (0 for real GQA) instead of n_heads // n_kv_heads",
        ideal="the group size is inverted: n_kv_heads // n_heads is 0 whenever n_kv_heads < n_heads, so repeat_kv returns no heads and attention fails; it only works when n_kv_heads == n_heads (plain MHA)",
        expect=r"n_heads ?// ?n_kv_heads|n_kv_heads ?// ?n_heads|invert|revers|swap|upside.?down|repeat factor|group size|(is|becomes|=) ?0\b|empty|no heads|0 heads",
        reject=[r"til(e|ed)|\[0, ?1", r"causal", r"scal(e|ing)|sqrt", r"dtype"],
    ),
    dict(
        name="wrong_concat_no_transpose",
        mistake="GroupedQueryAttention.forward concatenates the heads with y.reshape(B, L, -1) straight from (B, H, L, d_head), without transposing back",
        ideal="the attention output (B, H, L, d_head) is reshaped to (B, L, H*d_head) with no transpose(1, 2): rows mix different tokens' heads instead of concatenating one token's heads; right only when H == 1 or L == 1",
        expect=r"transpos|reshape|view|concat|merge|(B, ?H, ?L|B, ?L, ?H)|order of (the )?(dims|axes)|layout|mix",
        reject=[r"repeat_interleave|til(e|ed)", r"causal", r"scal(e|ing)|sqrt", r"dtype"],
    ),
    dict(
        name="wrong_double_scale",
        mistake="GroupedQueryAttention.forward divides q by sqrt(d_head) before calling the given attention, which scales again: scores end up divided by d_head",
        ideal="the given scaled_dot_product_attention already divides by √d_head; scaling q first makes the scores Q K^T / d_head (too flat, scaled twice); right only at d_head = 1",
        expect=r"twice|double|already|two times|d_head\b.{0,30}(instead|not)|divid(e|es|ed)? by d_head|QK\^?T ?/ ?d_head",
        reject=[r"repeat_interleave|til(e|ed)", r"causal", r"dtype|device", r"nan"],
    ),
    dict(
        name="wrong_float32_attention",
        mistake="GroupedQueryAttention.forward 'upcasts' q, k, v to float32 for a stable softmax and casts back: for a float64 module that is a downcast, so float64 outputs are only float32-accurate",
        ideal="forward runs the attention in float32 (q.float(), k.float(), v.float()) and casts the result back to x's dtype: harmless for float16/bfloat16/float32, but float64 inputs lose precision (errors around 1e-7 instead of 1e-15) in outputs and gradients; keep the inputs' dtype",
        expect=r"float32|float64|double|\.float\(\)|precision|dtype|upcast|downcast|cast|accura",
        reject=[r"repeat_interleave|til(e|ed)", r"causal", r"scal(e|ing) twice", r"transpos"],
    ),
    dict(
        name="wrong_ignores_given_mask",
        mistake="GroupedQueryAttention.forward always uses the causal mask and ignores the mask argument",
        ideal="forward overwrites `mask` with causal_mask(L) unconditionally: a caller's padding or full mask is ignored (a given mask should replace the causal one), so masked keys are still read and all-padding queries are not zero",
        expect=r"ignor|given mask|mask argument|mask (is )?(never|not) used|overwrit|always (causal|uses)|padding|replac",
        reject=[r"repeat_interleave|til(e|ed)", r"scal(e|ing)|sqrt", r"dtype|device", r"transpos"],
    ),
]

import textwrap

F0 = textwrap.dedent(CORRECT["GroupedQueryAttention.forward"])


class _F:
    def replace(self, old, new):
        assert old in F0, old
        return F0.replace(old, new)


F = _F()

BODIES = {
    "wrong_repeat_tiled": {"repeat_kv": """
        return x.repeat(1, n_rep, 1, 1)  # (B, H_kv*n_rep, L, d)
    """},
    "wrong_expand_view": {"repeat_kv": """
        B, H_kv, L, d = x.shape
        if n_rep == 1:
            return x
        x = x[:, :, None, :, :].expand(B, H_kv, n_rep, L, d)
        return x.view(B, H_kv * n_rep, L, d)
    """},
    "wrong_kv_heads_ignored": {
        "GroupedQueryAttention.__init__": """
            self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
            self.d_head = d_model // n_heads
            self.q_proj = nn.Linear(d_model, d_model, bias=False)
            self.k_proj = nn.Linear(d_model, d_model, bias=False)
            self.v_proj = nn.Linear(d_model, d_model, bias=False)
            self.o_proj = nn.Linear(d_model, d_model, bias=False)
        """,
        "GroupedQueryAttention.forward": """
            B, L, _ = x.shape
            q = self.q_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)
            k = self.k_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)
            v = self.v_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)
            if mask is None:
                mask = causal_mask(L, x.device)
            y, _ = scaled_dot_product_attention(q, k, v, mask)
            y = y.transpose(1, 2).contiguous().view(B, L, -1)
            return self.o_proj(y)
        """,
    },
    "wrong_rep_inverted": {"GroupedQueryAttention.forward": F.replace(
        "rep = self.n_heads // self.n_kv_heads", "rep = self.n_kv_heads // self.n_heads")},
    "wrong_concat_no_transpose": {"GroupedQueryAttention.forward": F.replace(
        "y = y.transpose(1, 2).contiguous().view(B, L, -1)", "y = y.reshape(B, L, -1)  # concatenate the heads")},
    "wrong_double_scale": {"GroupedQueryAttention.forward": F.replace(
        "rep = self.n_heads // self.n_kv_heads", "q = q / math.sqrt(self.d_head)  # scale the queries\nrep = self.n_heads // self.n_kv_heads")},
    "wrong_float32_attention": {"GroupedQueryAttention.forward": F.replace(
        "y, _ = scaled_dot_product_attention(q, k, v, mask)",
        "# softmax in float32 for stability, then back to x's dtype\ny, _ = scaled_dot_product_attention(q.float(), k.float(), v.float(), mask)\ny = y.to(x.dtype)")},
    "wrong_ignores_given_mask": {"GroupedQueryAttention.forward": F.replace(
        "if mask is None:\n    mask = causal_mask(L, x.device)", "mask = causal_mask(L, x.device)")},
}

HONEST = [
    dict(
        name="honest_hf_llama_port",
        method="port of Hugging Face Llama's repeat_kv (expand + reshape) and attention layout, adapted to the stub's API and the given attention",
        bodies={
            "repeat_kv": """
                # transformers/models/llama/modeling_llama.py: repeat_kv
                batch, num_key_value_heads, slen, head_dim = x.shape
                if n_rep == 1:
                    return x
                hidden_states = x[:, :, None, :, :].expand(batch, num_key_value_heads, n_rep, slen, head_dim)
                return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)
            """,
            "GroupedQueryAttention.__init__": """
                self.num_heads = self.n_heads = n_heads
                self.num_key_value_heads = self.n_kv_heads = n_kv_heads
                self.num_key_value_groups = n_heads // n_kv_heads
                self.head_dim = self.d_head = d_model // n_heads
                self.q_proj = nn.Linear(d_model, n_heads * self.head_dim, bias=False)
                self.k_proj = nn.Linear(d_model, n_kv_heads * self.head_dim, bias=False)
                self.v_proj = nn.Linear(d_model, n_kv_heads * self.head_dim, bias=False)
                self.o_proj = nn.Linear(n_heads * self.head_dim, d_model, bias=False)
            """,
            "GroupedQueryAttention.forward": """
                input_shape = x.shape[:-1]
                hidden_shape = (*input_shape, -1, self.head_dim)
                query_states = self.q_proj(x).view(hidden_shape).transpose(1, 2)
                key_states = self.k_proj(x).view(hidden_shape).transpose(1, 2)
                value_states = self.v_proj(x).view(hidden_shape).transpose(1, 2)
                key_states = repeat_kv(key_states, self.num_key_value_groups)
                value_states = repeat_kv(value_states, self.num_key_value_groups)
                if mask is None:
                    mask = causal_mask(x.shape[1], device=x.device)
                attn_output, _ = scaled_dot_product_attention(query_states, key_states, value_states, mask)
                attn_output = attn_output.transpose(1, 2).reshape(*input_shape, -1).contiguous()
                return self.o_proj(attn_output)
            """,
        },
    ),
    dict(
        name="honest_grouped_broadcast",
        method="repeat_kv by index_select with j // n_rep; forward never copies KV heads: q is viewed as (B, H_kv, rep, L, d) and broadcast against (B, H_kv, 1, L, d)",
        bodies={
            "repeat_kv": """
                src = torch.arange(x.size(1) * n_rep, device=x.device) // n_rep  # output head j <- j // n_rep
                return x.index_select(1, src)
            """,
            "GroupedQueryAttention.__init__": """
                self.n_heads = n_heads
                self.n_kv_heads = n_kv_heads
                self.d_head = d_model // n_heads
                inner = n_heads * self.d_head
                self.q_proj = nn.Linear(d_model, inner, bias=False)
                self.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
                self.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
                self.o_proj = nn.Linear(inner, d_model, bias=False)
            """,
            "GroupedQueryAttention.forward": """
                B, L, _ = x.shape
                G, H, dh = self.n_kv_heads, self.n_heads, self.d_head
                R = H // G
                # query head h = g * R + r belongs to KV head g
                q = self.q_proj(x).view(B, L, G, R, dh).permute(0, 2, 3, 1, 4)  # (B, G, R, L, dh)
                k = self.k_proj(x).view(B, L, G, 1, dh).permute(0, 2, 3, 1, 4)  # (B, G, 1, L, dh)
                v = self.v_proj(x).view(B, L, G, 1, dh).permute(0, 2, 3, 1, 4)
                if mask is None:
                    mask = causal_mask(L, x.device)
                m = mask.expand(B, H, L, L).reshape(B, G, R, L, L)
                y, _ = scaled_dot_product_attention(q, k, v, m)  # (B, G, R, L, dh)
                y = y.permute(0, 3, 1, 2, 4).reshape(B, L, H * dh)
                return self.o_proj(y)
            """,
        },
    ),
]
