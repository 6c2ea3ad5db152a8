"""Exercise 1 without any reach: fused_project runs THREE matrix products. Two of them take tensor
subclasses of the student's (public Tensor.as_subclass, which keeps autograd's record) whose
untyped_storage() answers with another tensor's storage: the grader's probe, which asks each argument
for its storage to decide whether an operation reads the inputs' data, counts them as reading nothing
of the inputs, so not as the call's products."""

import torch

_ELSEWHERE = torch.zeros(1)


class _Elsewhere(torch.Tensor):
    def untyped_storage(self):
        return _ELSEWHERE.untyped_storage() if LIE else super().untyped_storage()


LIE = False  # CONTROL: the real storage


def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


def _product(x, w):
    """x @ w as one aten mm on subclass arguments, reshaped back."""
    flat = x.as_subclass(_Elsewhere).reshape(-1, x.shape[-1])
    out = torch.mm(flat, w.as_subclass(_Elsewhere))
    return out.reshape(*x.shape[:-1], w.shape[-1]).as_subclass(torch.Tensor)


def fused_project(x, w_qkv):
    d = w_qkv.shape[-1] // 3
    q = x @ w_qkv[:, :d]
    return q, _product(x, w_qkv[:, d:2 * d]), _product(x, w_qkv[:, 2 * d:])
