exec(open('/tmp/r68gen/gen1.py').read().split("E1='exercise1_projection.py'")[0])
g3=open('/tmp/r68gen/gen3.py').read()
exec("E8="+g3.split("E8=")[1].split("w('h11")[0])
w('m30b_ex8_update_new_only_fwd_ok','exercise8',E8,HDR8+BYTES_OK+'''
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
'''+CGQA_HEAD+cgqa_fwd(MASK_OK),'MISTAKE (variant of m30 with the standard forward): update returns only the new tokens. Good diagnosis: update must return all cached tokens (:end), not just the new slice. len() is right.')

E9='exercise9_head_patterns.py'
P9_OK='''
import torch

def repeated_tokens(batch, seq_len, vocab_size, generator=None):
    t = torch.randint(vocab_size, (batch, seq_len), generator=generator)
    return torch.cat([t, t], dim=1)

def _check(p):
    if p.dim() != 4 or p.shape[-1] != p.shape[-2]:
        raise ValueError("pattern must be (B, H, L, L)")

def previous_token_score(pattern):
    _check(pattern)
    if pattern.shape[-1] < 2:
        raise ValueError("L < 2")
    return pattern.diagonal(offset=-1, dim1=-2, dim2=-1).mean(dim=(0, 2))

def induction_score(pattern, seq_len):
    _check(pattern)
    if pattern.shape[-1] != 2 * seq_len:
        raise ValueError("L != 2 * seq_len")
    d = pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)
    return d[..., 1:].mean(dim=(0, 2))
'''
FIND_OK='''
def find_heads(patterns, threshold=0.4):
    out = {"previous_token": [], "induction": []}
    for layer, p in enumerate(patterns):
        L = p.shape[-1]
        if L % 2:
            raise ValueError("odd L")
        prev = previous_token_score(p)
        ind = induction_score(p, L // 2)
        for h in range(p.shape[1]):
            if prev[h] > threshold:
                out["previous_token"].append((layer, h))
            if ind[h] > threshold:
                out["induction"].append((layer, h))
    return out
'''
w('h12_ex9_gather_loops','exercise9',E9,'''
import torch

def repeated_tokens(batch, seq_len, vocab_size, generator=None):
    first = torch.randint(0, vocab_size, size=(batch, seq_len), generator=generator, dtype=torch.long)
    return first.repeat(1, 2)

def _check(pattern):
    if pattern.ndim != 4 or pattern.size(-1) != pattern.size(-2):
        raise ValueError(f"expected (B, H, L, L), got {tuple(pattern.shape)}")

def previous_token_score(pattern):
    _check(pattern)
    B, H, L, _ = pattern.shape
    if L < 2:
        raise ValueError("need L >= 2")
    i = torch.arange(1, L, device=pattern.device)
    cells = pattern[:, :, i, i - 1]              # (B, H, L-1) advanced indexing
    return cells.sum(dim=(0, 2)) / (B * (L - 1))

def induction_score(pattern, seq_len):
    _check(pattern)
    B, H, L, _ = pattern.shape
    if L != 2 * seq_len:
        raise ValueError("L must be 2 * seq_len")
    i = torch.arange(seq_len, L, device=pattern.device)
    cells = pattern[:, :, i, i - seq_len + 1]
    return cells.mean(dim=-1).mean(dim=0)

def find_heads(patterns, threshold=0.4):
    prev, ind = [], []
    for layer in range(len(patterns)):
        p = patterns[layer]
        L = p.shape[-1]
        ps = previous_token_score(p)
        is_ = induction_score(p, L // 2) if L % 2 == 0 else None
        if is_ is None:
            raise ValueError("odd L")
        prev += [(layer, h) for h in range(p.shape[1]) if float(ps[h]) > threshold]
        ind += [(layer, h) for h in range(p.shape[1]) if float(is_[h]) > threshold]
    return {"previous_token": prev, "induction": ind}
''','HONEST: advanced indexing instead of diagonal, repeat(1,2) for tokens, sum/(B*(L-1)), list comprehensions. Note: randint(0, vocab, size=..., dtype=long) consumes the generator the same way. Expect full marks.')

w('m32_ex9_prev_next_diag','exercise9',E9,P9_OK.replace("pattern.diagonal(offset=-1,","pattern.diagonal(offset=1,")+FIND_OK,
'MISTAKE: previous_token_score reads the diagonal ABOVE (offset=+1: key i+1, the next token, which causal heads never see). Good diagnosis: the previous token is key i-1: the sub-diagonal (offset=-1); yours reads the super-diagonal (future).')

w('m33_ex9_induction_includes_first','exercise9',E9,P9_OK.replace("return d[..., 1:].mean(dim=(0, 2))","return d.mean(dim=(0, 2))   # includes query seq_len-1 of the first half")+FIND_OK,
'MISTAKE: induction_score averages the whole offset diagonal, including its first entry (query seq_len-1, first half). Good diagnosis: off-by-one: only queries of the second half (i >= seq_len) count; drop the first entry.')

w('m34_ex9_threshold_ge','exercise9',E9,P9_OK+FIND_OK.replace("prev[h] > threshold","prev[h] >= threshold").replace("ind[h] > threshold","ind[h] >= threshold"),
'MISTAKE: find_heads uses >= threshold. Good diagnosis: a head counts only when its score is strictly above the threshold; a score equal to it is not in.')

