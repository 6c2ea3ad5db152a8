from build import H, W

BASE = {
    "kv_cache_bytes": """
        return 2 * n_layers * n_kv_heads * d_head * seq_len * batch_size * bytes_per_value
    """,
    "KVCache.__init__": """
        shape = (batch_size, n_kv_heads, max_len, d_head)
        self.max_len = max_len
        self.keys = torch.zeros(shape, dtype=dtype, device=device)
        self.values = torch.zeros(shape, dtype=dtype, device=device)
        self.length = 0  # tokens cached so far
    """,
    "KVCache.__len__": """
        return self.length
    """,
    "KVCache.reset": """
        self.length = 0
    """,
    "KVCache.update": """
        start, end = self.length, self.length + k.size(2)
        if end > self.max_len:
            raise ValueError(f"KV cache full: {end} tokens > max_len = {self.max_len}")
        self.keys[:, :, start:end] = k
        self.values[:, :, start:end] = v
        self.length = end
        return self.keys[:, :, :end], self.values[:, :, :end]
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
        rep = self.n_heads // self.n_kv_heads
        k, v = repeat_kv(k, rep), repeat_kv(v, rep)
        mask = torch.ones(T, past + T, dtype=torch.bool, device=x.device).tril(diagonal=past)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        y = y.transpose(1, 2).contiguous().view(B, T, self.n_heads * self.d_head)
        return self.o_proj(y)
    """,
}

NOT_DTYPE = r"\bdtype\b.*(lost|changed|not kept)"
NOT_INPLACE = r"in.place"
UPD = r"update|KVCache"

