EX = 8
STUB = "exercise8_kv_cache.py"
UPDATE = """
T_new = k.size(2)
start, end = self.length, self.length + T_new
if end > self.max_len:
    raise ValueError(f"KV cache full: {end} tokens > max_len = {self.max_len}")
self.k[:, :, start:end] = k
self.v[:, :, start:end] = v
self.length = end
return self.k[:, :, :end], self.v[:, :, :end]
"""
INIT = """
self.max_len = max_len
self.k = torch.zeros(batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
self.v = torch.zeros(batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
self.length = 0
"""
FWD = """
B, T, _ = x.shape
q = self.q_proj(x).view(B, T, self.n_heads, self.d_head).transpose(1, 2)
k = self.k_proj(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)
v = self.v_proj(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)
past = 0
if cache is not None:
    past = len(cache)
    k, v = cache.update(k, v)  # every token so far: (B, Hkv, past + T, dh)
rep = self.n_heads // self.n_kv_heads
k, v = repeat_kv(k, rep), repeat_kv(v, rep)
mask = torch.ones(T, past + T, dtype=torch.bool, device=x.device).tril(diagonal=past)
y, _ = scaled_dot_product_attention(q, k, v, mask)
y = y.transpose(1, 2).contiguous().view(B, T, self.n_heads * self.d_head)
return self.o_proj(y)
"""
CORRECT = {
    "kv_cache_bytes": """
return 2 * n_layers * n_kv_heads * d_head * seq_len * batch_size * bytes_per_value
""",
    "KVCache.__init__": INIT,
    "KVCache.__len__": """
return self.length
""",
    "KVCache.reset": """
self.length = 0
""",
    "KVCache.update": UPDATE,
    "CachedGroupedQueryAttention.forward": FWD,
}
VARIANTS = [
    dict(slug="bytes_no_batch", kind="wrong",
         mistake="kv_cache_bytes never multiplies by batch_size, so only batch_size = 1 (the Llama example) is right",
         ideal="kv_cache_bytes leaves out the batch_size factor, so the result is right for one sequence (the Llama-2 example) but too small by a factor batch_size for a batch.",
         expect=[r"batch"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)", r"returns? a float|float instead of (an )?int"],
         bodies={"kv_cache_bytes": """
return 2 * n_layers * n_kv_heads * d_head * seq_len * bytes_per_value  # per sequence
"""}),
    dict(slug="bytes_float", kind="wrong",
         mistake="kv_cache_bytes counts bits and divides by 8 with /, returning a float (2147483648.0) instead of an int",
         ideal="kv_cache_bytes computes bits and divides by 8 with true division, so it returns a float such as 2147483648.0 instead of an int (the value compares equal, the type does not).",
         expect=[r"float|int\b|integer|type|true division|//"],
         reject=[r"batch(_size)? (is |was )?(missing|ignored|left out)|forgets? (the )?batch"],
         bodies={"kv_cache_bytes": """
bits = 2 * n_layers * n_kv_heads * d_head * seq_len * batch_size * bytes_per_value * 8
return bits / 8  # bits -> bytes
"""}),
    dict(slug="full_at_max_len", kind="wrong",
         mistake="update raises ValueError when the new length EQUALS max_len (end >= max_len), so the cache can never be filled to max_len",
         ideal="update tests end >= max_len instead of end > max_len, so appending tokens that exactly fill the cache to max_len raises ValueError although they fit (off by one at the boundary).",
         expect=[r">=|off[- ]by[- ]one|equal|exactly|boundary|fill", r"max_len|full|capacity"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"wrong device|device (mismatch|is wrong)|made on the cpu|cuda|gpu"],
         bodies={"KVCache.update": UPDATE.replace("if end > self.max_len:", "if end >= self.max_len:")}),
    dict(slug="length_before_check", kind="wrong",
         mistake="update advances the token count before checking max_len, so an overflowing append raises ValueError but leaves len(cache) changed",
         ideal="update adds T_new to the length before the max_len check, so an append that does not fit raises ValueError but leaves the cache's length advanced instead of leaving the cache as it was.",
         expect=[r"length|len\(|count", r"before (the )?(max_len )?(check|raise)|as it was|unchanged|leaves|advanced"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"wrong device|device (mismatch|is wrong)|made on the cpu|cuda|gpu"],
         bodies={"KVCache.update": """
T_new = k.size(2)
start = self.length
self.length += T_new
end = self.length
if end > self.max_len:
    raise ValueError(f"KV cache full: {end} tokens > max_len = {self.max_len}")
self.k[:, :, start:end] = k
self.v[:, :, start:end] = v
return self.k[:, :, :end], self.v[:, :, :end]
"""}),
    dict(slug="len_counts_nonzero", kind="wrong",
         mistake="__len__ counts the positions whose cached keys are not all zero, so tokens with all-zero keys are not counted (and later appends overwrite them)",
         ideal="__len__ counts positions with non-zero keys in the storage instead of keeping a counter, so a token whose keys are all zeros does not count and the next update overwrites it.",
         expect=[r"zero|nonzero|non-zero", r"len|count|__len__"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"wrong device|device (mismatch|is wrong)|made on the cpu|cuda|gpu"],
         bodies={"KVCache.__init__": INIT.replace("self.length = 0\n", ""),
                 "KVCache.__len__": """
return int((self.k != 0).any(dim=3).any(dim=1).any(dim=0).sum())  # positions holding a key
""",
                 "KVCache.reset": """
self.k.zero_()
self.v.zero_()
""",
                 "KVCache.update": """
T_new = k.size(2)
start = len(self)
end = start + T_new
if end > self.max_len:
    raise ValueError(f"KV cache full: {end} tokens > max_len = {self.max_len}")
self.k[:, :, start:end] = k
self.v[:, :, start:end] = v
return self.k[:, :, :end], self.v[:, :, :end]
"""}),
    dict(slug="reset_keeps_length", kind="wrong",
         mistake="reset zeroes the key and value storage but never sets the token count back to 0, so len(cache) is unchanged after reset",
         ideal="reset clears the storage with zero_() but does not reset the token count, so after reset len(cache) still reports the old tokens and the next sequence is appended after them.",
         expect=[r"reset", r"len|count|length"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"wrong device|device (mismatch|is wrong)|made on the cpu|cuda|gpu"],
         bodies={"KVCache.reset": """
self.k.zero_()  # forget every token
self.v.zero_()
"""}),
    dict(slug="storage_no_device", kind="wrong",
         mistake="__init__ allocates the key/value storage without device=, so a cache meant for the GPU lives on the CPU",
         ideal="__init__ calls torch.zeros(..., dtype=dtype) without device=device, so the storage is always on the CPU and a GPU cache returns CPU tensors (or fails on update).",
         expect=[r"device|cuda|gpu|cpu"],
         reject=[r"float32|float64|precision"],
         bodies={"KVCache.__init__": INIT.replace(", device=device)", ")")}),
    dict(slug="update_concatenates", kind="wrong",
         mistake="the cache grows with torch.cat on every update (starting from an empty tensor) instead of writing into storage allocated once for max_len",
         ideal="KVCache starts from empty tensors and torch.cat's the new keys and values on every update, reallocating each step instead of allocating max_len storage once and writing into slices of it.",
         expect=[r"cat|concat|realloc|allocat|grow", r"storage|once|max_len|slice|each (step|update)|every"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"wrong device|device (mismatch|is wrong)|made on the cpu|cuda|gpu"],
         bodies={"KVCache.__init__": """
self.max_len = max_len
self.k = torch.zeros(batch_size, n_kv_heads, 0, d_head, dtype=dtype, device=device)
self.v = torch.zeros(batch_size, n_kv_heads, 0, d_head, dtype=dtype, device=device)
self.length = 0
""", "KVCache.reset": """
self.k = self.k[:, :, :0]
self.v = self.v[:, :, :0]
self.length = 0
""", "KVCache.update": """
T_new = k.size(2)
if self.length + T_new > self.max_len:
    raise ValueError(f"KV cache full: {self.length + T_new} tokens > max_len = {self.max_len}")
self.k = torch.cat([self.k, k], dim=2)
self.v = torch.cat([self.v, v], dim=2)
self.length += T_new
return self.k, self.v
"""}),
    dict(slug="mask_first_rows", kind="wrong",
         mistake="forward builds the full (past+T, past+T) causal mask and keeps its FIRST T_new rows, which belong to the oldest positions, not the new tokens",
         ideal="forward takes the first T_new rows of the (past + T_new)-square causal mask, which are the rows of positions 0..T_new-1, so with tokens already cached the new queries cannot see most of the cache; it needs the last T_new rows (tril with diagonal=past).",
         expect=[r"first (t_new |t )?rows|wrong rows|last (t_new |t )?rows|oldest|positions 0", r"mask|causal|tril"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"wrong device|device (mismatch|is wrong)|made on the cpu|cuda|gpu"],
         bodies={"CachedGroupedQueryAttention.forward": FWD.replace(
             "mask = torch.ones(T, past + T, dtype=torch.bool, device=x.device).tril(diagonal=past)",
             "n = past + T\nmask = torch.ones(n, n, dtype=torch.bool, device=x.device).tril()[:T]  # (T, past + T)")}),
    dict(slug="past_after_update", kind="wrong",
         mistake="forward reads past = len(cache) - 1 AFTER cache.update, which is the right offset only for one new token: a chunk of T_new > 1 tokens lets earlier new tokens see later ones",
         ideal="forward sets the mask offset from len(cache) - 1 after the update instead of the cached length before it, which is only right when T_new = 1; for a chunk of several new tokens every new token sees all the new tokens, including later ones (the future leaks).",
         expect=[r"after (the )?(cache\.)?update|len\(cache\) ?[-−] ?1|offset", r"chunk|several|more than one|t_new ?> ?1|future|later"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"wrong device|device (mismatch|is wrong)|made on the cpu|cuda|gpu"],
         bodies={"CachedGroupedQueryAttention.forward": FWD.replace(
             "past = 0\nif cache is not None:\n    past = len(cache)\n    k, v = cache.update(k, v)  # every token so far: (B, Hkv, past + T, dh)",
             "past = 0\nif cache is not None:\n    k, v = cache.update(k, v)  # every token so far: (B, Hkv, len(cache), dh)\n    past = len(cache) - 1  # the tokens before the newest one").replace(
             "mask = torch.ones(T, past + T, dtype=torch.bool, device=x.device).tril(diagonal=past)",
             "mask = torch.ones(T, k.size(2), dtype=torch.bool, device=x.device).tril(diagonal=past)")}),
    dict(slug="one_buffer_narrow", kind="honest",
         method="math.prod for the bytes; the cache keeps ONE (2, B, H_kv, max_len, d_head) buffer written with narrow().copy_(); the cached mask is an arange comparison j <= past + i",
         ideal="Correct: one preallocated buffer holds keys and values, narrow() views are written and returned, the overflow check comes first, and key j is visible to new token i exactly when j <= past + i.",
         bodies={"kv_cache_bytes": """
import math as _m
return _m.prod((2, n_layers, n_kv_heads, d_head, seq_len, batch_size, bytes_per_value))
""", "KVCache.__init__": """
self._buf = torch.zeros(2, batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
self._cap = max_len
self._n = 0
""", "KVCache.__len__": """
return self._n
""", "KVCache.reset": """
self._n = 0
""", "KVCache.update": """
n_new = k.shape[-2]
if self._n + n_new > self._cap:
    raise ValueError(f"cannot append {n_new} tokens: {self._n} of {self._cap} already used")
self._buf[0].narrow(2, self._n, n_new).copy_(k)
self._buf[1].narrow(2, self._n, n_new).copy_(v)
self._n += n_new
return self._buf[0].narrow(2, 0, self._n), self._buf[1].narrow(2, 0, self._n)
""", "CachedGroupedQueryAttention.forward": """
B, T, _ = x.shape
q = self.q_proj(x).unflatten(-1, (self.n_heads, self.d_head)).transpose(1, 2)
k = self.k_proj(x).unflatten(-1, (self.n_kv_heads, self.d_head)).transpose(1, 2)
v = self.v_proj(x).unflatten(-1, (self.n_kv_heads, self.d_head)).transpose(1, 2)
past = len(cache) if cache is not None else 0
if cache is not None:
    k, v = cache.update(k, v)
qpos = torch.arange(past, past + T, device=x.device)  # positions of the new tokens
kpos = torch.arange(past + T, device=x.device)
mask = kpos[None, :] <= qpos[:, None]
n_rep = self.n_heads // self.n_kv_heads
y, _ = scaled_dot_product_attention(q, repeat_kv(k, n_rep), repeat_kv(v, n_rep), mask)
return self.o_proj(y.transpose(1, 2).flatten(2))
"""}),
    dict(slug="index_copy_single_token", kind="honest",
         method="a running product for the bytes; update writes with index_copy_ at arange(start, end) on the cache's device; one new token with a cache needs no mask, otherwise tril(diagonal=past)",
         ideal="Correct: index_copy_ writes the new positions into the storage allocated once, a single new token may read every cached key (so no mask is exact), and chunks use the shifted lower triangle.",
         bodies={"kv_cache_bytes": """
total = 2
for n in (n_layers, n_kv_heads, d_head, seq_len, batch_size, bytes_per_value):
    total *= int(n)
return total
""", "KVCache.__init__": """
shape = (batch_size, n_kv_heads, max_len, d_head)
self.keys = torch.zeros(shape, dtype=dtype, device=device)
self.values = torch.zeros(shape, dtype=dtype, device=device)
self.max_len, self.pos = max_len, 0
""", "KVCache.__len__": """
return self.pos
""", "KVCache.reset": """
self.pos = 0
""", "KVCache.update": """
start, end = self.pos, self.pos + k.shape[2]
if end > self.max_len:
    raise ValueError(f"KVCache overflow: {end} > {self.max_len}")
idx = torch.arange(start, end, device=self.keys.device)
self.keys.index_copy_(2, idx, k)
self.values.index_copy_(2, idx, v)
self.pos = end
return self.keys[:, :, :end], self.values[:, :, :end]
""", "CachedGroupedQueryAttention.forward": """
B, T, D = x.shape
H, H_kv, dh = self.n_heads, self.n_kv_heads, self.d_head
q = self.q_proj(x).reshape(B, T, H, dh).permute(0, 2, 1, 3)
k = self.k_proj(x).reshape(B, T, H_kv, dh).permute(0, 2, 1, 3)
v = self.v_proj(x).reshape(B, T, H_kv, dh).permute(0, 2, 1, 3)
past = 0
if cache is not None:
    past = len(cache)
    k, v = cache.update(k, v)
k, v = repeat_kv(k, H // H_kv), repeat_kv(v, H // H_kv)
if T == 1 and cache is not None:
    mask = None  # the newest token may read every cached token and itself
else:
    mask = torch.tril(torch.ones(T, past + T, dtype=torch.bool, device=x.device), diagonal=past)
y, _ = scaled_dot_product_attention(q, k, v, mask)
return self.o_proj(y.permute(0, 2, 1, 3).reshape(B, T, H * dh))
"""}),
]
