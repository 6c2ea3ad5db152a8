OK_BYTES = """
return 2 * n_layers * n_kv_heads * d_head * seq_len * batch_size * bytes_per_value
"""
OK_INIT = """
shape = (batch_size, n_kv_heads, max_len, d_head)
self.max_len = max_len
self.k = torch.zeros(shape, dtype=dtype, device=device)
self.v = torch.zeros(shape, dtype=dtype, device=device)
self.length = 0
"""
OK_LEN = """
return self.length
"""
OK_RESET = """
self.length = 0
"""
OK_UPDATE = """
start, end = self.length, self.length + k.size(2)
if end > self.max_len:
    raise ValueError(f"KV cache full: {end} tokens > max_len {self.max_len}")
self.k[:, :, start:end] = k
self.v[:, :, start:end] = v
self.length = end
return self.k[:, :, :end], self.v[:, :, :end]
"""
OK_FORWARD = """
B, T, _ = x.shape
q = self.q_proj(x).view(B, T, self.n_heads, self.d_head).transpose(1, 2)
k = self.k_proj(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)
v = self.v_proj(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)
past = 0
if cache is not None:
    past = len(cache)
    k, v = cache.update(k, v)
rep = self.n_heads // self.n_kv_heads
k, v = repeat_kv(k, rep), repeat_kv(v, rep)
mask = torch.ones(T, past + T, dtype=torch.bool, device=x.device).tril(diagonal=past)
y, _ = scaled_dot_product_attention(q, k, v, mask)
y = y.transpose(1, 2).contiguous().view(B, T, -1)
return self.o_proj(y)
"""


def ok(**over):
    b = {"kv_cache_bytes": OK_BYTES, "KVCache.__init__": OK_INIT, "KVCache.__len__": OK_LEN,
         "KVCache.reset": OK_RESET, "KVCache.update": OK_UPDATE,
         "CachedGroupedQueryAttention.forward": OK_FORWARD}
    b.update(over)
    return b


