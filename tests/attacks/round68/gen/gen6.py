exec(open('/tmp/r68gen/gen1.py').read().split("E1='exercise1_projection.py'")[0])
g3=open('/tmp/r68gen/gen3.py').read(); exec("E8="+g3.split("E8=")[1].split("w('h11")[0])
g4=open('/tmp/r68gen/gen4.py').read(); exec("E10="+g4.split("E10=")[1].split("w('h13")[0])
E4='exercise4_masking.py'
w('h16_ex4_additive_mask','exercise4',E4,'''
import torch

def causal_mask(L, device=None):
    return torch.ones(L, L, device=device).tril().to(torch.bool)

def apply_mask(scores, mask):
    # additive mask: 0 where allowed, -inf where hidden
    bias = torch.zeros(mask.shape, dtype=scores.dtype, device=scores.device).masked_fill(~mask, float('-inf'))
    return scores + bias

def padding_mask(lengths, L):
    return torch.arange(L, device=lengths.device).unsqueeze(0).lt(lengths.unsqueeze(1)).view(-1, 1, L)
''','HONEST: additive -inf bias instead of masked_fill (scores + 0 is exact; + -inf is -inf); causal via float tril then .to(bool); padding via lt + view. Expect full marks.')

w('h17_ex8_internal_cache','exercise8',E8,HDR8+BYTES_OK+'''
class KVCache:
    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        self.keys = torch.zeros(batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
        self.values = torch.zeros_like(self.keys)
        self.length = 0

    def __len__(self):
        return self.length

    def reset(self):
        self.length = 0

    def update(self, k, v):
        new = k.shape[-2]
        if self.length + new > self.keys.shape[-2]:
            raise ValueError("KV cache is full")
        self.keys.narrow(2, self.length, new).copy_(k)
        self.values.narrow(2, self.length, new).copy_(v)
        self.length += new
        return self.keys.narrow(2, 0, self.length), self.values.narrow(2, 0, self.length)
'''+CGQA_HEAD+'''
    def forward(self, x, cache=None):
        B, T, D = x.shape
        if cache is None:
            # no cache: attend within x, through a throw-away cache of exactly T tokens
            cache = KVCache(B, self.n_kv_heads, self.d_head, T, dtype=x.dtype, device=x.device)
        past = len(cache)
        q = self.q_proj(x).view(B, T, self.n_heads, self.d_head).transpose(1, 2)
        k = self.k_proj(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)
        v = self.v_proj(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)
        k, v = cache.update(k, v)
        g = self.n_heads // self.n_kv_heads
        k, v = repeat_kv(k, g), repeat_kv(v, g)
        mask = torch.ones(T, past + T, dtype=torch.bool, device=x.device).tril(diagonal=past)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.o_proj(y.transpose(1, 2).reshape(B, T, D))
''','HONEST: narrow+copy_ cache; forward(cache=None) reuses the cached path with a throw-away KVCache of T tokens (gradients flow through copy_ into the storage, as the docstring says writing in place does). Expect full marks.')

w('h18_ex10_2d_tiles','exercise10',E10,'''
import math
import torch

def attention_cost(L, d_model):
    L, d = int(L), int(d_model)
    core = 2 * (2 * L * L * d)                 # two L*L*d products, 2 FLOPs per multiply-add
    proj = 4 * (2 * L * d * d)
    ff = 2 * (2 * L * d * 4 * d)
    return {"core_attention": core, "projections": proj, "feed_forward": ff}

def crossover_length(d_model):
    # 4 L^2 d = 24 L d^2  ->  L = 6 d
    return (24 * d_model * d_model) // (4 * d_model)

def online_softmax(x, block_size):
    n = x.shape[-1]
    m = None
    l = None
    for s in range(0, n, block_size):
        b = x[..., s:s + block_size]
        bm = b.amax(dim=-1, keepdim=True)
        if m is None:
            m_new = bm
        else:
            m_new = torch.maximum(m, bm)
        safe = m_new.masked_fill(m_new == float('-inf'), 0)
        part = torch.exp(b - safe).sum(dim=-1, keepdim=True)
        if l is None:
            l = part
        else:
            old = m.masked_fill(m == float('-inf'), 0)
            l = l * torch.exp(torch.where(m == float('-inf'), safe, old) - safe) + part
        m = m_new
    safe = m.masked_fill(m == float('-inf'), 0)
    return torch.exp(x - safe) / l.masked_fill(l == 0, 1)

def _one_query_block(q, k, v, block_size, causal, q0, Lq, Lk, scale):
    lq = q.shape[-2]
    m = torch.full(q.shape[:-1] + (1,), float('-inf'), dtype=q.dtype, device=q.device)
    l = torch.zeros_like(m)
    o = torch.zeros(q.shape[:-1] + (v.shape[-1],), dtype=q.dtype, device=q.device)
    qpos = (Lk - Lq) + q0 + torch.arange(lq, device=q.device).unsqueeze(-1)
    for s in range(0, Lk, block_size):
        if causal and s > (Lk - Lq) + q0 + lq - 1:
            break                                   # every later key is in the future of every query here
        kb, vb = k[..., s:s + block_size, :], v[..., s:s + block_size, :]
        sc = torch.matmul(q, kb.transpose(-2, -1)) * scale
        if causal:
            kpos = s + torch.arange(kb.shape[-2], device=q.device)
            sc = sc.masked_fill(kpos > qpos, float('-inf'))
        m_new = torch.maximum(m, sc.amax(dim=-1, keepdim=True))
        safe = m_new.masked_fill(m_new == float('-inf'), 0)
        alpha = torch.exp(torch.where(m == float('-inf'), safe, m) - safe)
        p = torch.exp(sc - safe)
        l = alpha * l + p.sum(dim=-1, keepdim=True)
        o = alpha * o + torch.matmul(p, vb)
        m = m_new
    return o / l.masked_fill(l == 0, 1)

def tiled_attention(q, k, v, block_size, causal=False):
    # tiles over the queries too (block_size queries at a time), skipping fully future key blocks
    Lq, Lk = q.shape[-2], k.shape[-2]
    scale = 1 / math.sqrt(q.shape[-1])
    outs = []
    for q0 in range(0, Lq, block_size):
        outs.append(_one_query_block(q[..., q0:q0 + block_size, :], k, v, block_size, causal, q0, Lq, Lk, scale))
    return torch.cat(outs, dim=-2)
''','HONEST: 2-D tiling (query blocks x key blocks), causal block skipping, FLOP counts written as products, crossover by integer division. Expect full marks. (Risk: with L_q > L_k causal, an early query block may skip every key block -> zeros, correct.)')
