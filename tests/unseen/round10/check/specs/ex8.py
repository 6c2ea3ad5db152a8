import textwrap

CORRECT = {
    "kv_cache_bytes": """
        return 2 * n_layers * n_kv_heads * d_head * seq_len * batch_size * bytes_per_value
    """,
    "KVCache.__init__": """
        shape = (batch_size, n_kv_heads, max_len, d_head)
        self.max_len = max_len
        self.k = torch.zeros(shape, dtype=dtype, device=device)
        self.v = torch.zeros(shape, dtype=dtype, device=device)
        self.length = 0
    """,
    "KVCache.__len__": """
        return self.length
    """,
    "KVCache.reset": """
        self.length = 0
    """,
    "KVCache.update": """
        start = self.length
        end = start + k.size(2)
        if end > self.max_len:
            raise ValueError(f"KV cache overflow: {end} tokens > max_len {self.max_len}")
        self.k[:, :, start:end] = k
        self.v[:, :, start:end] = v
        self.length = end
        return self.k[:, :, :end], self.v[:, :, :end]
    """,
    "CachedGroupedQueryAttention.forward": """
        B, T, _ = x.shape
        q = self.q_proj(x).view(B, T, self.n_heads, self.d_head).transpose(1, 2)  # (B, H, T, dh)
        k = self.k_proj(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)  # (B, Hkv, T, dh)
        v = self.v_proj(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)
        past = 0
        if cache is not None:
            past = len(cache)
            k, v = cache.update(k, v)  # (B, Hkv, past + T, dh)
        total = past + T
        mask = torch.tril(torch.ones(T, total, dtype=torch.bool, device=x.device), diagonal=past)
        rep = self.n_heads // self.n_kv_heads
        y, _ = scaled_dot_product_attention(q, repeat_kv(k, rep), repeat_kv(v, rep), mask)
        y = y.transpose(1, 2).contiguous().view(B, T, -1)
        return self.o_proj(y)
    """,
}

U = textwrap.dedent(CORRECT["KVCache.update"])
FW = textwrap.dedent(CORRECT["CachedGroupedQueryAttention.forward"])


def rep(src, old, new):
    assert old in src, old
    return src.replace(old, new)


WRONG = [
    dict(
        name="wrong_bytes_no_factor2",
        mistake="kv_cache_bytes forgets the factor 2 for keys AND values (Llama-2 7B gives 1 GiB instead of 2 GiB)",
        ideal="kv_cache_bytes counts only one of keys and values: the factor 2 is missing, so every result is half the right size (kv_cache_bytes(32, 32, 128, 4096) = 1 GiB, not 2 GiB)",
        expect=r"factor (of )?2|\b2\b|two|keys and values|keys AND values|both|half|twice|double",
        reject=[r"batch", r"bytes_per_value", r"dtype|device", r"overflow|max_len"],
    ),
    dict(
        name="wrong_storage_dtype",
        mistake="KVCache.__init__ allocates the storage with torch.zeros(shape, device=device) and ignores dtype, so the cache is always float32",
        ideal="the key/value storage ignores the dtype argument (always float32): a float64/float16 cache returns float32 keys and values, and attention of float64 queries against them fails; pass dtype=dtype to torch.zeros",
        expect=r"dtype|float32|float64|float16|half|double|precision|storage.{0,30}type",
        reject=[r"overflow|max_len|off.?by.?one", r"mask|causal", r"detach|no_grad|no gradient"],
    ),
    dict(
        name="wrong_overflow_off_by_one",
        mistake="KVCache.update raises ValueError when the new length reaches max_len (>=) instead of when it exceeds it, so the last slot can never be used",
        ideal="off by one in the overflow check: end >= max_len refuses an update that exactly fills the cache (end == max_len is allowed), so a cache of max_len tokens holds only max_len - 1",
        expect=r"off.?by.?one|>=|>\b|max_len|full|last (slot|position|token)|exactly|boundary|capacity",
        reject=[r"dtype", r"mask|causal", r"detach|no_grad|no gradient", r"reset"],
    ),
    dict(
        name="wrong_overflow_mutates",
        mistake="KVCache.update advances its length before the overflow check, so a refused update (ValueError) still changes len(cache)",
        ideal="update increments the token count and only then raises ValueError: after a refused append, len(cache) is too large (and later updates write past the real end); check first, change nothing on failure",
        expect=r"before (the )?(check|rais)|changes? nothing|unchanged|left as it was|mutat|increment|(advanc|updat)(es|ed|ing)? (the )?(length|count).{0,30}(before|first)|state.{0,30}(after|despite).{0,30}(error|raise|refus)|refused|failed (update|append)",
        reject=[r"dtype", r"mask|causal", r"detach|no_grad|no gradient", r">="],
    ),
    dict(
        name="wrong_len_counts_nonzero",
        mistake="KVCache.__len__ counts the positions whose keys are not all zero (no length counter), so a token whose keys are all zeros is not counted and is overwritten",
        ideal="len(cache) is derived from the storage contents (non-zero key rows) rather than a counter: a token with all-zero keys is not counted, len is wrong and the next update overwrites it; keep an explicit count",
        expect=r"zero|non.?zero|counter|content|value.?based|from the (storage|data)|all.?zero",
        reject=[r"dtype", r"mask|causal", r"detach|no_grad|no gradient", r"overflow"],
    ),
    dict(
        name="wrong_mask_no_past_offset",
        mistake="CachedGroupedQueryAttention.forward builds the (T_new, past + T_new) mask with torch.tril(..., diagonal=0) instead of diagonal=past, so new tokens cannot see most cached tokens",
        ideal="the mask ignores the offset of the cached tokens: row i allows keys 0..i instead of 0..past+i, so once the cache holds past > 0 tokens a new token cannot see the recent cached ones nor itself; use tril(diagonal=past)",
        expect=r"diagonal|offset|past|position|cached tokens?|earlier tokens?",
        reject=[r"dtype", r"detach|no_grad|no gradient", r"overflow|max_len", r"factor"],
    ),
    dict(
        name="wrong_past_after_update",
        mistake="CachedGroupedQueryAttention.forward reads past = len(cache) AFTER cache.update, so the mask offset counts the new tokens too and chunks of T_new > 1 are not causal among themselves",
        ideal="past is taken after update, so it already includes the new tokens: the mask diagonal is shifted by T_new and the new tokens see each other's future (right for one token at a time, wrong for chunks); read len(cache) before update",
        expect=r"(before|after) (the )?(cache\.)?update|after (appending|updating)|already (includes|contains|counts)|len\(cache\).{0,40}(after|includes)|order|chunk|new tokens? (see|attend|read)|double.?count",
        reject=[r"dtype", r"detach|no_grad|no gradient", r"overflow|max_len", r"factor"],
    ),
    dict(
        name="wrong_update_no_grad",
        mistake="KVCache.update writes into the storage under torch.no_grad(), so the keys and values it returns carry no autograd history (k_proj, v_proj get no gradient through the cache)",
        ideal="the in-place write is done inside torch.no_grad(): the returned views are cut from autograd, so forward(x, cache) gives no gradient to k_proj/v_proj (and x through them); write k, v in place with grad enabled",
        expect=r"no_grad|gradient|grad\b|autograd|backward|detach|history|train",
        reject=[r"dtype", r"mask|causal|diagonal", r"overflow|max_len"],
    ),
]

