# generate honest exercise-8 variants by replacing the KVCache class / forward in the solution
import re, sys, os
src = open('/work/scratch20/solutions/exercise8_kv_cache.py').read()
start = src.index('class KVCache:'); end = src.index('class CachedGroupedQueryAttention')
V = {}
V['h02_ex8_combined_buffer'] = '''class KVCache:
    """one buffer for keys and values"""
    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        self.kv = torch.empty(2, batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
        self.max_len, self.n = max_len, 0
    def __len__(self):
        return self.n
    def reset(self):
        self.n = 0
    def update(self, k, v):
        e = self.n + k.shape[2]
        if e > self.max_len:
            raise ValueError("full")
        self.kv[0, :, :, self.n:e] = k
        self.kv[1, :, :, self.n:e] = v
        self.n = e
        return self.kv[0, :, :, :e], self.kv[1, :, :, :e]


'''
V['h03_ex8_seq_major'] = '''class KVCache:
    """storage laid out (B, max_len, H, d); views transposed"""
    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        self.k = torch.zeros(batch_size, max_len, n_kv_heads, d_head, dtype=dtype, device=device)
        self.v = torch.zeros_like(self.k)
        self.max_len, self.n = max_len, 0
    def __len__(self):
        return self.n
    def reset(self):
        self.n = 0
    def update(self, k, v):
        e = self.n + k.shape[2]
        if e > self.max_len:
            raise ValueError("full")
        self.k[:, self.n:e].copy_(k.transpose(1, 2))
        self.v[:, self.n:e].copy_(v.transpose(1, 2))
        self.n = e
        return self.k[:, :e].transpose(1, 2), self.v[:, :e].transpose(1, 2)


'''
V['h04_ex8_module_buffers'] = '''class KVCache(nn.Module):
    """an nn.Module with registered buffers"""
    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        super().__init__()
        shape = (batch_size, n_kv_heads, max_len, d_head)
        self.register_buffer("keys", torch.zeros(shape, dtype=dtype, device=device), persistent=False)
        self.register_buffer("values", torch.zeros(shape, dtype=dtype, device=device), persistent=False)
        self.max_len, self.n = max_len, 0
    def __len__(self):
        return self.n
    def reset(self):
        self.n = 0
    def update(self, k, v):
        e = self.n + k.shape[2]
        if e > self.max_len:
            raise ValueError("full")
        self.keys.narrow(2, self.n, k.shape[2]).copy_(k)
        self.values.narrow(2, self.n, v.shape[2]).copy_(v)
        self.n = e
        return self.keys.narrow(2, 0, e), self.values.narrow(2, 0, e)


'''
V['h05_ex8_namespace'] = '''from types import SimpleNamespace


class KVCache:
    """storage held in a SimpleNamespace"""
    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        shape = (batch_size, n_kv_heads, max_len, d_head)
        self.buf = SimpleNamespace(k=torch.zeros(shape, dtype=dtype, device=device),
                                   v=torch.zeros(shape, dtype=dtype, device=device))
        self.max_len, self.n = max_len, 0
    def __len__(self):
        return self.n
    def reset(self):
        self.n = 0
    def update(self, k, v):
        e = self.n + k.shape[2]
        if e > self.max_len:
            raise ValueError("full")
        self.buf.k[:, :, self.n:e] = k
        self.buf.v[:, :, self.n:e] = v
        self.n = e
        return self.buf.k[:, :, :e], self.buf.v[:, :, :e]


'''
V['h06_ex8_index_copy'] = '''class KVCache:
    """index_copy_ with an arange of positions; length kept as a property"""
    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        shape = (batch_size, n_kv_heads, max_len, d_head)
        self.k = torch.empty(shape, dtype=dtype, device=device)
        self.v = torch.empty(shape, dtype=dtype, device=device)
        self._pos = 0
    @property
    def max_len(self):
        return self.k.shape[2]
    def __len__(self):
        return self._pos
    def reset(self):
        self._pos = 0
    def update(self, k, v):
        t = k.shape[-2]
        if self._pos + t > self.max_len:
            raise ValueError(f"cannot add {t} tokens")
        idx = torch.arange(self._pos, self._pos + t, device=self.k.device)
        self.k.index_copy_(2, idx, k)
        self.v.index_copy_(2, idx, v)
        self._pos += t
        return self.k[..., :self._pos, :], self.v[..., :self._pos, :]


'''
for name, cls in V.items():
    d = f'/work/round63/{name}/sub'; os.makedirs(d, exist_ok=True)
    open(f'{d}/exercise8_kv_cache.py', 'w').write(src[:start] + cls + src[end:])
# a forward with grouped heads (no repeat_kv) and an arange mask, with the solution's cache
fs = src.index('        B, T_new, _ = x.shape'); fe = src.index('        # END SOLUTION', fs)
fwd = '''        B, T, D = x.shape
        H, G, dh = self.n_heads, self.n_kv_heads, self.d_head
        q = self.q_proj(x).view(B, T, G, H // G, dh).permute(0, 2, 3, 1, 4)  # B G R T dh
        k = self.k_proj(x).view(B, T, G, dh).transpose(1, 2)
        v = self.v_proj(x).view(B, T, G, dh).transpose(1, 2)
        past = len(cache) if cache is not None else 0
        if cache is not None:
            k, v = cache.update(k, v)
        s = torch.einsum("bgrtd,bgsd->bgrts", q, k) / math.sqrt(dh)
        allowed = torch.arange(past + T, device=x.device)[None, :] <= (past + torch.arange(T, device=x.device))[:, None]
        s = s.masked_fill(~allowed, float("-inf"))
        w = torch.softmax(s, dim=-1)
        y = torch.einsum("bgrts,bgsd->bgrtd", w, v)  # B G R T dh
        y = y.permute(0, 3, 1, 2, 4).reshape(B, T, H * dh)
        return self.o_proj(y)
'''
d = '/work/round63/h07_ex8_grouped_einsum/sub'; os.makedirs(d, exist_ok=True)
open(f'{d}/exercise8_kv_cache.py', 'w').write(src[:fs] + fwd + src[fe:])
