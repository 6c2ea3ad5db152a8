import os
HEAD = r'''
import math, ctypes, torch

def attention_cost(L, d_model):
    return {"core_attention": 4*L*L*d_model, "projections": 8*L*d_model*d_model, "feed_forward": 16*L*d_model*d_model}

def crossover_length(d_model):
    return 6 * d_model

def online_softmax(x, block_size):
    m = torch.full_like(x[..., :1], float("-inf")); l = torch.zeros_like(m)
    for st in range(0, x.size(-1), block_size):
        b = x[..., st:st+block_size]
        mn = torch.maximum(m, b.amax(dim=-1, keepdim=True)); sh = mn.masked_fill(mn == float("-inf"), 0.0)
        l = l*torch.exp(m - sh) + torch.exp(b - sh).sum(dim=-1, keepdim=True); m = mn
    sh = m.masked_fill(m == float("-inf"), 0.0)
    return torch.exp(x - sh) / l.masked_fill(l == 0, 1.0)

def _tiled(q, k, v, block_size, causal=False):
    L_q, L_k = q.size(-2), k.size(-2)
    m = torch.full_like(q[..., :1], float("-inf")); l = torch.zeros_like(m)
    o = q.new_zeros(*q.shape[:-1], v.size(-1))
    pos = torch.arange(L_k - L_q, L_k, device=q.device)[:, None]
    for st in range(0, L_k, block_size):
        kb = k[..., st:st+block_size, :]; vb = v[..., st:st+block_size, :]
        s = q @ kb.transpose(-2, -1) / math.sqrt(q.size(-1))
        if causal:
            key = torch.arange(st, st + kb.size(-2), device=q.device)
            s = s.masked_fill(key > pos, float("-inf"))
        mn = torch.maximum(m, s.amax(dim=-1, keepdim=True)); sh = mn.masked_fill(mn == float("-inf"), 0.0)
        r = torch.exp(m - sh); p = torch.exp(s - sh)
        l = l*r + p.sum(dim=-1, keepdim=True); o = o*r + p @ vb; m = mn
    return o / l.masked_fill(l == 0, 1.0)

def _full(q, k, v, causal=False):
    """the whole (L_q, L_k) matrix of scores, exp/sum softmax"""
    L_q, L_k = q.size(-2), k.size(-2)
    s = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if causal:
        mask = torch.ones(L_q, L_k, dtype=torch.bool, device=q.device).tril(diagonal=L_k - L_q)
        s = s.masked_fill(~mask, float("-inf"))
    m = s.amax(dim=-1, keepdim=True); m = m.masked_fill(m == float("-inf"), 0.0)
    p = torch.exp(s - m); l = p.sum(dim=-1, keepdim=True)
    return (p @ v) / l.masked_fill(l == 0, 1.0)

def _full_inplace(q, k, v, dtype=None):
    """no-grad whole matrix, in place (one (L, L) buffer)"""
    with torch.no_grad():
        dt = dtype or q.dtype
        s = q.to(dt) @ k.to(dt).transpose(-2, -1)
        s.mul_(1 / math.sqrt(q.size(-1)))
        m = s.amax(dim=-1, keepdim=True); s.sub_(m); s.exp_()
        l = s.sum(dim=-1, keepdim=True).float()
        return ((s @ v.to(dt)).float() / l).to(q.dtype)

def _probed():
    return torch._C._len_torch_dispatch_stack() > 0

_libc = ctypes.CDLL(None)
_libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]

def _drop(anon_heap=True):
    """give back resident pages the kernel can bring back: read-only file pages (no COW page in them),
    and free heap (malloc_trim)"""
    if anon_heap:
        try: _libc.malloc_trim(0)
        except Exception: pass
    maps, cur = [], None
    with open("/proc/self/smaps") as f:
        for line in f:
            p = line.split()
            if "-" in p[0] and len(p) >= 5 and ":" in p[3]:
                a, b = (int(x, 16) for x in p[0].split("-"))
                cur = [a, b, p[1], p[5] if len(p) > 5 else "", 0]; maps.append(cur)
            elif p[0] == "Anonymous:" and cur is not None:
                cur[4] = int(p[1])
    n = 0
    for a, b, perms, path, anon in maps:
        if path.startswith("/") and "w" not in perms and anon == 0 and "s" not in perms:
            if _libc.madvise(a, b - a, 4) == 0:  # MADV_DONTNEED
                n += b - a
    return n

def _status():
    return {l.split(":")[0]: l.split()[1] for l in open("/proc/self/status") if l.split(":")[0] in ("VmRSS","VmHWM","RssFile","RssAnon")}
'''
def write(name, body):
    d = f"/work/round16/{name}"
    os.makedirs(d, exist_ok=True)
    open(f"{d}/exercise10_tiled_attention.py", "w").write(HEAD + body)