BODIES = {
    "wrong_bytes_no_factor2": {"kv_cache_bytes": """
        return n_layers * n_kv_heads * d_head * seq_len * batch_size * bytes_per_value
    """},
    "wrong_storage_dtype": {"KVCache.__init__": """
        shape = (batch_size, n_kv_heads, max_len, d_head)
        self.max_len = max_len
        self.k = torch.zeros(shape, device=device)
        self.v = torch.zeros(shape, device=device)
        self.length = 0
    """},
    "wrong_overflow_off_by_one": {"KVCache.update": rep(U, "if end > self.max_len:", "if end >= self.max_len:")},
    "wrong_overflow_mutates": {"KVCache.update": """
        start = self.length
        self.length += k.size(2)
        end = self.length
        if end > self.max_len:
            raise ValueError(f"KV cache overflow: {end} tokens > max_len {self.max_len}")
        self.k[:, :, start:end] = k
        self.v[:, :, start:end] = v
        return self.k[:, :, :end], self.v[:, :, :end]
    """},
    "wrong_len_counts_nonzero": {
        "KVCache.__init__": """
            shape = (batch_size, n_kv_heads, max_len, d_head)
            self.max_len = max_len
            self.k = torch.zeros(shape, dtype=dtype, device=device)
            self.v = torch.zeros(shape, dtype=dtype, device=device)
        """,
        "KVCache.__len__": """
            filled = self.k.detach().abs().sum(dim=(0, 1, 3)) != 0  # (max_len,) slots holding a token
            return int(filled.sum())
        """,
        "KVCache.reset": """
            self.k.zero_()
            self.v.zero_()
        """,
        "KVCache.update": """
            start = len(self)
            end = start + k.size(2)
            if end > self.max_len:
                raise ValueError(f"KV cache overflow: {end} tokens > max_len {self.max_len}")
            self.k[:, :, start:end] = k
            self.v[:, :, start:end] = v
            return self.k[:, :, :end], self.v[:, :, :end]
        """,
    },
    "wrong_mask_no_past_offset": {"CachedGroupedQueryAttention.forward": rep(
        FW, "diagonal=past)", "diagonal=0)")},
    "wrong_past_after_update": {"CachedGroupedQueryAttention.forward": rep(
        FW, "past = len(cache)\n    k, v = cache.update(k, v)  # (B, Hkv, past + T, dh)",
        "k, v = cache.update(k, v)  # (B, Hkv, past + T, dh)\n    past = len(cache)").replace(
        "total = past + T", "total = k.size(2)")},
    "wrong_update_no_grad": {"KVCache.update": """
        start = self.length
        end = start + k.size(2)
        if end > self.max_len:
            raise ValueError(f"KV cache overflow: {end} tokens > max_len {self.max_len}")
        with torch.no_grad():  # the cache is just storage
            self.k[:, :, start:end] = k
            self.v[:, :, start:end] = v
        self.length = end
        return self.k[:, :, :end], self.v[:, :, :end]
    """},
}