VARIANTS = [
    dict(
        name="bytes_no_factor_two", kind="wrong",
        mistake="kv_cache_bytes forgets the factor 2: it counts only the keys (or only the values), so Llama-2 7B comes out at 1 GiB instead of 2 GiB",
        ideal="The cache holds keys AND values, two tensors of the same size: multiply by 2.",
        expect=[r"\b2\b|two|twice|factor|keys and values|keys? AND values?|both|half"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies=ok(kv_cache_bytes="""
            return n_layers * n_kv_heads * d_head * seq_len * batch_size * bytes_per_value
            """),
    ),
    dict(
        name="len_counts_nonzero", kind="wrong",
        mistake="__len__ counts the positions whose keys are not all zero instead of keeping a counter, so a token whose keys are all zeros is not counted",
        ideal="len(cache) is the number of tokens appended, whatever their values; deducing it from the stored values breaks for tokens whose keys are all zeros.\nKeep an integer counter: advance it in update, set it to 0 in reset.",
        expect=[r"counter|count|zero|nonzero|non-zero|value|length|len\(|reset|track"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies=ok(**{"KVCache.__init__": """
            shape = (batch_size, n_kv_heads, max_len, d_head)
            self.max_len = max_len
            self.k = torch.zeros(shape, dtype=dtype, device=device)
            self.v = torch.zeros(shape, dtype=dtype, device=device)
            """, "KVCache.__len__": """
            used = (self.k != 0).any(dim=3).any(dim=1).any(dim=0)
            return int(used.sum())
            """, "KVCache.reset": """
            self.k.zero_()
            self.v.zero_()
            """, "KVCache.update": """
            start = len(self)
            end = start + k.size(2)
            if end > self.max_len:
                raise ValueError("KV cache is full")
            self.k[:, :, start:end] = k
            self.v[:, :, start:end] = v
            return self.k[:, :, :end], self.v[:, :, :end]
            """}),
    ),
    dict(
        name="update_concatenates", kind="wrong",
        mistake="update appends with torch.cat, building a new tensor every step instead of writing into the storage allocated once in __init__",
        ideal="torch.cat allocates and copies the whole past at every step (O(L²) copying, fragmented memory), and the returned keys are not views of\nthe storage. Write into self.k[:, :, start:end] and return slices of it.",
        expect=[r"cat|concat|alloc|copy|copies|storage|view|preallocat|in[- ]?place write|slice"],
        reject=[r"\bdtype\b"],
        bodies=ok(**{"KVCache.__init__": """
            shape = (batch_size, n_kv_heads, max_len, d_head)
            self.max_len = max_len
            self.k = torch.zeros(shape, dtype=dtype, device=device)[:, :, :0]
            self.v = torch.zeros(shape, dtype=dtype, device=device)[:, :, :0]
            """, "KVCache.__len__": """
            return self.k.size(2)
            """, "KVCache.reset": """
            self.k = self.k[:, :, :0]
            self.v = self.v[:, :, :0]
            """, "KVCache.update": """
            if len(self) + k.size(2) > self.max_len:
                raise ValueError("KV cache is full")
            self.k = torch.cat([self.k, k], dim=2)
            self.v = torch.cat([self.v, v], dim=2)
            return self.k, self.v
            """}),
    ),
    dict(
        name="full_off_by_one", kind="wrong",
        mistake="update raises ValueError when the new length reaches max_len (end >= max_len), so the cache can never be filled to exactly max_len tokens",
        ideal="A cache of max_len holds max_len tokens: only end > max_len overflows. Use >, not >=.",
        expect=[r"off[- ]by[- ]one|>=|exactly|full|boundar|max_len|last (slot|position)|one (token )?(too|short)"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies=ok(**{"KVCache.update": """
            start, end = self.length, self.length + k.size(2)
            if end >= self.max_len:
                raise ValueError(f"KV cache full: {end} tokens, max_len {self.max_len}")
            self.k[:, :, start:end] = k
            self.v[:, :, start:end] = v
            self.length = end
            return self.k[:, :, :end], self.v[:, :, :end]
            """}),
    ),
    dict(
        name="storage_default_dtype", kind="wrong",
        mistake="__init__ allocates the storage with torch.zeros(shape) and ignores dtype= and device=, so a float64 (or CUDA) cache stores float32 CPU tensors",
        ideal="The storage must be made in the cache's dtype and on its device: torch.zeros(shape, dtype=dtype, device=device).\nOtherwise float64 keys are rounded to float32 and the returned keys are in the wrong dtype.",
        expect=[r"dtype|device|float32|float64|precision|cpu|cuda"],
        reject=[r"in[- ]?place"],
        bodies=ok(**{"KVCache.__init__": """
            shape = (batch_size, n_kv_heads, max_len, d_head)
            self.max_len = max_len
            self.k = torch.zeros(shape)
            self.v = torch.zeros(shape)
            self.length = 0
            """}),
    ),
    dict(
        name="update_detach", kind="wrong",
        mistake="update writes k.detach() and v.detach() into the storage, so the keys and values it hands back carry no gradient to k_proj and v_proj",
        ideal="Writing the new keys into the storage in place keeps autograd's record; detaching them cuts the graph, and W_K, W_V get no gradient\nthrough the cached path. Write k and v themselves.",
        expect=[r"detach|gradient|grad\b|autograd|backward|graph"],
        reject=[r"\bdtype\b"],
        bodies=ok(**{"KVCache.update": """
            start, end = self.length, self.length + k.size(2)
            if end > self.max_len:
                raise ValueError("KV cache is full")
            self.k[:, :, start:end] = k.detach()
            self.v[:, :, start:end] = v.detach()
            self.length = end
            return self.k[:, :, :end], self.v[:, :, :end]
            """}),
    ),
    dict(
        name="mask_ignores_past", kind="wrong",
        mistake="forward builds the (T_new, past + T_new) mask with tril(diagonal=0), as if the new tokens started at position 0, so they cannot see most of the cache",
        ideal="New token i sits at position past + i and may see keys 0..past + i: shift the diagonal by past (tril(diagonal=past)).\nWith diagonal 0 the first new token sees only key 0.",
        expect=[r"past|offset|diagonal|position|shift|cache[d]? (tokens|keys)"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies=ok(**{"CachedGroupedQueryAttention.forward": OK_FORWARD.replace(".tril(diagonal=past)", ".tril()")}),
    ),
    dict(
        name="past_after_update", kind="wrong",
        mistake="forward reads past = len(cache) after cache.update, which already counts the new tokens, so the mask is shifted by T_new and each new token also sees the ones after it",
        ideal="Note past before appending: after update, len(cache) is past + T_new, and tril(diagonal=len(cache)) lets new token i read new tokens after it.\nTake past = len(cache) first, then update.",
        expect=[r"before|after|order|past|len\(cache\)|future|offset|new tokens|T_new"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies=ok(**{"CachedGroupedQueryAttention.forward": OK_FORWARD.replace(
            "    past = len(cache)\n    k, v = cache.update(k, v)\n",
            "    k, v = cache.update(k, v)\n    past = len(cache)\n").replace(
            "mask = torch.ones(T, past + T,", "mask = torch.ones(T, k.size(2),")}),
    ),
    dict(
        name="narrow_copy_arange_mask", kind="honest",
        method="math.prod for the bytes; storage made once with torch.empty and filled via narrow(...).copy_; the mask from comparing key positions with query positions",
        helpers="import math as _math",
        bodies=ok(kv_cache_bytes="""
            return 2 * _math.prod((n_layers, n_kv_heads, d_head, seq_len, batch_size, bytes_per_value))
            """, **{"KVCache.__init__": """
            self.capacity = max_len
            self.keys = torch.empty(batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
            self.values = torch.empty_like(self.keys)
            self.n = 0
            """, "KVCache.__len__": """
            return self.n
            """, "KVCache.reset": """
            self.n = 0
            """, "KVCache.update": """
            t = k.shape[2]
            if self.n + t > self.capacity:
                raise ValueError(f"cannot append {t} tokens to {self.n} cached (max_len {self.capacity})")
            self.keys.narrow(2, self.n, t).copy_(k)
            self.values.narrow(2, self.n, t).copy_(v)
            self.n += t
            return self.keys.narrow(2, 0, self.n), self.values.narrow(2, 0, self.n)
            """, "CachedGroupedQueryAttention.forward": """
            B, T, _ = x.shape
            q = self.q_proj(x).view(B, T, self.n_heads, self.d_head).transpose(1, 2)
            k = self.k_proj(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)
            v = self.v_proj(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)
            past = 0 if cache is None else len(cache)
            if cache is not None:
                k, v = cache.update(k, v)
            q_pos = past + torch.arange(T, device=x.device)
            k_pos = torch.arange(past + T, device=x.device)
            mask = k_pos[None, :] <= q_pos[:, None]
            rep = self.n_heads // self.n_kv_heads
            y, _ = scaled_dot_product_attention(q, repeat_kv(k, rep), repeat_kv(v, rep), mask)
            return self.o_proj(y.transpose(1, 2).reshape(B, T, self.n_heads * self.d_head))
            """}),
    ),
    dict(
        name="hf_static_cache", kind="honest",
        method="port of Hugging Face's StaticCache (index_copy_ at cache_position) and a grouped forward that broadcasts the KV heads instead of repeating them",
        bodies=ok(kv_cache_bytes="""
            per_token = 2 * n_kv_heads * d_head * bytes_per_value
            return per_token * n_layers * seq_len * batch_size
            """, **{"KVCache.__init__": """
            cache_shape = (batch_size, n_kv_heads, max_len, d_head)
            self.max_cache_len = max_len
            self.key_cache = torch.zeros(cache_shape, dtype=dtype, device=device)
            self.value_cache = torch.zeros(cache_shape, dtype=dtype, device=device)
            self._seen_tokens = 0
            """, "KVCache.__len__": """
            return self._seen_tokens
            """, "KVCache.reset": """
            self._seen_tokens = 0
            """, "KVCache.update": """
            new = k.shape[-2]
            if self._seen_tokens + new > self.max_cache_len:
                raise ValueError("KVCache: max_len exceeded")
            cache_position = torch.arange(self._seen_tokens, self._seen_tokens + new, device=k.device)
            self.key_cache.index_copy_(2, cache_position, k)
            self.value_cache.index_copy_(2, cache_position, v)
            self._seen_tokens += new
            end = self._seen_tokens
            return self.key_cache[:, :, :end], self.value_cache[:, :, :end]
            """, "CachedGroupedQueryAttention.forward": """
            B, T, _ = x.shape
            G, R, d = self.n_kv_heads, self.n_heads // self.n_kv_heads, self.d_head
            q = self.q_proj(x).view(B, T, G, R, d).permute(0, 2, 3, 1, 4)        # (B, G, R, T, d)
            k = self.k_proj(x).view(B, T, G, d).transpose(1, 2)                   # (B, G, T, d)
            v = self.v_proj(x).view(B, T, G, d).transpose(1, 2)
            past = len(cache) if cache is not None else 0
            if cache is not None:
                k, v = cache.update(k, v)
            mask = torch.ones(T, past + T, dtype=torch.bool, device=x.device).tril(past)
            y, _ = scaled_dot_product_attention(q, k.unsqueeze(2), v.unsqueeze(2), mask)
            y = y.permute(0, 3, 1, 2, 4).reshape(B, T, self.n_heads * d)
            return self.o_proj(y)
            """}),
    ),
]
