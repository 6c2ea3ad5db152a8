exec(open('/tmp/r68gen/gen1.py').read().split("E1='exercise1_projection.py'")[0])
_g2=open('/tmp/r68gen/gen2.py').read(); exec("E6="+_g2.split("E6=")[1].split("w('h09")[0])
E5='exercise5_softmax.py'
w('h07b_ex5_logsumexp_guarded','exercise5',E5,'''
import math
import torch

def softmax(x, dim=-1):
    # log-sum-exp formulation; an all -inf slice is replaced by zeros BEFORE logsumexp
    dead = (x == float('-inf')).all(dim=dim, keepdim=True)
    xs = torch.where(dead, torch.zeros_like(x), x)
    out = torch.exp(xs - torch.logsumexp(xs, dim=dim, keepdim=True))
    return torch.where(dead, torch.zeros_like(out), out)

def scaled_dot_product_attention(q, k, v, mask=None):
    d_k = q.shape[-1]
    scores = torch.einsum('...qd,...kd->...qk', q, k) / d_k ** 0.5
    if mask is not None:
        scores = torch.where(mask, scores, torch.tensor(float('-inf'), dtype=scores.dtype, device=scores.device))
    weights = softmax(scores, dim=-1)
    out = torch.einsum('...qk,...kd->...qd', weights, v)
    return out, weights
''','HONEST (fixed version of h07): logsumexp softmax with the all -inf slice guarded on the input side. Expect full marks.')

E7='exercise7_gqa.py'
HDR7=HDR6
GQA_INIT='''
class GroupedQueryAttention(nn.Module):
    def __init__(self, d_model, n_heads, n_kv_heads):
        super().__init__()
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.d_head = d_model // n_heads
        self.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
        self.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.o_proj = nn.Linear(n_heads * self.d_head, d_model, bias=False)
'''
GQA_FWD_OK='''
    def forward(self, x, mask=None):
        B, L, _ = x.shape
        q = self.q_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)
        k = self.k_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)
        v = self.v_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)
        rep = self.n_heads // self.n_kv_heads
        k, v = repeat_kv(k, rep), repeat_kv(v, rep)
        if mask is None:
            mask = causal_mask(L, x.device)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.o_proj(y.transpose(1, 2).contiguous().view(B, L, -1))
'''
w('h10_ex7_expand_grouped','exercise7',E7,HDR7+'''
def repeat_kv(x, n_rep):
    # HF-style: expand a new axis and fold it into the heads
    if n_rep == 1:
        return x
    B, Hkv, L, d = x.shape
    return x[:, :, None, :, :].expand(B, Hkv, n_rep, L, d).reshape(B, Hkv * n_rep, L, d)
'''+GQA_INIT+'''
    def forward(self, x, mask=None):
        # no repeat at all: group the query heads under their KV head, as fast kernels do
        B, L, _ = x.shape
        H, Hkv, dh = self.n_heads, self.n_kv_heads, self.d_head
        g = H // Hkv
        q = self.q_proj(x).view(B, L, Hkv, g, dh).permute(0, 2, 3, 1, 4)   # (B, Hkv, g, L, dh)
        k = self.k_proj(x).view(B, L, Hkv, dh).transpose(1, 2)[:, :, None]  # (B, Hkv, 1, L, dh)
        v = self.v_proj(x).view(B, L, Hkv, dh).transpose(1, 2)[:, :, None]
        if mask is None:
            mask = causal_mask(L, x.device)
        elif mask.dim() == 4:
            # (B|1, H|1, L|1, L|1) -> (B|1, Hkv|1, g|1, L|1, L|1)
            mb, mh, ml, mk = mask.shape
            if mh == 1:
                mask = mask[:, :, None]
            else:
                mask = mask.reshape(mb, Hkv, g, ml, mk)
        y, _ = scaled_dot_product_attention(q, k, v, mask)                 # (B, Hkv, g, L, dh)
        y = y.permute(0, 3, 1, 2, 4).reshape(B, L, H * dh)
        return self.o_proj(y)
''','HONEST: repeat_kv via expand+reshape (HF); forward never repeats: query heads grouped as (B, Hkv, g, L, dh) against (B, Hkv, 1, L, dh) keys, with mask reshaped accordingly. Head h = kv h//g, g index h%g: consistent with repeat_interleave. Masks of 2/3 dims broadcast as-is. Expect full marks.')

w('m24_ex7_repeat_tiled','exercise7',E7,HDR7+'''
def repeat_kv(x, n_rep):
    return x.repeat(1, n_rep, 1, 1)     # tiles: heads [0,1,0,1,...]
'''+GQA_INIT+GQA_FWD_OK,'MISTAKE: repeat instead of repeat_interleave: KV head order [0,1,0,1] -> query head h uses KV head h % Hkv instead of h // rep. Good diagnosis: each KV head must serve a CONTIGUOUS group of query heads (repeat_interleave, [0,0,0,1,1,1]); plain repeat tiles the heads round-robin. Same in forward.')

