"""Float64 reference implementations, written from the chapter's formulas and the stubs' docstrings."""
import math
import torch

F64 = torch.float64


def d64(t):
    return t.detach().to("cpu", F64) if t.is_floating_point() else t.detach().cpu()


# exercise 1
def project(x, wq, wk, wv):
    return x @ wq, x @ wk, x @ wv


def fused_project(x, w):
    d = w.shape[-1] // 3
    return x @ w[:, :d], x @ w[:, d:2 * d], x @ w[:, 2 * d:]


# exercise 2 / 3
def attention_scores(q, k):
    return q @ k.transpose(-2, -1)


def scale_scores(s, d_k):
    return s / math.sqrt(d_k)


def scaled_scores(q, k):
    return q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])


# exercise 4
def causal_mask(L):
    return torch.tensor([[j <= i for j in range(L)] for i in range(L)], dtype=torch.bool)


def apply_mask(s, mask):
    return torch.where(mask, s, torch.full_like(s, -math.inf))


def padding_mask(lengths, L):
    B = lengths.shape[0]
    return torch.tensor([[[j < int(lengths[b]) for j in range(L)]] for b in range(B)], dtype=torch.bool)


# exercise 5
def softmax(x, dim=-1):
    """exp(x - max) / sum, all -inf slices -> 0 (via zeroed gradient-safe path)."""
    dead = torch.isneginf(x).all(dim=dim, keepdim=True)
    xs = x.masked_fill(dead, 0.0)
    m = xs.amax(dim=dim, keepdim=True).detach()
    e = torch.exp(xs - m).masked_fill(dead, 0.0)
    s = e.sum(dim=dim, keepdim=True)
    return e / s.masked_fill(dead, 1.0)


def sdpa(q, k, v, mask=None):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        s = s.masked_fill(~mask, -math.inf)
    w = softmax(s, -1)
    return w @ v, w


# exercise 6
def mha(x, Wqkv, bqkv, Wo, bo, H, mask=None):
    B, L, D = x.shape
    qkv = x @ Wqkv.T + (bqkv if bqkv is not None else 0)
    q, k, v = qkv[..., :D], qkv[..., D:2 * D], qkv[..., 2 * D:]
    dh = D // H
    sh = lambda t: t.reshape(B, L, H, dh).permute(0, 2, 1, 3)
    if mask is None:
        mask = causal_mask(L)
    y, _ = sdpa(sh(q), sh(k), sh(v), mask)
    y = y.permute(0, 2, 1, 3).reshape(B, L, D)
    return y @ Wo.T + (bo if bo is not None else 0)


# exercise 7
def repeat_kv(x, n_rep):
    B, Hk, L, d = x.shape
    idx = torch.tensor([j // n_rep for j in range(Hk * n_rep)])
    return x[:, idx]


def gqa(x, Wq, Wk, Wv, Wo, H, Hkv, mask=None, past_mask=None):
    B, L, D = x.shape
    dh = D // H
    q = (x @ Wq.T).reshape(B, L, H, dh).permute(0, 2, 1, 3)
    k = (x @ Wk.T).reshape(B, L, Hkv, dh).permute(0, 2, 1, 3)
    v = (x @ Wv.T).reshape(B, L, Hkv, dh).permute(0, 2, 1, 3)
    k, v = repeat_kv(k, H // Hkv), repeat_kv(v, H // Hkv)
    if mask is None:
        mask = causal_mask(L)
    y, _ = sdpa(q, k, v, mask)
    return y.permute(0, 2, 1, 3).reshape(B, L, H * dh) @ Wo.T


# exercise 8
def kv_cache_bytes(n_layers, n_kv_heads, d_head, seq_len, batch_size=1, bytes_per_value=2):
    return 2 * n_layers * n_kv_heads * d_head * seq_len * batch_size * bytes_per_value


# exercise 9
def previous_token_score(p):
    B, H, L, _ = p.shape
    tot = torch.zeros(H, dtype=F64)
    for i in range(1, L):
        tot += d64(p[:, :, i, i - 1]).sum(0)
    return tot / (B * (L - 1))


def induction_score(p, seq_len):
    B, H, L, _ = p.shape
    tot = torch.zeros(H, dtype=F64)
    for i in range(seq_len, 2 * seq_len):
        tot += d64(p[:, :, i, i - seq_len + 1]).sum(0)
    return tot / (B * seq_len)


def find_heads(patterns, threshold=0.4):
    out = {"previous_token": [], "induction": []}
    for layer, p in enumerate(patterns):
        L = p.shape[-1]
        pt, ind = previous_token_score(p), induction_score(p, L // 2)
        out["previous_token"] += [(layer, h) for h in range(p.shape[1]) if float(pt[h]) > threshold]
        out["induction"] += [(layer, h) for h in range(p.shape[1]) if float(ind[h]) > threshold]
    return out


# exercise 10
def attention_cost(L, d):
    return {"core_attention": 4 * L * L * d, "projections": 8 * L * d * d, "feed_forward": 16 * L * d * d}


def crossover_length(d):
    return 6 * d


def attention_causal_offset(q, k, v, causal):
    L_q, L_k = q.shape[-2], k.shape[-2]
    mask = None
    if causal:
        qp = torch.arange(L_q) + (L_k - L_q)
        mask = torch.arange(L_k)[None, :] <= qp[:, None]
    return sdpa(q, k, v, mask)[0]
