_INIT = """
        self.max_len = max_len
        self.k = torch.zeros(batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
        self.v = torch.zeros(batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
        self.length = 0
"""
_UPDATE = """
        start, end = self.length, self.length + k.shape[2]
        if end > self.max_len:
            raise ValueError(f"KV cache full: {end} tokens > max_len {self.max_len}")
        self.k[:, :, start:end] = k
        self.v[:, :, start:end] = v
        self.length = end
        return self.k[:, :, :end], self.v[:, :, :end]
"""
_FWD = """
        B, T_new, _ = x.shape
        q = self.q_proj(x).view(B, T_new, self.n_heads, self.d_head).transpose(1, 2)
        k = self.k_proj(x).view(B, T_new, self.n_kv_heads, self.d_head).transpose(1, 2)
        v = self.v_proj(x).view(B, T_new, self.n_kv_heads, self.d_head).transpose(1, 2)
        past = 0
        if cache is not None:
            past = len(cache)
            k, v = cache.update(k, v)
        T = past + T_new
        rep = self.n_heads // self.n_kv_heads
        k, v = repeat_kv(k, rep), repeat_kv(v, rep)
        mask = torch.ones(T_new, T, dtype=torch.bool, device=x.device).tril(diagonal=past)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        y = y.transpose(1, 2).contiguous().view(B, T_new, self.n_heads * self.d_head)
        return self.o_proj(y)
"""
DEFAULT = {
    "kv_cache_bytes": """
        return 2 * n_layers * n_kv_heads * d_head * seq_len * batch_size * bytes_per_value
    """,
    "KVCache.__init__": _INIT,
    "KVCache.__len__": """
        return self.length
    """,
    "KVCache.reset": """
        self.length = 0
    """,
    "KVCache.update": _UPDATE,
    "CachedGroupedQueryAttention.forward": _FWD,
}