w('m25_ex7_float32_softmax','exercise7',E7,HDR7+'''
def repeat_kv(x, n_rep):
    return x.repeat_interleave(n_rep, dim=1)
'''+GQA_INIT+'''
    def forward(self, x, mask=None):
        B, L, _ = x.shape
        q = self.q_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)
        k = self.k_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)
        v = self.v_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)
        rep = self.n_heads // self.n_kv_heads
        k, v = repeat_kv(k, rep), repeat_kv(v, rep)
        if mask is None:
            mask = causal_mask(L, x.device)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
        scores = scores.masked_fill(~mask, float('-inf'))
        w = torch.softmax(scores.float(), dim=-1).to(q.dtype)   # "stable" float32 softmax, as libraries do
        w = w.masked_fill(~mask, 0.0)
        y = w @ v
        return self.o_proj(y.transpose(1, 2).contiguous().view(B, L, -1))
''','MISTAKE: softmax computed in float32 then cast back: fine for fp16/bf16/fp32, loses precision for float64 (docstring forbids). Good diagnosis: float64 input computed partly in float32: values off by ~1e-7 relative; keep the input dtype all the way.')

w('m26_ex7_kv_heads_mod','exercise7',E7,HDR7+'''
def repeat_kv(x, n_rep):
    return x.repeat_interleave(n_rep, dim=1)
'''+GQA_INIT+'''
    def forward(self, x, mask=None):
        B, L, _ = x.shape
        q = self.q_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)
        k = self.k_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)
        v = self.v_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)
        # pick each query head's KV head by index -- but with modulo instead of division
        idx = torch.arange(self.n_heads, device=x.device) % self.n_kv_heads
        k, v = k[:, idx], v[:, idx]
        if mask is None:
            mask = causal_mask(L, x.device)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.o_proj(y.transpose(1, 2).contiguous().view(B, L, -1))
''','MISTAKE: repeat_kv correct, but forward maps query head h to KV head h % H_kv (round robin) instead of h // (H/H_kv). Good diagnosis: GQA group mapping wrong in forward: query heads 0..g-1 share KV head 0, etc.; yours interleaves.')

E8='exercise8_kv_cache.py'
HDR8='''
import math
import torch
import torch.nn as nn

def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask, 0.0)
    return weights @ v, weights

def repeat_kv(x, n_rep):
    return x.repeat_interleave(n_rep, dim=1)
'''
BYTES_OK='''
def kv_cache_bytes(n_layers, n_kv_heads, d_head, seq_len, batch_size=1, bytes_per_value=2):
    return 2 * n_layers * n_kv_heads * d_head * seq_len * batch_size * bytes_per_value
'''
CACHE_OK='''
class KVCache:
    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        shape = (batch_size, n_kv_heads, max_len, d_head)
        self.k = torch.zeros(shape, dtype=dtype, device=device)
        self.v = torch.zeros(shape, dtype=dtype, device=device)
        self.max_len = max_len
        self.n = 0

    def __len__(self):
        return self.n

    def reset(self):
        self.n = 0

    def update(self, k, v):
        start, end = self.n, self.n + k.shape[2]
        if end > self.max_len:
            raise ValueError("cache full")
        self.k[:, :, start:end] = k
        self.v[:, :, start:end] = v
        self.n = end
        return self.k[:, :, :end], self.v[:, :, :end]
'''
CGQA_HEAD='''
class CachedGroupedQueryAttention(nn.Module):
    def __init__(self, d_model, n_heads, n_kv_heads):
        super().__init__()
        assert d_model % n_heads == 0
        assert n_heads % n_kv_heads == 0
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.d_head = d_model // n_heads
        self.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
        self.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.o_proj = nn.Linear(n_heads * self.d_head, d_model, bias=False)
'''
def cgqa_fwd(maskline):
    return '''
    def forward(self, x, cache=None):
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
        S = k.shape[2]
        ''' + maskline + '''
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.o_proj(y.transpose(1, 2).contiguous().view(B, T, -1))
'''
MASK_OK="mask = torch.ones(T, S, dtype=torch.bool, device=x.device).tril(diagonal=past)"
w('h11_ex8_arange_mask_index','exercise8',E8,HDR8+'''
def kv_cache_bytes(n_layers, n_kv_heads, d_head, seq_len, batch_size=1, bytes_per_value=2):
    numbers_per_token = 2 * n_kv_heads * d_head          # keys and values, per layer
    return int(n_layers * numbers_per_token * bytes_per_value * seq_len * batch_size)

class KVCache:
    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        # one storage holding keys and values: (2, B, Hkv, max_len, d)
        self._kv = torch.empty(2, batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
        self._pos = 0

    def __len__(self):
        return self._pos

    def reset(self):
        self._pos = 0

    def update(self, k, v):
        t = k.size(-2)
        if self._pos + t > self._kv.size(3):
            raise ValueError(f"KV cache overflow: {self._pos} + {t} > {self._kv.size(3)}")
        self._kv[0, :, :, self._pos:self._pos + t].copy_(k)
        self._kv[1, :, :, self._pos:self._pos + t].copy_(v)
        self._pos += t
        return self._kv[0, :, :, :self._pos], self._kv[1, :, :, :self._pos]
'''+CGQA_HEAD+cgqa_fwd("qpos = torch.arange(past, past + T, device=x.device)[:, None]; mask = torch.arange(S, device=x.device)[None, :] <= qpos"),
'HONEST: single (2,B,Hkv,max,d) storage allocated with torch.empty, copy_ into slices; mask by comparing absolute positions. Expect full marks.')

