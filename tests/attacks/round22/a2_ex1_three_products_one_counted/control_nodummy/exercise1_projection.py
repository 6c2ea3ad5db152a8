"""ATTACK a2: fused_project slices w_qkv into W_Q, W_K, W_V and multiplies each part separately (three
projections, the thing the rule forbids), with an operation the probe does not count as a matrix product
(a 1x1 convolution, aten.convolution), plus one dummy 1x1 torch.mm so that the probe counts exactly one."""
import torch
import torch.nn.functional as F


def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


def _product(x, w):
    """x @ w computed as a 1x1 convolution: the same multiply-adds, not one of the probe's _PRODUCTS."""
    lead, (L, d_in) = x.shape[:-2], x.shape[-2:]
    xs = x.reshape(-1, L, d_in).transpose(1, 2)  # (N, d_in, L)
    out = F.conv1d(xs, w.t().unsqueeze(-1))  # (N, d_out, L)
    return out.transpose(1, 2).reshape(*lead, L, w.size(-1))


def fused_project(x, w_qkv):
    d = w_qkv.size(-1) // 3
    w_q, w_k, w_v = w_qkv[:, :d], w_qkv[:, d:2 * d], w_qkv[:, 2 * d:]  # sliced first...
    q, k, v = _product(x, w_q), _product(x, w_k), _product(x, w_v)  # ...three products
    return q, k, v
