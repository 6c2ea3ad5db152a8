STUB = "exercise8_kv_cache.py"

BYTES_OK = """
return 2 * n_layers * n_kv_heads * d_head * seq_len * batch_size * bytes_per_value
"""
INIT_OK = """
shape = (batch_size, n_kv_heads, max_len, d_head)
self.keys = torch.zeros(shape, dtype=dtype, device=device)
self.values = torch.zeros(shape, dtype=dtype, device=device)
self.max_len = max_len
self.length = 0
"""
LEN_OK = """
return self.length
"""
RESET_OK = """
self.length = 0
"""
UPDATE_OK = """
start, end = self.length, self.length + k.size(2)
if end > self.max_len:
    raise ValueError(f"KV cache full: {end} tokens do not fit in max_len={self.max_len}")
self.keys[:, :, start:end] = k
self.values[:, :, start:end] = v
self.length = end
return self.keys[:, :, :end], self.values[:, :, :end]
"""
FWD_HEAD = """
B, T, _ = x.shape
q = self.q_proj(x).view(B, T, self.n_heads, self.d_head).transpose(1, 2)
k = self.k_proj(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)
v = self.v_proj(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)
"""
FWD_TAIL = """
rep = self.n_heads // self.n_kv_heads
k, v = repeat_kv(k, rep), repeat_kv(v, rep)
mask = torch.ones(T, past + T, dtype=torch.bool, device=x.device).tril(diagonal=past)
y, _ = scaled_dot_product_attention(q, k, v, mask)
y = y.transpose(1, 2).contiguous().view(B, T, -1)
return self.o_proj(y)
"""
FWD_OK = FWD_HEAD + """
past = 0
if cache is not None:
    past = len(cache)
    k, v = cache.update(k, v)
""" + FWD_TAIL
CACHE_OK = [INIT_OK, LEN_OK, RESET_OK, UPDATE_OK]