VARIANTS = [
    dict(kind="wrong", name="bytes_forgets_batch",
         mistake="kv_cache_bytes leaves batch_size out of the product, as in the chapter's per-sequence count",
         ideal="The product has no batch_size factor: each sequence in the batch has its own cache, so the bytes must be multiplied by batch_size too (right only for batch_size = 1).",
         expect=[r"batch"],
         bodies={"kv_cache_bytes": """
        return 2 * n_layers * n_kv_heads * d_head * seq_len * bytes_per_value
    """}),
    dict(kind="wrong", name="capacity_off_by_one",
         mistake="update refuses to fill the cache exactly: it raises when end >= max_len instead of end > max_len",
         ideal="The capacity check uses >=, so appending the tokens that bring the cache to exactly max_len raises ValueError although they fit; only end > max_len overflows (an off-by-one).",
         expect=[r">=|off[- ]by[- ]one|exactly", r"max_len|capacity|full"],
         bodies={"KVCache.update": """
        start, end = self.length, self.length + k.shape[2]
        if end >= self.max_len:
            raise ValueError(f"KV cache full: {end} tokens, max_len {self.max_len}")
        self.k[:, :, start:end] = k
        self.v[:, :, start:end] = v
        self.length = end
        return self.k[:, :, :end], self.v[:, :, :end]
    """}),
    dict(kind="wrong", name="no_capacity_check",
         mistake="update has no capacity check and relies on the slice assignment failing, which raises RuntimeError instead of ValueError",
         ideal="Without an explicit check, appending past max_len only fails inside the slice assignment (a shape-mismatch RuntimeError), not with the ValueError the contract promises; check end > max_len first and raise ValueError before writing anything.",
         expect=[r"ValueError", r"RuntimeError|check|max_len"],
         bodies={"KVCache.update": """
        start, end = self.length, self.length + k.shape[2]
        self.k[:, :, start:end] = k
        self.v[:, :, start:end] = v
        self.length = end
        return self.k[:, :, :end], self.v[:, :, :end]
    """}),
    dict(kind="wrong", name="concat_growing_cache",
         mistake="the cache grows with torch.cat on every update instead of writing into storage allocated once in __init__",
         ideal="update concatenates a new tensor every call (torch.cat), so memory is reallocated and copied at each step, which the contract forbids: storage for max_len tokens is allocated once and update writes into its slices.",
         expect=[r"torch\.cat|concat", r"alloc|storage|once|copied"],
         bodies={"KVCache.__init__": """
        self.max_len = max_len
        self.k = torch.zeros(batch_size, n_kv_heads, 0, d_head, dtype=dtype, device=device)
        self.v = torch.zeros(batch_size, n_kv_heads, 0, d_head, dtype=dtype, device=device)
    """, "KVCache.__len__": """
        return self.k.shape[2]
    """, "KVCache.reset": """
        self.k = self.k[:, :, :0]
        self.v = self.v[:, :, :0]
    """, "KVCache.update": """
        if self.k.shape[2] + k.shape[2] > self.max_len:
            raise ValueError("KV cache full")
        self.k = torch.cat([self.k, k], dim=2)
        self.v = torch.cat([self.v, v], dim=2)
        return self.k, self.v
    """}),
    dict(kind="wrong", name="len_counts_nonzero_keys",
         mistake="__len__ counts the positions whose cached keys are non-zero instead of keeping a counter, so a token with all-zero keys is not counted",
         ideal="Counting non-zero key positions infers the length from the data: a real token whose keys are all zeros (the docstring's example) is not counted, so len(cache) and the next write position are wrong; keep an explicit token counter.",
         expect=[r"non-?zero|zero keys|all zeros", r"count|len"],
         bodies={"KVCache.__len__": """
        return int((self.k != 0).any(dim=3).any(dim=1).any(dim=0).sum())
    """, "KVCache.reset": """
        self.k.zero_()
        self.v.zero_()
    """, "KVCache.update": """
        start = len(self)
        end = start + k.shape[2]
        if end > self.max_len:
            raise ValueError("KV cache full")
        self.k[:, :, start:end] = k
        self.v[:, :, start:end] = v
        return self.k[:, :, :end], self.v[:, :, :end]
    """, "KVCache.__init__": """
        self.max_len = max_len
        self.k = torch.zeros(batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
        self.v = torch.zeros(batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
    """}),
    dict(kind="wrong", name="mask_ignores_past",
         mistake="forward builds the (T_new, past + T_new) mask with tril(diagonal=0), so new token i sees only keys 0..i instead of 0..past+i",
         ideal="tril with diagonal=0 on a (T_new, past + T_new) mask lets new token i see keys 0..i only, ignoring that it sits at position past + i; after the first chunk it misses most cached tokens. The offset must be diagonal=past.",
         expect=[r"diagonal|offset", r"past"],
         bodies={"CachedGroupedQueryAttention.forward": _FWD.replace("tril(diagonal=past)", "tril(diagonal=0)")}),
    dict(kind="wrong", name="past_after_update",
         mistake="forward reads past = len(cache) AFTER cache.update, so past already includes the new tokens and they can see each other's future",
         ideal="len(cache) is read after update, so past counts the new tokens too and the mask diagonal is shifted by T_new: within a chunk of several new tokens each one sees the later ones (the future); read past before updating.",
         expect=[r"after (the )?update|before (the )?update|order", r"past|len\(cache\)"],
         bodies={"CachedGroupedQueryAttention.forward": _FWD.replace(
             "            past = len(cache)\n            k, v = cache.update(k, v)\n        T = past + T_new\n",
             "            k, v = cache.update(k, v)\n            past = len(cache)\n        T = k.shape[2]\n")}),
    dict(kind="wrong", name="cache_stores_detached",
         mistake="update writes k.detach() and v.detach() into the storage, so no gradient flows through the cached keys and values",
         ideal="Storing detached keys and values cuts autograd: the attention reads keys and values that have no history, so k_proj and v_proj get no gradient (it does not train like GQA); write k and v themselves.",
         expect=[r"detach", r"gradient|autograd|train"],
         bodies={"KVCache.update": _UPDATE.replace("= k\n", "= k.detach()\n").replace("= v\n", "= v.detach()\n")}),
    dict(kind="honest", name="narrow_copy_tail_rows",
         method="storage written through narrow(...).copy_(); the mask is the last T_new rows of a (T, T) causal mask built from aranges",
         bodies={"KVCache.__init__": """
        shape = (batch_size, n_kv_heads, max_len, d_head)
        self._keys = torch.zeros(shape, dtype=dtype, device=device)
        self._values = torch.zeros(shape, dtype=dtype, device=device)
        self._n = 0
    """, "KVCache.__len__": """
        return self._n
    """, "KVCache.reset": """
        self._n = 0
    """, "KVCache.update": """
        t = k.size(2)
        if self._n + t > self._keys.size(2):
            raise ValueError("not enough room in the KV cache")
        self._keys.narrow(2, self._n, t).copy_(k)
        self._values.narrow(2, self._n, t).copy_(v)
        self._n += t
        return self._keys.narrow(2, 0, self._n), self._values.narrow(2, 0, self._n)
    """, "CachedGroupedQueryAttention.forward": """
        B, T_new, _ = x.shape
        H, Hkv, dh = self.n_heads, self.n_kv_heads, self.d_head
        q = self.q_proj(x).unflatten(-1, (H, dh)).transpose(1, 2)
        k = self.k_proj(x).unflatten(-1, (Hkv, dh)).transpose(1, 2)
        v = self.v_proj(x).unflatten(-1, (Hkv, dh)).transpose(1, 2)
        if cache is not None:
            k, v = cache.update(k, v)
        T = k.shape[2]
        pos = torch.arange(T, device=x.device)
        mask = (pos[:, None] >= pos[None, :])[T - T_new:]
        y, _ = scaled_dot_product_attention(q, repeat_kv(k, H // Hkv), repeat_kv(v, H // Hkv), mask)
        return self.o_proj(y.transpose(1, 2).reshape(B, T_new, H * dh))
    """}),
    dict(kind="honest", name="stacked_storage_grouped",
         method="one stacked storage tensor (2, B, H_kv, max_len, d_head) for keys and values; forward groups the query heads (B, H_kv, group, T_new, d) and broadcasts the cached heads instead of repeat_kv",
         bodies={"kv_cache_bytes": """
        total = 2 * bytes_per_value
        for n in (n_layers, n_kv_heads, d_head, seq_len, batch_size):
            total *= n
        return int(total)
    """, "KVCache.__init__": """
        self.store = torch.zeros((2, batch_size, n_kv_heads, max_len, d_head), dtype=dtype, device=device)
        self.capacity = max_len
        self.filled = 0
    """, "KVCache.__len__": """
        return self.filled
    """, "KVCache.reset": """
        self.filled = 0
    """, "KVCache.update": """
        new = k.shape[-2]
        if new + self.filled > self.capacity:
            raise ValueError(f"{self.filled} + {new} tokens do not fit in {self.capacity}")
        self.store[0, :, :, self.filled:self.filled + new] = k
        self.store[1, :, :, self.filled:self.filled + new] = v
        self.filled += new
        return self.store[0, :, :, :self.filled], self.store[1, :, :, :self.filled]
    """, "CachedGroupedQueryAttention.forward": """
        B, T_new, _ = x.shape
        Hkv, g, dh = self.n_kv_heads, self.n_heads // self.n_kv_heads, self.d_head
        q = self.q_proj(x).reshape(B, T_new, Hkv, g, dh).permute(0, 2, 3, 1, 4)  # (B, Hkv, g, T_new, dh)
        k = self.k_proj(x).reshape(B, T_new, Hkv, dh).transpose(1, 2)
        v = self.v_proj(x).reshape(B, T_new, Hkv, dh).transpose(1, 2)
        past = 0 if cache is None else len(cache)
        if cache is not None:
            k, v = cache.update(k, v)
        rows = torch.arange(T_new, device=x.device).unsqueeze(1) + past
        cols = torch.arange(past + T_new, device=x.device).unsqueeze(0)
        y, _ = scaled_dot_product_attention(q, k.unsqueeze(2), v.unsqueeze(2), cols <= rows)
        return self.o_proj(y.permute(0, 3, 1, 2, 4).reshape(B, T_new, self.n_heads * dh))
    """}),
]
