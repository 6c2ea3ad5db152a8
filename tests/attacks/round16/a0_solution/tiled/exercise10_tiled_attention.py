
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

def tiled_attention(q, k, v, block_size, causal=False):
    return _tiled(q, k, v, block_size, causal)