FILES = [
    dict(name="wrong_bytes_no_factor_two", kind="wrong",
         mistake="kv_cache_bytes leaves out the factor 2, counting only the keys (Llama-2 7B gives 1 GiB instead of 2 GiB)",
         ideal="kv_cache_bytes: the cache holds keys AND values, so multiply by 2; yours is exactly half",
         expect=r"\b2\b|two|keys and values|keys AND values|factor|half",
         reject=[r"dtype|device|batch|in-?place|mask"],
         bodies=["""
return n_layers * n_kv_heads * d_head * seq_len * batch_size * bytes_per_value
"""] + CACHE_OK + [FWD_OK]),
    dict(name="wrong_update_detaches", kind="wrong",
         mistake="update writes k.detach() and v.detach() into the storage, so the keys and values it returns carry no autograd record: no gradient reaches k_proj/v_proj through a cached forward",
         ideal="KVCache.update: writing k, v in place keeps autograd's record; .detach() cuts it, so W_K and W_V get no gradient through forward(x, cache)",
         expect=r"grad|autograd|detach|train|k_proj|v_proj",
         reject=[r"dtype|device|in-?place edit|wrong value|mask|ValueError"],
         bodies=[BYTES_OK, INIT_OK, LEN_OK, RESET_OK, """
start, end = self.length, self.length + k.size(2)
if end > self.max_len:
    raise ValueError(f"KV cache full: {end} tokens do not fit in max_len={self.max_len}")
self.keys[:, :, start:end] = k.detach()
self.values[:, :, start:end] = v.detach()
self.length = end
return self.keys[:, :, :end], self.values[:, :, :end]
""", FWD_OK]),
    dict(name="wrong_cache_ignores_dtype", kind="wrong",
         mistake="KVCache.__init__ allocates the storage with torch.zeros(shape, device=device) and no dtype=, so a float64/float16/bfloat16 cache stores and returns float32",
         ideal="KVCache: allocate the storage with dtype=dtype; without it the cache is float32 whatever was asked, and returns keys and values in the wrong dtype",
         expect=r"dtype|float32|float64|float16|bfloat16|half",
         reject=[r"device|in-?place|ValueError|grad"],
         bodies=[BYTES_OK, """
shape = (batch_size, n_kv_heads, max_len, d_head)
self.keys = torch.zeros(shape, device=device)
self.values = torch.zeros(shape, device=device)
self.max_len = max_len
self.length = 0
""", LEN_OK, RESET_OK, UPDATE_OK, FWD_OK]),
    dict(name="wrong_update_returns_copies", kind="wrong",
         mistake="update returns .clone() of the cached slices instead of views of the storage, copying every past token at every step (the docstring requires views)",
         ideal="KVCache.update: return the slices keys[:, :, :end] themselves (views of the storage); .clone() copies all past tokens on every call, which is what a KV cache is meant to avoid",
         expect=r"view|clone|cop(y|ies)|storage",
         reject=[r"dtype|device|mask|ValueError|grad|wrong value"],
         bodies=[BYTES_OK, INIT_OK, LEN_OK, RESET_OK, """
start, end = self.length, self.length + k.size(2)
if end > self.max_len:
    raise ValueError(f"KV cache full: {end} tokens do not fit in max_len={self.max_len}")
self.keys[:, :, start:end] = k
self.values[:, :, start:end] = v
self.length = end
return self.keys[:, :, :end].clone(), self.values[:, :, :end].clone()
""", FWD_OK]),
    dict(name="wrong_length_bumped_before_check", kind="wrong",
         mistake="update increases the token count before checking max_len, so an overflowing update raises ValueError but leaves len(cache) too large (the cache is corrupted)",
         ideal="KVCache.update: check that the new tokens fit BEFORE changing any state; raising after the count was bumped leaves the cache claiming tokens it never stored",
         expect=r"before|leaves? the cache|unchanged|state|len\(cache\)|length|ValueError|changing nothing",
         reject=[r"dtype|device|grad|view"],
         bodies=[BYTES_OK, INIT_OK, LEN_OK, RESET_OK, """
start = self.length
self.length += k.size(2)
if self.length > self.max_len:
    raise ValueError(f"KV cache full: {self.length} tokens do not fit in max_len={self.max_len}")
end = self.length
self.keys[:, :, start:end] = k
self.values[:, :, start:end] = v
return self.keys[:, :, :end], self.values[:, :, :end]
""", FWD_OK]),
    dict(name="wrong_len_counts_nonzero", kind="wrong",
         mistake="len(cache) counts the positions whose cached keys are not all zero instead of keeping a token counter, so a token whose keys are zero is not counted (and later tokens overwrite it)",
         ideal="KVCache.__len__: keep a counter of tokens appended; inferring the length from non-zero storage misses tokens whose keys are all zeros (the docstring says they count)",
         expect=r"zero|counter|count|len|length",
         reject=[r"dtype|in-?place|grad|view"],
         bodies=[BYTES_OK, """
shape = (batch_size, n_kv_heads, max_len, d_head)
self.keys = torch.zeros(shape, dtype=dtype, device=device)
self.values = torch.zeros(shape, dtype=dtype, device=device)
self.max_len = max_len
""", """
filled = self.keys.detach().abs().sum(dim=(0, 1, 3)) != 0  # (max_len,)
return int(filled.sum())
""", """
with torch.no_grad():
    self.keys.zero_()
    self.values.zero_()
""", """
start = len(self)
end = start + k.size(2)
if end > self.max_len:
    raise ValueError(f"KV cache full: {end} tokens do not fit in max_len={self.max_len}")
self.keys[:, :, start:end] = k
self.values[:, :, start:end] = v
return self.keys[:, :, :end], self.values[:, :, :end]
""", FWD_OK]),
    dict(name="wrong_mask_ignores_past", kind="wrong",
         mistake="forward builds the (T_new, past + T_new) mask with tril() and no diagonal=past, so new token i sees only keys 0..i instead of every cached token plus the new ones up to itself",
         ideal="CachedGroupedQueryAttention.forward: new token i sits at position past + i, so it must see keys 0..past+i: tril(diagonal=past); plain tril hides most of the cache",
         expect=r"past|diagonal|offset|position|cached tokens|tril",
         reject=[r"dtype|device|in-?place|grad|ValueError|view"],
         bodies=[BYTES_OK] + CACHE_OK + [FWD_HEAD + """
past = 0
if cache is not None:
    past = len(cache)
    k, v = cache.update(k, v)
rep = self.n_heads // self.n_kv_heads
k, v = repeat_kv(k, rep), repeat_kv(v, rep)
mask = torch.ones(T, past + T, dtype=torch.bool, device=x.device).tril()
y, _ = scaled_dot_product_attention(q, k, v, mask)
y = y.transpose(1, 2).contiguous().view(B, T, -1)
return self.o_proj(y)
"""]),
    dict(name="wrong_past_read_after_update", kind="wrong",
         mistake="forward reads past = len(cache) AFTER cache.update, so past already includes the new tokens and tril(diagonal=past) shifts by T_new: within a multi-token chunk each new token also sees the later new tokens (one token at a time still works)",
         ideal="CachedGroupedQueryAttention.forward: note past = len(cache) before update; read afterwards it counts the new tokens too, and the new tokens of a chunk can see the future",
         expect=r"before|after|past|future|order|len\(cache\)|chunk",
         reject=[r"dtype|device|in-?place|grad|ValueError|view"],
         bodies=[BYTES_OK] + CACHE_OK + [FWD_HEAD + """
past = 0
if cache is not None:
    k, v = cache.update(k, v)
    past = len(cache)
rep = self.n_heads // self.n_kv_heads
k, v = repeat_kv(k, rep), repeat_kv(v, rep)
mask = torch.ones(T, k.size(2), dtype=torch.bool, device=x.device).tril(diagonal=past)
y, _ = scaled_dot_product_attention(q, k, v, mask)
y = y.transpose(1, 2).contiguous().view(B, T, -1)
return self.o_proj(y)
"""]),
    dict(name="honest_single_buffer_positions", kind="honest",
         method="one (2, B, H_kv, max_len, d_head) buffer written with narrow().copy_(); the mask compares absolute key and query positions (arange) instead of tril; bytes via functools.reduce",
         helpers="""
import functools
import operator
""",
         bodies=["""
factors = (2, n_layers, n_kv_heads, d_head, seq_len, batch_size, bytes_per_value)
return functools.reduce(operator.mul, factors, 1)
""", """
self._kv = torch.zeros((2, batch_size, n_kv_heads, max_len, d_head), dtype=dtype, device=device)
self._capacity = max_len
self._filled = 0
""", """
return self._filled
""", """
self._filled = 0
""", """
n_new = k.shape[2]
if self._filled + n_new > self._capacity:
    raise ValueError(f"cannot append {n_new} tokens: {self._filled} cached, room for {self._capacity}")
self._kv[0].narrow(2, self._filled, n_new).copy_(k)
self._kv[1].narrow(2, self._filled, n_new).copy_(v)
self._filled += n_new
return self._kv[0].narrow(2, 0, self._filled), self._kv[1].narrow(2, 0, self._filled)
""", """
B, T, _ = x.shape
heads = lambda t, n: t.view(B, T, n, self.d_head).transpose(1, 2)
q = heads(self.q_proj(x), self.n_heads)
k = heads(self.k_proj(x), self.n_kv_heads)
v = heads(self.v_proj(x), self.n_kv_heads)
past = 0 if cache is None else len(cache)
if cache is not None:
    k, v = cache.update(k, v)
key_pos = torch.arange(past + T, device=x.device)
query_pos = past + torch.arange(T, device=x.device)
mask = key_pos[None, :] <= query_pos[:, None]  # (T, past + T)
group = self.n_heads // self.n_kv_heads
y, _ = scaled_dot_product_attention(q, repeat_kv(k, group), repeat_kv(v, group), mask)
return self.o_proj(y.transpose(1, 2).reshape(B, T, self.n_heads * self.d_head))
"""]),
    dict(name="honest_index_copy_scratch_cache", kind="honest",
         method="KVCache writes with index_copy_ along the token axis; forward with cache=None runs through a throw-away KVCache sized to the input so both paths share one code path; bytes via math.prod",
         bodies=["""
return 2 * math.prod((n_layers, n_kv_heads, d_head, seq_len, batch_size, bytes_per_value))
""", """
self.max_len = max_len
self.k_store = torch.zeros(batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
self.v_store = torch.zeros_like(self.k_store)
self.pos = 0
""", """
return self.pos
""", """
self.pos = 0
""", """
t_new = k.size(-2)
if not 0 <= self.pos + t_new <= self.max_len:
    raise ValueError("KVCache overflow: max_len %d, have %d, adding %d" % (self.max_len, self.pos, t_new))
where = torch.arange(self.pos, self.pos + t_new, device=self.k_store.device)
self.k_store.index_copy_(2, where, k)
self.v_store.index_copy_(2, where, v)
self.pos += t_new
return self.k_store[:, :, : self.pos], self.v_store[:, :, : self.pos]
""", """
B, T, _ = x.shape
if cache is None:
    cache = KVCache(B, self.n_kv_heads, self.d_head, T, dtype=x.dtype, device=x.device)
past = len(cache)
q = self.q_proj(x).unflatten(-1, (self.n_heads, self.d_head)).transpose(1, 2)
k_new = self.k_proj(x).unflatten(-1, (self.n_kv_heads, self.d_head)).transpose(1, 2)
v_new = self.v_proj(x).unflatten(-1, (self.n_kv_heads, self.d_head)).transpose(1, 2)
k, v = cache.update(k_new, v_new)
n_rep = self.n_heads // self.n_kv_heads
visible = torch.ones(T, past + T, dtype=torch.bool, device=x.device).tril(diagonal=past)
y, _ = scaled_dot_product_attention(q, repeat_kv(k, n_rep), repeat_kv(v, n_rep), visible)
return self.o_proj(y.transpose(1, 2).flatten(2))
"""]),
]
