exec(open('/tmp/r68gen/gen1.py').read().split("E1='exercise1_projection.py'")[0])
g2=open('/tmp/r68gen/gen2.py').read(); exec("E6="+g2.split("E6=")[1].split("w('h09")[0])
g3=open('/tmp/r68gen/gen3.py').read(); exec("E8="+g3.split("E8=")[1].split("w('h11")[0])
g4=open('/tmp/r68gen/gen4.py').read(); exec("E10="+g4.split("E10=")[1].split("w('h13")[0])
E5='exercise5_softmax.py'
w('h14_ex5_inplace','exercise5',E5,'''
import math
import torch

def softmax(x, dim=-1):
    m = x.amax(dim=dim, keepdim=True)
    m = m.masked_fill(m == float('-inf'), 0.0)
    e = (x - m).exp_()                    # in place on a fresh temporary
    s = e.sum(dim=dim, keepdim=True)
    s = s.masked_fill_(s == 0, 1.0)       # in place on a fresh temporary (sum's backward needs no output)
    return e / s

def scaled_dot_product_attention(q, k, v, mask=None):
    scores = torch.matmul(q, k.transpose(-1, -2))
    scores.div_(math.sqrt(q.size(-1)))     # in place: matmul's backward does not need its output
    if mask is not None:
        scores.masked_fill_(~mask, float('-inf'))
    weights = softmax(scores, dim=-1)
    return torch.matmul(weights, v), weights
''','HONEST: in-place ops on fresh temporaries only (exp_, masked_fill_ on the sum, div_ and masked_fill_ on the scores), none on a tensor autograd still needs. Expect full marks.')

w('m42_ex5_global_max','exercise5',E5,'''
import math
import torch

def softmax(x, dim=-1):
    m = x.max()                          # one max for the whole tensor, not per slice
    if torch.isinf(m) and m < 0:
        m = torch.zeros((), dtype=x.dtype, device=x.device)
    e = torch.exp(x - m)
    s = e.sum(dim=dim, keepdim=True)
    return e / torch.where(s > 0, s, torch.ones_like(s))

def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float('-inf'))
    w = softmax(scores, dim=-1)
    return w @ v, w
''','MISTAKE: subtracts the GLOBAL max of the tensor instead of each slice max. Fine for modest scores, but a row whose scores are all far below the global max (e.g. -1e4 vs +1e4) underflows to a sum of 0 -> zero weights. Good diagnosis: the max must be taken per slice along dim (keepdim), else rows far below the global max underflow.')

E4='exercise4_masking.py'
w('m45_ex4_float_mask','exercise4',E4,'''
import torch

def causal_mask(L, device=None):
    return torch.tril(torch.ones(L, L, device=device))      # float 1/0, not bool

def apply_mask(scores, mask):
    return scores.masked_fill(mask == 0, float('-inf'))

def padding_mask(lengths, L):
    return (torch.arange(L, device=lengths.device)[None, :] < lengths[:, None])[:, None, :]
''','MISTAKE: causal_mask returns float 1.0/0.0 (no dtype=torch.bool); apply_mask compares ==0 so it works with both. Good diagnosis: the mask must be a bool tensor (True = may attend); ~ on a float mask fails / masked_fill needs bool; dtype=torch.bool.')

w('m40_ex6_split_strided','exercise6',E6,HDR6+'''
def split_heads(x, n_heads):
    B, L, D = x.shape
    return x.view(B, L, D // n_heads, n_heads).permute(0, 3, 1, 2)   # heads take every H-th column

def merge_heads(x):
    B, H, L, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(B, L, H * dh)             # its exact inverse
'''+MHA_OK,'MISTAKE: head h takes columns h, h+H, h+2H... (strided) instead of the contiguous block h*dh..(h+1)*dh-1; merge is its inverse. Good diagnosis: each head is a contiguous chunk of d_head columns: view (B,L,H,dh), not (B,L,dh,H).')

w('m43_ex8_cache_repeated','exercise8',E8,HDR8+BYTES_OK+CACHE_OK+CGQA_HEAD+'''
    def forward(self, x, cache=None):
        B, T, _ = x.shape
        q = self.q_proj(x).view(B, T, self.n_heads, self.d_head).transpose(1, 2)
        k = self.k_proj(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)
        v = self.v_proj(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)
        rep = self.n_heads // self.n_kv_heads
        k, v = repeat_kv(k, rep), repeat_kv(v, rep)   # repeated BEFORE caching
        past = 0
        if cache is not None:
            past = len(cache)
            k, v = cache.update(k, v)
        S = k.shape[2]
        mask = torch.ones(T, S, dtype=torch.bool, device=x.device).tril(diagonal=past)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.o_proj(y.transpose(1, 2).contiguous().view(B, T, -1))
''','MISTAKE: repeats K/V to H heads BEFORE putting them in the cache (the cache is H_kv-headed: shape error; and it defeats the point of GQA). Good diagnosis: cache the H_kv KV heads and repeat after reading them back; the cache stores H_kv heads, that is where GQA saves memory.')

