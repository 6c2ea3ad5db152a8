STUB = "exercise8_kv_cache.py"
FWD = "B, T, _ = x.shape\nq = self.q_proj(x).view(B, T, self.n_heads, self.d_head).transpose(1, 2)\nk = self.k_proj(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)\nv = self.v_proj(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)\npast = 0 if cache is None else len(cache)\nif cache is not None:\n    k, v = cache.update(k, v)\nrep = self.n_heads // self.n_kv_heads\nk, v = repeat_kv(k, rep), repeat_kv(v, rep)\nmask = torch.ones(T, past + T, dtype=torch.bool, device=x.device).tril(diagonal=past)\ny, _ = scaled_dot_product_attention(q, k, v, mask)\nreturn self.o_proj(y.transpose(1, 2).contiguous().view(B, T, -1))"
INIT = "shape = (batch_size, n_kv_heads, max_len, d_head)\nself.max_len = max_len\nself.k = torch.zeros(shape, dtype=dtype, device=device)\nself.v = torch.zeros(shape, dtype=dtype, device=device)\nself.pos = 0"
UPD = "start, end = self.pos, self.pos + k.shape[2]\nif end > self.max_len:\n    raise ValueError(f'KV cache full: {end} > {self.max_len}')\nself.k[:, :, start:end] = k\nself.v[:, :, start:end] = v\nself.pos = end\nreturn self.k[:, :, :end], self.v[:, :, :end]"
DEFAULT = [
    "return 2 * n_layers * n_kv_heads * d_head * seq_len * batch_size * bytes_per_value",
    INIT, "return self.pos", "self.pos = 0", UPD, FWD,
]
V = []
def add(kind, name, what, ideal, expect, reject, bodies, fails=(), helpers=None):
    V.append(dict(kind=kind, name=name, what=what, ideal=ideal, expect=expect, reject=reject,
                  bodies=bodies, fails=list(fails), helpers=helpers))
OKX, BADX = r"(?i)(pass|correct|full marks|no (mistake|problem))", r"(?i)(wrong|mistake|incorrect|fail)"
N = None

add("wrong", "bytes_ignores_batch",
    "kv_cache_bytes leaves batch_size out of the product, so it is only right for batch_size=1 (the Llama example still passes).",
    "Every sequence in the batch has its own cache: multiply by batch_size too.",
    r"(?i)(batch)", r"(?i)(factor (of )?2|bytes_per_value|dtype|device|mask)",
    ["return 2 * n_layers * n_kv_heads * d_head * seq_len * bytes_per_value", N, N, N, N, N], fails=["bytes"])
add("wrong", "overflow_after_advance",
    "update advances the token count before checking max_len, so an append that does not fit raises ValueError but leaves len(cache) changed.",
    "Your ValueError comes after self.pos has moved, so the failed append still changes the cache; check end > max_len before changing any state.",
    r"(?i)(before|state|len\(cache\)|leaves? the cache|unchanged|as it was|order)",
    r"(?i)(dtype|device|mask|gradient|batch)",
    [N, N, N, N, "start = self.pos\nself.pos += k.shape[2]\nif self.pos > self.max_len:\n    raise ValueError('KV cache full')\nself.k[:, :, start:self.pos] = k\nself.v[:, :, start:self.pos] = v\nreturn self.k[:, :, :self.pos], self.v[:, :, :self.pos]", N],
    fails=["cache_overflow"])
add("wrong", "full_cache_rejected",
    "update raises ValueError when the new end reaches max_len (end >= max_len), so the last slot can never be filled.",
    "Filling the cache exactly to max_len is allowed; raise only when end > max_len.",
    r"(?i)(>=|off[- ]by[- ]one|exactly|max_len|last slot|boundary|full)",
    r"(?i)(dtype|device|mask|gradient|batch)",
    [N, N, N, N, UPD.replace("if end > self.max_len", "if end >= self.max_len"), N], fails=["cache_overflow"])
add("wrong", "concatenate_copies",
    "update keeps the past keys with torch.cat on every call, returning fresh copies instead of views of one storage allocated once.",
    "torch.cat allocates and copies all past tokens at every step; write the new keys into the preallocated storage slice [:, :, start:end] and return views [:, :, :end].",
    r"(?i)(torch\.cat|concat|cop(y|ies)|view|storage|allocat)",
    r"(?i)(dtype|device|mask|gradient|batch)",
    [N, N, N, N, "T = k.shape[2]\nif self.pos + T > self.max_len:\n    raise ValueError('KV cache full')\nkeys = torch.cat([self.k[:, :, :self.pos], k], dim=2)\nvalues = torch.cat([self.v[:, :, :self.pos], v], dim=2)\nself.k[:, :, self.pos:self.pos + T] = k\nself.v[:, :, self.pos:self.pos + T] = v\nself.pos += T\nreturn keys, values", N],
    fails=["cache_views"])
add("wrong", "reset_reallocates",
    "reset allocates new zero storage (torch.zeros_like) instead of just setting the token count to 0, against the rule that reset allocates nothing.",
    "reset must keep the storage (no new allocation, no need to zero it): just set the number of cached tokens back to 0.",
    r"(?i)(reset|allocat|storage|zeros)",
    r"(?i)(dtype|device|mask|gradient|batch)",
    [N, N, N, "self.k = torch.zeros_like(self.k)\nself.v = torch.zeros_like(self.v)\nself.pos = 0", N, N], fails=["cache_reset"])