w('m27_ex8_bytes_no_2','exercise8',E8,HDR8+'''
def kv_cache_bytes(n_layers, n_kv_heads, d_head, seq_len, batch_size=1, bytes_per_value=2):
    return n_layers * n_kv_heads * d_head * seq_len * batch_size * bytes_per_value
'''+CACHE_OK+CGQA_HEAD+cgqa_fwd(MASK_OK),'MISTAKE: forgot the factor 2 (keys AND values). Good diagnosis: half the expected bytes: cache holds keys and values.')

w('m28_ex8_mask_no_past','exercise8',E8,HDR8+BYTES_OK+CACHE_OK+CGQA_HEAD+cgqa_fwd("mask = torch.ones(T, S, dtype=torch.bool, device=x.device).tril()   # forgot the offset"),
'MISTAKE: mask tril() without diagonal=past: new token i sees only keys 0..i instead of 0..past+i (KV-cache off-by-past). Single-token decode sees only key 0. Good diagnosis: the new tokens sit at positions past..past+T-1; mask row i must allow keys up to past+i (tril diagonal=past).')

w('m29_ex8_mask_off_by_one','exercise8',E8,HDR8+BYTES_OK+CACHE_OK+CGQA_HEAD+cgqa_fwd("mask = torch.ones(T, S, dtype=torch.bool, device=x.device).tril(diagonal=past - 1)   # hides the token itself"),
'MISTAKE: diagonal=past-1: each new token cannot see itself (first token with empty cache sees nothing -> zero output). Good diagnosis: off by one: a token attends to itself too (keys 0..past+i inclusive).')

w('m30_ex8_update_returns_new_only','exercise8',E8,HDR8+BYTES_OK+'''
class KVCache:
    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        shape = (batch_size, n_kv_heads, max_len, d_head)
        self.k = torch.zeros(shape, dtype=dtype, device=device)
        self.v = torch.zeros(shape, dtype=dtype, device=device)
        self.max_len = max_len
        self.n = 0

    def __len__(self):
        return self.n

    def reset(self):
        self.n = 0

    def update(self, k, v):
        start, end = self.n, self.n + k.shape[2]
        if end > self.max_len:
            raise ValueError("cache full")
        self.k[:, :, start:end] = k
        self.v[:, :, start:end] = v
        self.n = end
        return self.k[:, :, start:end], self.v[:, :, start:end]   # only the new tokens
'''+CGQA_HEAD+'''
    def forward(self, x, cache=None):
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
        S = k.shape[2]
        mask = torch.ones(T, S, dtype=torch.bool, device=x.device).tril()
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.o_proj(y.transpose(1, 2).contiguous().view(B, T, -1))
''','MISTAKE: update returns only the new tokens\' keys/values (start:end) instead of all cached (:end); forward consistently uses S = T keys. Good diagnosis: update must return every token cached so far; yours returns only the new ones, so generation forgets the past.')

w('m31_ex8_overflow_partial_write','exercise8',E8,HDR8+BYTES_OK+'''
class KVCache:
    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        shape = (batch_size, n_kv_heads, max_len, d_head)
        self.k = torch.zeros(shape, dtype=dtype, device=device)
        self.v = torch.zeros(shape, dtype=dtype, device=device)
        self.max_len = max_len
        self.n = 0

    def __len__(self):
        return self.n

    def reset(self):
        self.n = 0

    def update(self, k, v):
        start = self.n
        end = start + k.shape[2]
        self.n = end                       # advanced before the check
        if end > self.max_len:
            raise ValueError("cache full")
        self.k[:, :, start:end] = k
        self.v[:, :, start:end] = v
        return self.k[:, :, :end], self.v[:, :, :end]
'''+CGQA_HEAD+cgqa_fwd(MASK_OK),'MISTAKE: update advances the length before checking, so a refused append still changes len(cache). Good diagnosis: ValueError must leave the cache unchanged: check before changing any state.')