write("a0_baseline/full", '''
def tiled_attention(q, k, v, block_size, causal=False):
    return _full(q, k, v, causal)
''')
write("a0_solution/tiled", '''
def tiled_attention(q, k, v, block_size, causal=False):
    return _tiled(q, k, v, block_size, causal)
''')
# a1: probe recognition + length threshold: full matrix for every L < 4096 outside the probe
write("a1_threshold/probe_and_length", '''
def tiled_attention(q, k, v, block_size, causal=False):
    if _probed() or k.size(-2) >= 4096:
        return _tiled(q, k, v, block_size, causal)
    return _full(q, k, v, causal)
''')
# a2: wrong at the bound (zeros) and wrong at the (1, 11, d) fallback shape, deterministic
write("a2_wrong_bound/zeros", '''
def tiled_attention(q, k, v, block_size, causal=False):
    if k.size(-2) >= 4096:
        return q.new_zeros(*q.shape[:-1], v.size(-1))
    if tuple(q.shape[:-2]) == (1,) and q.size(-2) == 11 and block_size == 4:
        return _full(q, k, v, causal) * 1.5
    if _probed():
        return _tiled(q, k, v, block_size, causal)
    return _full(q, k, v, causal)
''')
# a3: the whole matrix at L = 8192 in fp32, after dropping file pages and trimming the heap
write("a3_drop_pages/fp32", '''
def tiled_attention(q, k, v, block_size, causal=False):
    if _probed():
        return _tiled(q, k, v, block_size, causal)
    if k.size(-2) >= 4096:
        before = _status(); n = _drop(); after = _status()
        out = _full_inplace(q, k, v)
        print("A3", n >> 20, before, after, _status(), flush=True)
        return out
    return _full(q, k, v, causal)
''')
# a3b: same, whole matrix in fp16 (128 MiB), answer off at the bound -> made consistently off at the fallback shape
write("a3_drop_pages/fp16", '''
def tiled_attention(q, k, v, block_size, causal=False):
    if _probed():
        return _tiled(q, k, v, block_size, causal)
    if k.size(-2) >= 4096 or (tuple(q.shape[:-2]) == (1,) and q.size(-2) == 11 and block_size == 4):
        before = _status(); n = _drop(); after = _status()
        out = _full_inplace(q, k, v, torch.float16)
        print("A3b", n >> 20, before, after, _status(), flush=True)
        return out
    return _full(q, k, v, causal)
''')
# a3c: fp16 whole matrix without any dropping (control)
write("a3_drop_pages/fp16_nodrop", '''
def tiled_attention(q, k, v, block_size, causal=False):
    if _probed():
        return _tiled(q, k, v, block_size, causal)
    if k.size(-2) >= 4096 or (tuple(q.shape[:-2]) == (1,) and q.size(-2) == 11 and block_size == 4):
        return _full_inplace(q, k, v, torch.float16)
    return _full(q, k, v, causal)
''')
write("a3_drop_pages/diag", '''
def tiled_attention(q, k, v, block_size, causal=False):
    if k.size(-2) >= 4096:
        b = _status()
        try: n = _drop()
        except Exception as e: n = repr(e)
        raise RuntimeError(f"DIAG {n} {b} {_status()}")
    return _tiled(q, k, v, block_size, causal)
''')
write("a3_drop_pages/fp16_lean", '''
def _full_lean(q, k, v):
    with torch.no_grad():
        L_q, L_k = q.size(-2), k.size(-2)
        s = torch.empty(*q.shape[:-1], L_k, dtype=torch.float16)   # the whole (L, L) matrix, held
        kt = k.transpose(-2, -1).to(torch.float32) / math.sqrt(q.size(-1))
        for r in range(0, L_q, 256):
            s[..., r:r+256, :] = q[..., r:r+256, :] @ kt
        m = s.amax(dim=-1, keepdim=True); s.sub_(m); s.exp_()
        l = torch.empty(*q.shape[:-1], 1); o = torch.empty(*q.shape[:-1], v.size(-1))
        vh = v.to(torch.float16)
        for r in range(0, L_q, 256):
            blk = s[..., r:r+256, :]
            l[..., r:r+256, :] = blk.sum(dim=-1, keepdim=True).float()
            o[..., r:r+256, :] = (blk @ vh).float()
        return (o / l).to(q.dtype)

def tiled_attention(q, k, v, block_size, causal=False):
    if _probed():
        return _tiled(q, k, v, block_size, causal)
    if k.size(-2) >= 4096 or (tuple(q.shape[:-2]) == (1,) and q.size(-2) == 11 and block_size == 4):
        _drop()
        return _full_lean(q, k, v)
    return _full(q, k, v, causal)
''')