add("wrong", "storage_ignores_dtype",
    "__init__ allocates the storage with torch.zeros(shape, device=device) and no dtype=, so a float64 (or float16) cache stores and returns float32.",
    "The storage is made without dtype=dtype, so it is always float32 and your keys come back in the wrong dtype; pass dtype=dtype to torch.zeros.",
    r"(?i)(dtype|float32|float64|precision)",
    r"(?i)(device|mask|gradient|batch|reset)",
    [N, INIT.replace("dtype=dtype, ", ""), N, N, N, N], fails=["cache_basic"])
add("wrong", "past_read_after_update",
    "forward reads past = len(cache) AFTER cache.update, so the mask's diagonal is past + T_new and a chunk of new tokens can see the tokens after it.",
    "You take len(cache) after update, when it already includes the new tokens, so the mask lets new tokens see later new ones; note past = len(cache) before calling update.",
    r"(?i)(before|after|past|len\(cache\)|future|later|diagonal|order)",
    r"(?i)(dtype|device|gradient|batch|reset)",
    [N, N, N, N, N, FWD.replace("past = 0 if cache is None else len(cache)\nif cache is not None:\n    k, v = cache.update(k, v)", "if cache is not None:\n    k, v = cache.update(k, v)\npast = 0 if cache is None else len(cache)").replace("mask = torch.ones(T, past + T", "mask = torch.ones(T, k.shape[2]")],
    fails=["cached_chunks"])
add("wrong", "detached_cache_write",
    "update writes k.detach() and v.detach() into the storage, so the cached forward gives the right values but no gradient reaches k_proj and v_proj.",
    "Writing detached keys/values cuts them out of autograd, so the cached path trains nothing through K and V; write k and v themselves into the storage slice.",
    r"(?i)(detach|gradient|autograd|graph|k_proj|v_proj)",
    r"(?i)(dtype|device|mask|batch|reset)",
    [N, N, N, N, UPD.replace("= k\n", "= k.detach()\n").replace("= v\n", "= v.detach()\n"), N], fails=["cached_grad"])
add("honest", "single_buffer_index_copy",
    "one preallocated (2, B, H_kv, max_len, d) buffer for keys and values filled with narrow().copy_(); bytes via math.prod; the cached attention mask from position comparisons.",
    "", OKX, BADX,
    ["return math.prod((2, n_layers, n_kv_heads, d_head, seq_len, batch_size, bytes_per_value))",
     "self._kv = torch.zeros(2, batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)\nself._n = 0",
     "return int(self._n)",
     "self._n = 0",
     "t = k.size(-2)\nif self._n + t > self._kv.size(-2):\n    raise ValueError('too many tokens for this cache')\nself._kv[0].narrow(2, self._n, t).copy_(k)\nself._kv[1].narrow(2, self._n, t).copy_(v)\nself._n += t\nreturn self._kv[0].narrow(2, 0, self._n), self._kv[1].narrow(2, 0, self._n)",
     "B, T, D = x.shape\nsplit = lambda t, h: t.unflatten(-1, (h, self.d_head)).transpose(1, 2)\nq, k, v = split(self.q_proj(x), self.n_heads), split(self.k_proj(x), self.n_kv_heads), split(self.v_proj(x), self.n_kv_heads)\npast = len(cache) if cache is not None else 0\nif cache is not None:\n    k, v = cache.update(k, v)\nq_pos = past + torch.arange(T, device=x.device)\nk_pos = torch.arange(past + T, device=x.device)\nmask = k_pos[None, :] <= q_pos[:, None]\nr = self.n_heads // self.n_kv_heads\ny, _ = scaled_dot_product_attention(q, repeat_kv(k, r), repeat_kv(v, r), mask)\nreturn self.o_proj(y.transpose(1, 2).flatten(2))"])
add("honest", "setitem_properties",
    "storage as two tensors written with index assignment and a length kept as an attribute; the forward groups query heads as (B, H_kv, rep, T, d) so the cached KV heads broadcast without repeat_kv.",
    "", OKX, BADX,
    ["total = bytes_per_value\nfor n in (2, n_layers, n_kv_heads, d_head, seq_len, batch_size):\n    total *= n\nreturn total",
     "self.keys = torch.zeros(batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)\nself.values = torch.zeros_like(self.keys)\nself.length = 0",
     "return self.length",
     "self.length = 0",
     "new_len = self.length + k.shape[-2]\nif new_len > self.keys.shape[-2]:\n    raise ValueError(f'cache holds {self.keys.shape[-2]} tokens, asked for {new_len}')\nself.keys[..., self.length:new_len, :] = k\nself.values[..., self.length:new_len, :] = v\nself.length = new_len\nreturn self.keys[..., :new_len, :], self.values[..., :new_len, :]",
     "B, T, _ = x.shape\nH, Hkv, dh = self.n_heads, self.n_kv_heads, self.d_head\nrep = H // Hkv\nq = self.q_proj(x).view(B, T, Hkv, rep, dh).permute(0, 2, 3, 1, 4)\nk = self.k_proj(x).view(B, T, Hkv, dh).transpose(1, 2)\nv = self.v_proj(x).view(B, T, Hkv, dh).transpose(1, 2)\npast = 0\nif cache is not None:\n    past = len(cache)\n    k, v = cache.update(k, v)\nmask = torch.ones(T, past + T, dtype=torch.bool, device=x.device).tril(past)\ny, _ = scaled_dot_product_attention(q, k.unsqueeze(2), v.unsqueeze(2), mask)\nreturn self.o_proj(y.reshape(B, H, T, dh).transpose(1, 2).reshape(B, T, H * dh))"])
VARIANTS = V