w('m41_ex10_block_max_only','exercise10',E10,COST_OK+OSM_OK+tiled().replace("m_new = torch.maximum(m, sc.amax(dim=-1, keepdim=True))","m_new = sc.amax(dim=-1, keepdim=True)   # the block's own max only"),
'MISTAKE: tiled_attention sets the running max to the new BLOCK max instead of max(m, block max); rescale factor e^(m - m_new) then can be > 1 and overflow, and scores are shifted by a non-running max. Mathematically still exact when no overflow? o*e^(m-m_new) and l*e^(m-m_new) stay consistent, so the result is exact unless e^(m-m_new) overflows: it may PASS value tests at moderate scores; fails with huge scores (inf*0 / inf/inf). Good diagnosis: the running max must never decrease: m_new = max(m, block max), so every e^(...) <= 1.')

w('h15_ex10_normalized_acc_fp32','exercise10',E10,COST_OK+'''
def online_softmax(x, block_size):
    # running max and sum in log space: lse <- logaddexp(lse, logsumexp(block))
    dt = x.dtype
    xf = x.float() if dt in (torch.float16, torch.bfloat16) else x
    lse = torch.full(xf.shape[:-1] + (1,), float('-inf'), dtype=xf.dtype, device=x.device)
    n = xf.shape[-1]
    for s in range(0, n, block_size):
        b = xf[..., s:s + block_size]
        dead = (b == float('-inf')).all(dim=-1, keepdim=True)
        bl = torch.logsumexp(torch.where(dead, torch.zeros_like(b), b), dim=-1, keepdim=True)
        bl = torch.where(dead, torch.full_like(bl, float('-inf')), bl)
        both = (lse == float('-inf')) & (bl == float('-inf'))
        lse = torch.where(both, lse, torch.logaddexp(torch.where(both, torch.zeros_like(lse), lse),
                                                      torch.where(both, torch.zeros_like(bl), bl)))
    alive = lse != float('-inf')
    out = torch.exp(xf - torch.where(alive, lse, torch.zeros_like(lse)))
    return torch.where(alive, out, torch.zeros_like(out)).to(dt)

def tiled_attention(q, k, v, block_size, causal=False):
    # FlashAttention-1 style: the accumulator o is kept NORMALISED (o = sum p v / l at every step),
    # half-precision inputs accumulated in float32
    dt = q.dtype
    if dt in (torch.float16, torch.bfloat16):
        q, k, v = q.float(), k.float(), v.float()
    Lq, Lk = q.shape[-2], k.shape[-2]
    scale = q.shape[-1] ** -0.5
    lead = q.shape[:-2]
    m = q.new_full(lead + (Lq, 1), float('-inf'))
    l = q.new_zeros(lead + (Lq, 1))
    o = q.new_zeros(lead + (Lq, v.shape[-1]))
    qpos = torch.arange(Lq, device=q.device)[:, None] + (Lk - Lq)
    for s in range(0, Lk, block_size):
        kb, vb = k[..., s:s + block_size, :], v[..., s:s + block_size, :]
        sc = (q @ kb.transpose(-2, -1)) * scale
        if causal:
            kpos = torch.arange(s, s + kb.shape[-2], device=q.device)[None, :]
            sc = sc.masked_fill(kpos > qpos, float('-inf'))
        m_new = torch.maximum(m, sc.amax(dim=-1, keepdim=True))
        dead = m_new == float('-inf')
        m_safe = torch.where(dead, torch.zeros_like(m_new), m_new)
        alpha = torch.exp(torch.where(m == float('-inf'), m_safe, m) - m_safe)
        p = torch.exp(sc - m_safe)
        l_new = l * alpha + p.sum(dim=-1, keepdim=True)
        l_div = torch.where(l_new == 0, torch.ones_like(l_new), l_new)
        o = (o * (l * alpha) + p @ vb) / l_div
        l, m = l_new, m_new
    return o.to(dt)
''','HONEST: online softmax in log space (logaddexp of block logsumexps, all guarded on the input side); tiled attention with a normalised accumulator (FlashAttention-1 form) and float32 accumulation for fp16/bf16. Expect full marks.')
