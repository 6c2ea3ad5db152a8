"""Exercise 1 attack: fused_project computes each of the three projections separately from elementwise
terms x[..., i] * w[i, j], each with a ONE-entry operand of w (the probe's `_combines` only counts operands
of more than one entry), and sums the terms with one product against a constant vector of ones."""

import torch


def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


def _terms(x, w):
    """(..., L, d, d_model): x[..., i] * w[i, j] for every column j of w and row i, one entry of w at a time."""
    return x.unsqueeze(-2) * w.t()  # control: whole rows of w (more than one entry) in one mul


def fused_project(x, w_qkv):
    d = w_qkv.size(-1) // 3
    q_terms = _terms(x, w_qkv[:, :d])           # projection 1
    k_terms = _terms(x, w_qkv[:, d:2 * d])      # projection 2
    v_terms = _terms(x, w_qkv[:, 2 * d:])       # projection 3
    terms = torch.cat([q_terms, k_terms, v_terms], dim=-2)  # (..., L, 3d, d_model)
    ones = torch.ones(x.shape[-1], 1, dtype=x.dtype, device=x.device)
    qkv = (terms @ ones).squeeze(-1)            # the sums, in the one product the probe sees
    return tuple(qkv.split(d, dim=-1))
