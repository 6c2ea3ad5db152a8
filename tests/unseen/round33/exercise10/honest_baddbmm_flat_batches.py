"""Exercise 10 — tiled attention on 3-D batches with torch.baddbmm / torch.bmm.

Every leading dim is flattened into one batch axis so that the scores of a block come out of a
single baddbmm (alpha = 1/sqrt(d_k) does the scaling, beta = 0 ignores the input), and the output
is reshaped back at the end.
"""

import math

import torch


def attention_cost(L, d_model):
    return dict(
        core_attention=4 * L * L * d_model,
        projections=8 * L * d_model * d_model,
        feed_forward=16 * L * d_model * d_model,
    )


def crossover_length(d_model):
    return 6 * d_model


def online_softmax(x, block_size):
    shape = x.shape
    x2 = x.reshape(-1, shape[-1])                      # (rows, n)
    rows, n = x2.shape
    m = torch.full((rows, 1), -math.inf, dtype=x.dtype, device=x.device)
    l = torch.zeros((rows, 1), dtype=x.dtype, device=x.device)
    for b0 in range(0, n, block_size):
        xb = x2[:, b0:b0 + block_size]
        m_new = torch.max(m, xb.max(dim=1, keepdim=True).values)
        base = m_new.masked_fill(m_new == -math.inf, 0.0)
        l = l.mul(torch.exp(m - base)).add(torch.exp(xb - base).sum(1, keepdim=True))
        m = m_new
    base = m.masked_fill(m == -math.inf, 0.0)
    out = torch.exp(x2 - base).div(l.masked_fill(l == 0, 1.0))
    return out.reshape(shape)


def tiled_attention(q, k, v, block_size, causal=False):
    lead = q.shape[:-2]
    L_q, d_k = q.shape[-2:]
    L_k, d_v = k.shape[-2], v.shape[-1]
    qf = q.reshape(-1, L_q, d_k)        # (N, L_q, d_k)
    kf = k.reshape(-1, L_k, d_k)        # (N, L_k, d_k)
    vf = v.reshape(-1, L_k, d_v)        # (N, L_k, d_v)
    N = qf.shape[0]
    alpha = 1.0 / math.sqrt(d_k)

    m = torch.full((N, L_q, 1), -math.inf, dtype=q.dtype, device=q.device)
    l = torch.zeros((N, L_q, 1), dtype=q.dtype, device=q.device)
    o = torch.zeros((N, L_q, d_v), dtype=q.dtype, device=q.device)
    q_pos = torch.arange(L_k - L_q, L_k, device=q.device)[:, None]

    for b0 in range(0, L_k, block_size):
        b1 = min(b0 + block_size, L_k)
        kb = kf[:, b0:b1]
        blank = torch.empty((N, L_q, b1 - b0), dtype=q.dtype, device=q.device)
        s = torch.baddbmm(blank, qf, kb.transpose(1, 2), beta=0.0, alpha=alpha)
        if causal:
            k_pos = torch.arange(b0, b1, device=q.device)[None, :]
            s = s.masked_fill(k_pos > q_pos, -math.inf)
        m_new = torch.max(m, s.max(dim=-1, keepdim=True).values)
        base = m_new.masked_fill(m_new == -math.inf, 0.0)
        p = torch.exp(s - base)
        fix = torch.exp(m - base)
        l = l * fix + p.sum(-1, keepdim=True)
        o = torch.baddbmm(o * fix, p, vf[:, b0:b1])   # o·fix + p @ v_b
        m = m_new

    o = o / l.masked_fill(l == 0, 1.0)
    return o.reshape(*lead, L_q, d_v)