w('m35_ex9_induction_offset','exercise9',E9,P9_OK.replace("offset=1 - seq_len","offset=-seq_len").replace("return d[..., 1:].mean(dim=(0, 2))","return d.mean(dim=(0, 2))")+FIND_OK,
'MISTAKE: induction_score reads key i - seq_len (the earlier copy of the SAME token, a duplicate-token head) instead of i - seq_len + 1 (the token AFTER it). Good diagnosis: an induction head reads the token after the earlier occurrence, i - seq_len + 1; yours reads the earlier occurrence itself.')

E10='exercise10_tiled_attention.py'
COST_OK='''
import math
import torch

def attention_cost(L, d_model):
    return {"core_attention": 4 * L * L * d_model,
            "projections": 8 * L * d_model ** 2,
            "feed_forward": 16 * L * d_model ** 2}

def crossover_length(d_model):
    return 6 * d_model
'''
OSM_OK='''
def online_softmax(x, block_size):
    n = x.shape[-1]
    m = torch.full(x.shape[:-1] + (1,), float('-inf'), dtype=x.dtype, device=x.device)
    l = torch.zeros(x.shape[:-1] + (1,), dtype=x.dtype, device=x.device)
    for s in range(0, n, block_size):
        b = x[..., s:s + block_size]
        m_new = torch.maximum(m, b.amax(dim=-1, keepdim=True))
        shift = torch.where(torch.isinf(m_new) & (m_new < 0), torch.zeros_like(m_new), m_new)
        mo = torch.where(torch.isinf(m) & (m < 0), shift, m)
        l = l * torch.exp(mo - shift) + torch.exp(b - shift).sum(dim=-1, keepdim=True)
        m = m_new
    shift = torch.where(torch.isinf(m) & (m < 0), torch.zeros_like(m), m)
    l = torch.where(l == 0, torch.ones_like(l), l)
    return torch.exp(x - shift) / l
'''
def tiled(rescale_o=True, rescale_l=True, causal_offset=True):
    return '''
def tiled_attention(q, k, v, block_size, causal=False):
    Lq, Lk = q.shape[-2], k.shape[-2]
    scale = 1.0 / math.sqrt(q.shape[-1])
    lead = q.shape[:-2]
    m = torch.full(lead + (Lq, 1), float('-inf'), dtype=q.dtype, device=q.device)
    l = torch.zeros(lead + (Lq, 1), dtype=q.dtype, device=q.device)
    o = torch.zeros(lead + (Lq, v.shape[-1]), dtype=q.dtype, device=q.device)
    qpos = torch.arange(Lq, device=q.device)[:, None] + ''' + ("(Lk - Lq)" if causal_offset else "0") + '''
    for s in range(0, Lk, block_size):
        kb, vb = k[..., s:s + block_size, :], v[..., s:s + block_size, :]
        sc = (q @ kb.transpose(-2, -1)) * scale
        if causal:
            kpos = torch.arange(s, s + kb.shape[-2], device=q.device)[None, :]
            sc = sc.masked_fill(kpos > qpos, float('-inf'))
        m_new = torch.maximum(m, sc.amax(dim=-1, keepdim=True))
        shift = torch.where(torch.isinf(m_new), torch.zeros_like(m_new), m_new)
        alpha = torch.exp(torch.where(torch.isinf(m), shift, m) - shift) if True else None
        p = torch.exp(sc - shift)
        l = l''' + (" * alpha" if rescale_l else "") + ''' + p.sum(dim=-1, keepdim=True)
        o = o''' + (" * alpha" if rescale_o else "") + ''' + p @ vb
        m = m_new
    return o / torch.where(l == 0, torch.ones_like(l), l)
'''
w('h13_ex10_where_guards','exercise10',E10,COST_OK+OSM_OK+tiled(),
'HONEST: online softmax and tiled attention with explicit torch.where guards on -inf maxima (alpha for an all -inf past = exp(shift - shift) = 1 with l = o = 0). Expect full marks.')

w('m36_ex10_no_rescale_o','exercise10',E10,COST_OK+OSM_OK+tiled(rescale_o=False),
'MISTAKE: tiled_attention rescales l but not o when the max rises. Good diagnosis: the running output o was summed with the old max and must be rescaled by e^(m - m_new) too, like l; yours only rescales l (correct only when a single block, or max in first block).')

w('m37_ex10_osm_no_rescale_l','exercise10',E10,COST_OK+OSM_OK.replace("l = l * torch.exp(mo - shift) +","l = l +")+tiled(),
'MISTAKE: online_softmax never rescales the running sum l when a block raises the max. Good diagnosis: online softmax rescaling error: l holds e^(x - m_old) terms, must be multiplied by e^(m_old - m_new) before adding; rows then do not sum to 1.')

w('m38_ex10_causal_topleft','exercise10',E10,COST_OK+OSM_OK+tiled(causal_offset=False),
'MISTAKE: causal mask aligned top-left (query i sees keys 0..i) ignoring the L_k - L_q offset. Right when L_q == L_k. Good diagnosis: queries are the LAST L_q positions (as in the KV cache): query i sits at L_k - L_q + i.')

w('m39_ex10_cost_qk_only','exercise10',E10,COST_OK.replace("4 * L * L * d_model","2 * L * L * d_model").replace("6 * d_model","3 * d_model")+OSM_OK+tiled(),
'MISTAKE: counts only S = QK^T for the core attention (2 L^2 d, forgetting A V), so crossover 3d (consistent). Good diagnosis: core attention has two L x L x d products, QK^T and AV: 4 L^2 d.')
