"""Exercise 10 — Attention without the L×L matrix.

The result of online softmax does not depend on the order in which blocks are read, so this one
reads the key blocks from the LAST to the first. Queries are processed in chunks whose count is
chosen from L_q (ceil(L_q / block_size) chunks of near-equal size, each <= block_size), and the
chunks' outputs are joined with torch.cat. q is pre-scaled by 1/√d_k once. online_softmax also
walks its blocks backwards.
"""

import math

import torch


def attention_cost(L, d_model):
    L, d = int(L), int(d_model)
    return {"core_attention": 4 * L * L * d, "projections": 8 * L * d * d, "feed_forward": 16 * L * d * d}


def crossover_length(d_model):
    return 6 * int(d_model)


def _starts_reversed(n, size):
    return reversed(range(0, n, size))


def _safe(m):
    return torch.where(m == -math.inf, torch.zeros_like(m), m)


def online_softmax(x, block_size):
    n = x.shape[-1]
    m = torch.full_like(x[..., :1], -math.inf)
    l = torch.zeros_like(x[..., :1])
    for start in _starts_reversed(n, block_size):
        blk = x[..., start:start + block_size]
        m_new = torch.maximum(m, torch.amax(blk, dim=-1, keepdim=True))
        l = l * torch.exp(m - _safe(m_new)) + torch.sum(torch.exp(blk - _safe(m_new)), dim=-1, keepdim=True)
        m = m_new
    return torch.exp(x - _safe(m)) / torch.where(l == 0, torch.ones_like(l), l)


def _query_chunk(qc, q_pos, k, v, block_size, causal):
    m = torch.full_like(qc[..., :1], -math.inf)
    l = torch.zeros_like(qc[..., :1])
    o = qc.new_zeros(qc.shape[:-1] + (v.shape[-1],))
    L_k = k.shape[-2]
    for start in _starts_reversed(L_k, block_size):
        stop = min(start + block_size, L_k)
        s = torch.matmul(qc, k[..., start:stop, :].transpose(-1, -2))  # q already scaled
        if causal:
            visible = torch.arange(start, stop, device=qc.device).unsqueeze(0) <= q_pos.unsqueeze(1)
            s = torch.where(visible, s, torch.full_like(s, -math.inf))
        m_new = torch.maximum(m, torch.amax(s, dim=-1, keepdim=True))
        alpha = torch.exp(m - _safe(m_new))
        p = torch.exp(s - _safe(m_new))
        l = alpha * l + p.sum(-1, keepdim=True)
        o = alpha * o + torch.matmul(p, v[..., start:stop, :])
        m = m_new
    return o / torch.where(l == 0, torch.ones_like(l), l)


def tiled_attention(q, k, v, block_size, causal=False):
    L_q, L_k = q.shape[-2], k.shape[-2]
    if L_q == 0:
        return q.new_zeros(q.shape[:-1] + (v.shape[-1],))
    q = q / math.sqrt(q.shape[-1])  # new tensor; the caller's q is untouched
    n_chunks = math.ceil(L_q / block_size)
    chunk = math.ceil(L_q / n_chunks)  # <= block_size, chunks of near-equal size
    offset = L_k - L_q
    outs = []
    for qs in range(0, L_q, chunk):
        qe = min(qs + chunk, L_q)
        q_pos = torch.arange(qs + offset, qe + offset, device=q.device)
        outs.append(_query_chunk(q[..., qs:qe, :], q_pos, k, v, block_size, causal))
    return torch.cat(outs, dim=-2)
