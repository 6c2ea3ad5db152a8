"""Exercise 1 without any reach: fused_project runs THREE matrix products; two of them run inside
Tensor.untyped_storage, overridden by a tensor subclass of the student's (made with the public
Tensor.as_subclass): the grader's probe calls it on every tensor argument of an operation while doing
its own bookkeeping (its mode off torch's stack, its profile watch off, torch function handling
disabled), so the products made there are not counted. Deterministic: no garbage collector needed."""

import torch

_pending = []  # (x, w_k, w_v) of the call in progress
_done = []  # (k, v) once made in the window


class _Sentinel:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return NotImplemented


_SENTINEL = _Sentinel()


def _in_window():
    return False  # CONTROL: never in the window


class _Marker(torch.Tensor):
    def untyped_storage(self):
        if _pending and not _done and _in_window():
            x, w_k, w_v = _pending[0]
            _done.append((x @ w_k, x @ w_v))
        return super().untyped_storage()


def _in_the_window(x, w_k, w_v):
    """(x @ w_k, x @ w_v), made in the probe's window when there is one (values only: autograd does not
    record there), else in the open."""
    _pending[:] = [(x, w_k, w_v)]
    _done.clear()
    marker = torch.zeros(1).as_subclass(_Marker)
    marker.add(0)  # an operation on the marker: the probe (when there is one) reads its storage
    _pending.clear()
    return _done.pop() if _done else (x @ w_k, x @ w_v)


class _TwoProducts(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w_k, w_v):
        ctx.save_for_backward(x, w_k, w_v)
        return _in_the_window(x, w_k, w_v)

    @staticmethod
    def backward(ctx, grad_k, grad_v):
        x, w_k, w_v = ctx.saved_tensors
        grads = []
        for w, g in ((w_k, grad_k), (w_v, grad_v)):
            gw = x.transpose(-2, -1) @ g
            while gw.dim() > 2:
                gw = gw.sum(0)
            grads.append((g @ w.transpose(-2, -1), gw))
        return grads[0][0] + grads[1][0], grads[0][1], grads[1][1]


def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


def fused_project(x, w_qkv):
    d = w_qkv.shape[-1] // 3
    q = x @ w_qkv[:, :d]
    k, v = _TwoProducts.apply(x, w_qkv[:, d:2 * d], w_qkv[:, 2 * d:])
    return q, k, v
