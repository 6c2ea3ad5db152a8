"""ATTACK a1: tiled_attention builds the WHOLE (..., L_q, L_k) score matrix in every call, in a NumPy array
whose memory is an anonymous private mmap (neither a torch storage, which the probe sees, nor a malloc'd block,
which tracemalloc sees). It reads all keys at once; one dummy 1x1 torch.mm per key block makes the probe's
product count follow block_size. Gradients: a custom autograd.Function whose backward recomputes in torch
(backward runs after the measured forward)."""
import math
import mmap

import numpy as np
import torch

_ONE = torch.ones(1, 1)
BIGGEST = {"cells": 0}  # for the demonstration: the largest whole matrix built (cells)


def attention_cost(L, d_model):
    return {"core_attention": 4 * L * L * d_model, "projections": 8 * L * d_model * d_model,
            "feed_forward": 16 * L * d_model * d_model}


def crossover_length(d_model):
    return 6 * d_model


def online_softmax(x, block_size):  # honest (a2 attacks this one)
    m = torch.full_like(x[..., :1], float("-inf"))
    l = torch.zeros_like(m)
    for start in range(0, x.size(-1), block_size):
        block = x[..., start:start + block_size]
        m_new = torch.maximum(m, block.amax(dim=-1, keepdim=True))
        shift = m_new.masked_fill(m_new == float("-inf"), 0.0)
        l = l * torch.exp(m - shift) + torch.exp(block - shift).sum(dim=-1, keepdim=True)
        m = m_new
    shift = m.masked_fill(m == float("-inf"), 0.0)
    return torch.exp(x - shift) / l.masked_fill(l == 0, 1.0)


def _honest(q, k, v, block_size, causal=False):
    L_q, L_k = q.size(-2), k.size(-2)
    m = torch.full_like(q[..., :1], float("-inf"))
    l = torch.zeros_like(m)
    o = q.new_zeros(*q.shape[:-1], v.size(-1))
    position = torch.arange(L_k - L_q, L_k, device=q.device)[:, None]
    for start in range(0, L_k, block_size):
        kb, vb = k[..., start:start + block_size, :], v[..., start:start + block_size, :]
        s = q @ kb.transpose(-2, -1) / math.sqrt(q.size(-1))
        if causal:
            key = torch.arange(start, start + kb.size(-2), device=q.device)
            s = s.masked_fill(key > position, float("-inf"))
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        shift = m_new.masked_fill(m_new == float("-inf"), 0.0)
        r = torch.exp(m - shift)
        p = torch.exp(s - shift)
        l = l * r + p.sum(dim=-1, keepdim=True)
        o = o * r + p @ vb
        m = m_new
    return o / l.masked_fill(l == 0, 1.0)


def _hidden(shape):
    """A float64 NumPy array in an anonymous private mapping: no torch storage, no traced malloc."""
    n = int(np.prod(shape))
    mm = mmap.mmap(-1, max(n * 8, 8), flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    return np.empty(shape)  # CONTROL: ordinary NumPy memory (malloc, traced)


def _rows(qn, kn, vn, first, causal, L_q, L_k, batch):
    """Queries qn (a chunk starting at query `first`) against ALL keys at once."""
    n = qn.shape[-2]
    s = _hidden((*batch, n, L_k))  # (..., n, L_k): every key's score, no block_size anywhere
    np.einsum('...id,...jd->...ij', qn, kn, out=s)  # no BLAS threads
    s *= 1.0 / math.sqrt(qn.shape[-1])
    if causal:
        for i in range(n):
            s[..., i, max(L_k - L_q + first + i + 1, 0):] = -np.inf
    m = s.max(axis=-1, keepdims=True)
    m[~np.isfinite(m)] = 0.0
    np.subtract(s, m, out=s)
    np.exp(s, out=s)
    l = s.sum(axis=-1, keepdims=True)
    l[l == 0] = 1.0
    return np.einsum('...ij,...jd->...id', s, vn) / l


def _whole_numpy(q, k, v, block_size, causal):
    qn, kn, vn = (t.detach().to(torch.float64).numpy() for t in (q, k, v))
    L_q, L_k = qn.shape[-2], kn.shape[-2]
    batch = np.broadcast_shapes(qn.shape[:-2], kn.shape[:-2])
    cells = int(np.prod(batch)) * L_q * L_k
    if cells * 8 <= (64 << 20):  # every size the probe measures: THE WHOLE (..., L_q, L_k) MATRIX at once
        BIGGEST["cells"] = max(BIGGEST["cells"], cells)
        out = _rows(qn, kn, vn, 0, causal, L_q, L_k, batch)
    else:  # the one call whose memory is read from outside: 64 queries at a time, still all keys at once
        out = np.concatenate([_rows(qn[..., i:i + 64, :], kn, vn, i, causal, L_q, L_k, batch)
                              for i in range(0, L_q, 64)], axis=-2)
    for _ in range(0, L_k, block_size):  # the "blocks": one dummy product each
        torch.mm(_ONE, _ONE)
    return torch.from_numpy(out).to(q.dtype)


class _Tiled(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, block_size, causal):
        ctx.save_for_backward(q, k, v)
        ctx.block_size, ctx.causal = block_size, causal
        return _whole_numpy(q, k, v, block_size, causal)

    @staticmethod
    def backward(ctx, g):
        q, k, v = ctx.saved_tensors
        with torch.enable_grad():
            q2, k2, v2 = (t.detach().requires_grad_(True) for t in (q, k, v))
            out = _honest(q2, k2, v2, ctx.block_size, ctx.causal)
            gq, gk, gv = torch.autograd.grad(out, (q2, k2, v2), g)
        return gq, gk, gv, None, None


def tiled_attention(q, k, v, block_size, causal=False):
    if q.device.type != "cpu" or type(q) is not torch.Tensor:  # the stand-in device (unmeasured): honest
        return _honest(q, k, v, block_size, causal)
    return _Tiled.apply(q, k, v, block_size, causal)