FILES = [
    W("bytes_without_batch",
      "kv_cache_bytes leaves out batch_size: every sequence in the batch has its own keys and values",
      "kv_cache_bytes multiplies 2 · n_layers · n_kv_heads · d_head · seq_len · bytes_per_value but leaves out batch_size, so it is only right for batch_size = 1; each sequence in the batch has its own keys and values, so multiply by batch_size too.",
      [r"kv_cache_bytes", r"batch_size|batch|sequences?"],
      [r"factor (of )?2|keys and values \(2\)|n_heads", NOT_DTYPE, r"float"],
      {"kv_cache_bytes": """
        per_token = 2 * n_layers * n_kv_heads * d_head * bytes_per_value  # keys and values, every layer
        return per_token * seq_len
    """}),
    W("storage_ignores_device",
      "KVCache.__init__ allocates the storage with torch.zeros(shape, dtype=dtype) and never passes device: the cache always lives on the CPU",
      "KVCache.__init__ creates the key and value storage with torch.zeros(shape, dtype=dtype) but ignores its device argument, so the cache is always on the CPU: GPU keys are copied into CPU storage and update returns CPU tensors that the attention cannot combine with GPU queries; pass device=device.",
      [r"__init__|KVCache|storage", r"device"],
      [r"ValueError|max_len", NOT_DTYPE, r"torch\.cat"],
      {"KVCache.__init__": """
        shape = (batch_size, n_kv_heads, max_len, d_head)
        self.max_len = max_len
        self.keys = torch.zeros(shape, dtype=dtype)
        self.values = torch.zeros(shape, dtype=dtype)
        self.length = 0
    """}),
    W("full_check_off_by_one",
      "KVCache.update raises when the new length reaches max_len (end >= max_len): the cache can never be filled to exactly max_len tokens",
      "KVCache.update raises ValueError when end >= max_len, so appending the tokens that fill the cache exactly to max_len is refused; the storage has room for max_len tokens, so only end > max_len is an overflow.",
      [UPD, r">=|> ?max_len|exactly|off.by.one|fill(s|ed|ing)? (it |the cache )?(up )?to|max_len"],
      [r"device", NOT_DTYPE, r"torch\.cat"],
      {"KVCache.update": """
        start, end = self.length, self.length + k.size(2)
        if end >= self.max_len:
            raise ValueError(f"KV cache full: {end} tokens, max_len = {self.max_len}")
        self.keys[:, :, start:end] = k
        self.values[:, :, start:end] = v
        self.length = end
        return self.keys[:, :, :end], self.values[:, :, :end]
    """}),
    W("length_before_check",
      "KVCache.update increments self.length before checking for overflow, so a failing append raises ValueError but leaves len(cache) too large",
      "KVCache.update adds the new tokens to self.length before checking the overflow, so an append that does not fit raises ValueError but leaves len(cache) counting tokens that were never written (and later updates write at the wrong position); the docstring says a failing update changes nothing: check first, then update the state.",
      [UPD, r"length|len\(cache\)|count|state|changes? nothing|as it was|before (the )?check"],
      [r"device", NOT_DTYPE, r"torch\.cat"],
      {"KVCache.update": """
        start = self.length
        self.length += k.size(2)
        if self.length > self.max_len:
            raise ValueError(f"KV cache full: {self.length} tokens > max_len = {self.max_len}")
        self.keys[:, :, start:self.length] = k
        self.values[:, :, start:self.length] = v
        return self.keys[:, :, :self.length], self.values[:, :, :self.length]
    """}),
    W("hf_dynamic_cat",
      "KVCache grows with torch.cat on every update, as Hugging Face's DynamicCache does (ported from transformers' DynamicCache.update), instead of allocating max_len once and writing into it",
      "KVCache starts from empty tensors and concatenates each new block with torch.cat in update, as Hugging Face's DynamicCache does, instead of allocating (B, H_kv, max_len, d_head) once in __init__ and writing into that storage; every update allocates and copies the whole cache, which the docstring forbids.",
      [r"KVCache|update|__init__", r"torch\.cat|cat\b|concatenat|allocat|max_len once|storage|preallocat"],
      [r"device", NOT_DTYPE, r">="],
      {"KVCache.__init__": """
        self.max_len = max_len
        self.keys = torch.zeros(batch_size, n_kv_heads, 0, d_head, dtype=dtype, device=device)
        self.values = torch.zeros(batch_size, n_kv_heads, 0, d_head, dtype=dtype, device=device)
    """,
       "KVCache.__len__": """
        return self.keys.shape[-2]
    """,
       "KVCache.reset": """
        self.keys = self.keys[:, :, :0]
        self.values = self.values[:, :, :0]
    """,
       "KVCache.update": """
        if len(self) + k.shape[-2] > self.max_len:
            raise ValueError(f"KV cache full: max_len = {self.max_len}")
        self.keys = torch.cat([self.keys, k], dim=-2)
        self.values = torch.cat([self.values, v], dim=-2)
        return self.keys, self.values
    """}),
    W("reset_keeps_length",
      "KVCache.reset zeroes the storage but never sets the token count back to 0, so len(cache) is unchanged after reset",
      "KVCache.reset fills the storage with zeros but leaves self.length as it was, so len(cache) still counts the old tokens after reset and the next sequence is appended after them (or overflows); reset only has to set the count back to 0.",
      [r"reset", r"length|len\(cache\)|count|0 tokens|back to (0|zero)"],
      [r"device", NOT_DTYPE, r"torch\.cat"],
      {"KVCache.reset": """
        self.keys.zero_()
        self.values.zero_()
    """}),
    W("len_counts_nonzero_keys",
      "KVCache.__len__ counts the positions whose keys are not all zero, so a token whose keys are exactly zero is not counted (and is overwritten by the next update)",
      "KVCache.__len__ counts the cached positions whose keys are not all zero instead of keeping a counter, so a token whose keys are exactly zero is not counted and the next update overwrites it; the docstring says every token counts whatever its values: keep the number of appended tokens.",
      [r"__len__|len\(cache\)", r"zero|non.?zero|counter|count|whatever (their|its) values"],
      [r"device", NOT_DTYPE, r"torch\.cat"],
      {"KVCache.__init__": """
        shape = (batch_size, n_kv_heads, max_len, d_head)
        self.max_len = max_len
        self.keys = torch.zeros(shape, dtype=dtype, device=device)
        self.values = torch.zeros(shape, dtype=dtype, device=device)
    """,
       "KVCache.__len__": """
        filled = self.keys.abs().sum(dim=(0, 1, 3)) != 0  # (max_len,): a cached token has a key
        return int(filled.sum())
    """,
       "KVCache.reset": """
        self.keys.zero_()
        self.values.zero_()
    """,
       "KVCache.update": """
        start, end = len(self), len(self) + k.size(2)
        if end > self.max_len:
            raise ValueError(f"KV cache full: {end} tokens > max_len = {self.max_len}")
        self.keys[:, :, start:end] = k
        self.values[:, :, start:end] = v
        return self.keys[:, :, :end], self.values[:, :, :end]
    """}),
    W("past_read_after_update",
      "forward reads past = len(cache) after cache.update, so past already includes the new tokens and the mask lets each new token see the new tokens after it",
      "forward takes past = len(cache) after calling cache.update, so past already counts the T_new new tokens and tril(diagonal=past) lets every new token see all the new tokens after it (no causality inside a chunk); it is only right one token at a time. Read past before updating the cache.",
      [r"forward|CachedGroupedQueryAttention|mask", r"past|len\(cache\)|after (the )?update|before (the )?update|future|diagonal|causal"],
      [r"device", NOT_DTYPE, r"torch\.cat"],
      {"CachedGroupedQueryAttention.forward": """
        B, T, _ = x.shape
        q = self.q_proj(x).view(B, T, self.n_heads, self.d_head).transpose(1, 2)
        k = self.k_proj(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)
        v = self.v_proj(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)
        if cache is not None:
            k, v = cache.update(k, v)
        past = len(cache) if cache is not None else 0  # tokens before these
        rep = self.n_heads // self.n_kv_heads
        k, v = repeat_kv(k, rep), repeat_kv(v, rep)
        mask = torch.ones(T, k.size(2), dtype=torch.bool, device=x.device).tril(diagonal=past)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        y = y.transpose(1, 2).contiguous().view(B, T, self.n_heads * self.d_head)
        return self.o_proj(y)
    """}),
    W("update_detaches",
      "KVCache.update stores k.detach() and v.detach() 'so the cache holds no graph': attention to cached tokens then gives no gradient to the projections that made them",
      "KVCache.update writes k.detach() and v.detach() into the storage, cutting the autograd graph: queries that attend to cached tokens send no gradient back to the keys and values (and k_proj/v_proj) of the earlier chunks, so feeding a sequence in chunks trains differently from the whole sequence; the docstring says it must train: store k and v themselves.",
      [UPD, r"detach", r"grad|autograd|graph|train|backward"],
      [r"device", NOT_DTYPE, r"torch\.cat"],
      {"KVCache.update": """
        start, end = self.length, self.length + k.size(2)
        if end > self.max_len:
            raise ValueError(f"KV cache full: {end} tokens > max_len = {self.max_len}")
        self.keys[:, :, start:end] = k.detach()  # the cache holds values, not a graph
        self.values[:, :, start:end] = v.detach()
        self.length = end
        return self.keys[:, :, :end], self.values[:, :, :end]
    """}),
    H("narrow_copy_arange_mask",
      "bytes with math.prod; the cache writes with narrow(2, start, T).copy_ into storage from torch.empty and returns narrow(2, 0, end); the step mask compares key positions with past + arange",
      {"kv_cache_bytes": """
        return math.prod((2, n_layers, n_kv_heads, d_head, seq_len, batch_size, bytes_per_value))
    """,
       "KVCache.__init__": """
        self._k = torch.empty(batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
        self._v = torch.empty_like(self._k)
        self._n = 0
    """,
       "KVCache.__len__": """
        return self._n
    """,
       "KVCache.reset": """
        self._n = 0  # the old entries are simply overwritten later
    """,
       "KVCache.update": """
        t = k.shape[2]
        if self._n + t > self._k.shape[2]:
            raise ValueError(f"{self._n} cached + {t} new tokens do not fit in max_len = {self._k.shape[2]}")
        self._k.narrow(2, self._n, t).copy_(k)
        self._v.narrow(2, self._n, t).copy_(v)
        self._n += t
        return self._k.narrow(2, 0, self._n), self._v.narrow(2, 0, self._n)
    """,
       "CachedGroupedQueryAttention.forward": """
        B, T, _ = x.shape
        q = self.q_proj(x).unflatten(-1, (self.n_heads, self.d_head)).transpose(1, 2)
        k = self.k_proj(x).unflatten(-1, (self.n_kv_heads, self.d_head)).transpose(1, 2)
        v = self.v_proj(x).unflatten(-1, (self.n_kv_heads, self.d_head)).transpose(1, 2)
        past = len(cache) if cache is not None else 0
        if cache is not None:
            k, v = cache.update(k, v)
        group = self.n_heads // self.n_kv_heads
        query_pos = torch.arange(T, device=x.device)[:, None] + past  # new token i sits at past + i
        key_pos = torch.arange(past + T, device=x.device)[None, :]
        y, _ = scaled_dot_product_attention(q, repeat_kv(k, group), repeat_kv(v, group), key_pos <= query_pos)
        return self.o_proj(y.transpose(1, 2).flatten(2))
    """}),
    H("one_buffer_for_both",
      "keys and values share one (2, B, H_kv, max_len, d_head) buffer allocated once; bytes as per-token bytes times tokens; forward builds the step mask with tril(diagonal=past) on a fresh ones",
      {"kv_cache_bytes": """
        per_token = 2 * n_kv_heads * d_head * bytes_per_value  # keys + values of one token in one layer
        return per_token * n_layers * seq_len * batch_size
    """,
       "KVCache.__init__": """
        self.capacity = max_len
        self.kv = torch.zeros(2, batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
        self.count = 0
    """,
       "KVCache.__len__": """
        return self.count
    """,
       "KVCache.reset": """
        self.count = 0
    """,
       "KVCache.update": """
        new = k.shape[-2]
        if self.count + new > self.capacity:
            raise ValueError("appending %d tokens to %d would exceed max_len %d" % (new, self.count, self.capacity))
        end = self.count + new
        self.kv[0, :, :, self.count:end] = k
        self.kv[1, :, :, self.count:end] = v
        self.count = end
        return self.kv[0, :, :, :end], self.kv[1, :, :, :end]
    """,
       "CachedGroupedQueryAttention.forward": """
        B, T, D = x.shape
        q = self.q_proj(x).reshape(B, T, self.n_heads, self.d_head).permute(0, 2, 1, 3)
        k = self.k_proj(x).reshape(B, T, self.n_kv_heads, self.d_head).permute(0, 2, 1, 3)
        v = self.v_proj(x).reshape(B, T, self.n_kv_heads, self.d_head).permute(0, 2, 1, 3)
        past = 0 if cache is None else len(cache)
        if cache is not None:
            k, v = cache.update(k, v)
        mask = torch.tril(torch.ones(T, past + T, dtype=torch.bool, device=x.device), diagonal=past)
        n_rep = self.n_heads // self.n_kv_heads
        y, _ = scaled_dot_product_attention(q, repeat_kv(k, n_rep), repeat_kv(v, n_rep), mask)
        return self.o_proj(y.permute(0, 2, 1, 3).reshape(B, T, self.n_heads * self.d_head))
    """}),
]