HONEST = [
    dict(
        name="honest_single_buffer_narrow",
        method="math.prod for the bytes; one (2, B, H_kv, max_len, d) buffer written with narrow().copy_(); mask from position comparisons",
        helpers="""
            from math import prod
        """,
        bodies={
            "kv_cache_bytes": """
                return prod((2, n_layers, n_kv_heads, d_head, seq_len, batch_size, bytes_per_value))
            """,
            "KVCache.__init__": """
                self._kv = torch.zeros(2, batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
                self._pos = 0
            """,
            "KVCache.__len__": """
                return self._pos
            """,
            "KVCache.reset": """
                self._pos = 0
            """,
            "KVCache.update": """
                t = k.shape[2]
                if self._pos + t > self._kv.shape[3]:
                    raise ValueError(f"cannot append {t} tokens: {self._pos} cached, room for {self._kv.shape[3]}")
                self._kv[0].narrow(2, self._pos, t).copy_(k)
                self._kv[1].narrow(2, self._pos, t).copy_(v)
                self._pos += t
                return self._kv[0].narrow(2, 0, self._pos), self._kv[1].narrow(2, 0, self._pos)
            """,
            "CachedGroupedQueryAttention.forward": """
                B, T, _ = x.shape
                heads = lambda t, h: t.view(B, T, h, self.d_head).permute(0, 2, 1, 3)
                q = heads(self.q_proj(x), self.n_heads)
                k = heads(self.k_proj(x), self.n_kv_heads)
                v = heads(self.v_proj(x), self.n_kv_heads)
                past = 0 if cache is None else len(cache)
                if cache is not None:
                    k, v = cache.update(k, v)
                q_pos = torch.arange(past, past + T, device=x.device)
                k_pos = torch.arange(past + T, device=x.device)
                mask = k_pos[None, :] <= q_pos[:, None]  # (T, past + T)
                n_rep = self.n_heads // self.n_kv_heads
                y, _ = scaled_dot_product_attention(q, repeat_kv(k, n_rep), repeat_kv(v, n_rep), mask)
                return self.o_proj(y.permute(0, 2, 1, 3).reshape(B, T, self.n_heads * self.d_head))
            """,
        },
    ),
    dict(
        name="honest_static_cache_port",
        method="port of Hugging Face's StaticCache idea: index_copy_ at the cache positions, then attention over the filled prefix; bytes counted per token then scaled",
        bodies={
            "kv_cache_bytes": """
                per_token = 2 * n_layers * n_kv_heads * d_head * bytes_per_value  # keys + values, all layers
                return per_token * seq_len * batch_size
            """,
            "KVCache.__init__": """
                self.max_cache_len = max_len
                cache_shape = (batch_size, n_kv_heads, max_len, d_head)
                self.key_cache = torch.zeros(cache_shape, dtype=dtype, device=device)
                self.value_cache = torch.zeros(cache_shape, dtype=dtype, device=device)
                self.seen_tokens = 0
            """,
            "KVCache.__len__": """
                return self.seen_tokens
            """,
            "KVCache.reset": """
                self.seen_tokens = 0
            """,
            "KVCache.update": """
                n_new = k.shape[-2]
                if self.seen_tokens + n_new > self.max_cache_len:
                    raise ValueError("KVCache is full")
                cache_position = torch.arange(self.seen_tokens, self.seen_tokens + n_new, device=self.key_cache.device)
                self.key_cache.index_copy_(2, cache_position, k)
                self.value_cache.index_copy_(2, cache_position, v)
                self.seen_tokens += n_new
                return self.key_cache[:, :, : self.seen_tokens], self.value_cache[:, :, : self.seen_tokens]
            """,
            "CachedGroupedQueryAttention.forward": """
                bsz, q_len, _ = x.size()
                query_states = self.q_proj(x).view(bsz, q_len, self.n_heads, self.d_head).transpose(1, 2)
                key_states = self.k_proj(x).view(bsz, q_len, self.n_kv_heads, self.d_head).transpose(1, 2)
                value_states = self.v_proj(x).view(bsz, q_len, self.n_kv_heads, self.d_head).transpose(1, 2)
                past_seen = len(cache) if cache is not None else 0
                if cache is not None:
                    key_states, value_states = cache.update(key_states, value_states)
                kv_len = key_states.shape[-2]
                causal = torch.ones(q_len, kv_len, dtype=torch.bool, device=x.device).tril(diagonal=past_seen)
                groups = self.n_heads // self.n_kv_heads
                attn_output, _ = scaled_dot_product_attention(
                    query_states, repeat_kv(key_states, groups), repeat_kv(value_states, groups), causal
                )
                attn_output = attn_output.transpose(1, 2).reshape(bsz, q_len, -1)
                return self.o_proj(attn_output)
            """,
        },
    ),
]
